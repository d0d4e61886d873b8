// Encode a document once and map every token to its UTF-8 byte offset (pure over a Tokenizer).
// Chunk boundaries are chosen among token boundaries and sliced from the UTF-8 bytes, so nothing is
// ever re-encoded or decoded token by token.

import { createError } from '../errors.js';
import { segmentForEncoding } from './segments.js';
import type { Tokenizer } from './tokenizer.js';

export interface TokenMap {
  bytes: Buffer;
  /** Number of tokens. */
  n: number;
  /** off[i] = byte offset where token i starts; off[n] = bytes.length. */
  off: Uint32Array;
  /** Byte offsets of giant-run seams (token boundaries by construction), ascending. */
  seams: number[];
  /** Giant runs as flattened [start, end) byte ranges, ascending. */
  runs: number[];
}

export function mapTokens(text: string, tok: Tokenizer): TokenMap {
  const bytes = Buffer.from(text, 'utf8');
  const { segments, runs: runIdx } = segmentForEncoding(text);
  let tokens: Uint32Array;
  const seams: number[] = [];
  if (segments.length === 1) {
    tokens = tok.encodeOrdinary(text);
  } else {
    const parts = segments.map((s) => tok.encodeOrdinary(s));
    let total = 0;
    for (const p of parts) total += p.length;
    tokens = new Uint32Array(total);
    let at = 0;
    let byte = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i] as Uint32Array;
      tokens.set(p, at);
      at += p.length;
      byte += Buffer.byteLength(segments[i] as string, 'utf8');
      if (i < parts.length - 1) seams.push(byte);
    }
  }
  const n = tokens.length;
  const off = new Uint32Array(n + 1);
  let b = 0;
  for (let i = 0; i < n; i++) {
    off[i] = b;
    b += tok.tokenByteLength(tokens[i] as number);
  }
  off[n] = b;
  if (b !== bytes.length) {
    throw createError('CHUNK_FAILED', { reason: `tokens cover ${b} bytes but the text has ${bytes.length}` });
  }
  return { bytes, n, off, seams, runs: runsToBytes(text, runIdx) };
}

function runsToBytes(text: string, runIdx: number[]): number[] {
  const out: number[] = [];
  let prevIdx = 0;
  let prevByte = 0;
  for (const idx of runIdx) {
    prevByte += Buffer.byteLength(text.slice(prevIdx, idx), 'utf8');
    prevIdx = idx;
    out.push(prevByte);
  }
  return out;
}
