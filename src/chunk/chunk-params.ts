import { createError } from '../errors.js';
import type { ChunkParams } from '../types.js';

// The one definition of chunk sizes: the defaults, and the bounds that store creation, the CLI,
// the TUI form and the chunker all check against.

export const DEFAULT_CHUNK_PARAMS: Readonly<ChunkParams> = Object.freeze({
  chunkTokens: 800,
  overlapTokens: 120,
});

/**
 * Chunk sizes accepted, in tokens. The chunker itself needs at least 16 (a window must be able to
 * hold a character boundary); below 50 a chunk carries too little text to be retrieved on its own,
 * and above 8192 it no longer fits the context of the embedding models we support.
 */
export const CHUNK_TOKENS = Object.freeze({ min: 50, max: 8192 });

/** The overlap may be at most half a chunk, so each chunk moves the window forward by at least half. */
export function maxOverlapTokens(chunkTokens: number): number {
  return Math.floor(chunkTokens / 2);
}

/** Why `p` is out of bounds (which field and what is allowed), or undefined when it is fine. */
export function chunkParamsProblem(p: ChunkParams): { name: string; reason: string } | undefined {
  const { min, max } = CHUNK_TOKENS;
  if (!Number.isInteger(p.chunkTokens) || p.chunkTokens < min || p.chunkTokens > max) {
    return {
      name: 'chunkTokens',
      reason: `must be a whole number from ${min} to ${max}, got ${p.chunkTokens}`,
    };
  }
  const most = maxOverlapTokens(p.chunkTokens);
  if (!Number.isInteger(p.overlapTokens) || p.overlapTokens < 0 || p.overlapTokens > most) {
    return {
      name: 'overlapTokens',
      reason: `must be a whole number from 0 to half of the chunk size (${most}), got ${p.overlapTokens}`,
    };
  }
  return undefined;
}

export function validateChunkParams(p: ChunkParams): void {
  const problem = chunkParamsProblem(p);
  if (problem) throw createError('INVALID_ARGUMENT', problem);
}
