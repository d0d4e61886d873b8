// How good a token boundary is as a chunk edge (pure).
//
// Ranks, best first: PARAGRAPH (after a blank line), LINE (after a newline), SOFT (before a space
// that follows a non-space, or a giant-run seam), RAW (any other boundary between two characters),
// NONE (inside a UTF-8 character: never a chunk edge).
//
// Every non-RAW edge is also a boundary of tiktoken's cl100k pre-tokenizer regex, and cutting there
// does not change how the text on either side is split (no alternative looks ahead past a
// newline-terminated or non-space-terminated piece). So a chunk whose two edges are non-RAW has
// exactly as many tokens as its slice of the document's token array: no re-encoding needed.
// Chunks with a RAW edge are re-counted.

import { MAX_RUN } from './segments.js';
import type { TokenMap } from './token-map.js';

export const NONE = -1;
export const RAW = 0;
export const SOFT = 1;
export const LINE = 2;
export const PARAGRAPH = 3;

function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isUnicodeSpace(cp: number): boolean {
  return (
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

/** Whether the character ending just before byte `b` is whitespace. */
function spaceBefore(buf: Uint8Array, b: number): boolean {
  const last = buf[b - 1] as number;
  if (last < 0x80) return isAsciiSpace(last);
  let lead = b - 1;
  while (lead > 0 && lead > b - 4 && ((buf[lead] as number) & 0xc0) === 0x80) lead--;
  const l = buf[lead] as number;
  let cp: number;
  if (l >= 0xf0) cp = l & 0x07;
  else if (l >= 0xe0) cp = l & 0x0f;
  else cp = l & 0x1f;
  for (let i = lead + 1; i < b; i++) cp = (cp << 6) | ((buf[i] as number) & 0x3f);
  return isUnicodeSpace(cp);
}

/** Whether the line terminated by the LF at `nl` is blank (only spaces, tabs, CR). */
function blankLineEndsAt(buf: Uint8Array, nl: number): boolean {
  const stop = Math.max(-1, nl - 4 * MAX_RUN);
  for (let i = nl - 1; i > stop; i--) {
    const c = buf[i] as number;
    if (c === 0x0a) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return nl - 4 * MAX_RUN < 0; // reached the document start: a blank first line
}

/** Index of the first element of sorted `arr` greater than `x`. */
function upperBound(arr: readonly number[], x: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((arr[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inside a giant run only seams are clean edges (see segments.ts). */
function runRank(map: TokenMap, b: number): number | undefined {
  // runs is flattened [start, end) pairs; an odd insertion point means start < b < end... or b === end.
  const k = upperBound(map.runs, b);
  if ((k & 1) === 0) return undefined;
  if (b === map.runs[k - 1]) return undefined; // at a run start: an ordinary boundary
  const s = upperBound(map.seams, b);
  return s > 0 && map.seams[s - 1] === b ? SOFT : RAW;
}

export function rankAt(map: TokenMap, b: number): number {
  const buf = map.bytes;
  if (b <= 0 || b >= buf.length) return PARAGRAPH;
  const next = buf[b] as number;
  if ((next & 0xc0) === 0x80) return NONE;
  if (map.runs.length > 0) {
    const r = runRank(map, b);
    if (r !== undefined) return r;
  }
  const prev = buf[b - 1] as number;
  if (prev === 0x0a) {
    if (next === 0x0a || next === 0x0d) return RAW;
    return blankLineEndsAt(buf, b - 1) ? PARAGRAPH : LINE;
  }
  if (next === 0x20 && !spaceBefore(buf, b)) return SOFT;
  return RAW;
}
