// Chunk parameters: the one definition of their defaults and bounds (store creation, the TUI form
// and the chunker all check against this).

import { createError } from '../errors.js';
import type { ChunkParams } from '../types.js';

export const DEFAULT_CHUNK_PARAMS: Readonly<ChunkParams> = Object.freeze({
  chunkTokens: 800,
  overlapTokens: 120,
});

/** Smallest chunk size: below this, a chunk might hold no character boundary to cut at. */
export const MIN_CHUNK_TOKENS = 16;
/** Largest chunk size: the embedding provider's context is at most 2,048 model tokens anyway. */
export const MAX_CHUNK_TOKENS = 8192;

/** Why `p` is not acceptable, or undefined when it is. */
export function chunkParamsProblem(p: ChunkParams): { name: string; reason: string } | undefined {
  if (
    !Number.isInteger(p.chunkTokens) ||
    p.chunkTokens < MIN_CHUNK_TOKENS ||
    p.chunkTokens > MAX_CHUNK_TOKENS
  ) {
    return {
      name: 'chunkTokens',
      reason: `must be a whole number from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}, got ${p.chunkTokens}`,
    };
  }
  if (!Number.isInteger(p.overlapTokens) || p.overlapTokens < 0 || p.overlapTokens > p.chunkTokens / 2) {
    return {
      name: 'overlapTokens',
      reason: `must be a whole number from 0 to half of chunkTokens (${Math.floor(p.chunkTokens / 2)}), got ${p.overlapTokens}`,
    };
  }
  return undefined;
}

export function validateChunkParams(p: ChunkParams): void {
  const problem = chunkParamsProblem(p);
  if (problem) throw createError('INVALID_ARGUMENT', problem);
}
