// Bounded encoding of giant runs (pure).
//
// tiktoken splits text with a regex and runs BPE on each piece; BPE is quadratic in the piece
// length, and a run of letters (or punctuation, or whitespace) with no break is one piece:
// measured here, 16 K letters take 0.2 s, 64 K take 4 s, so a 1 MB line with no whitespace
// would take many minutes. We therefore cut every run of more than MAX_RUN characters of one
// class (whitespace / non-whitespace) into MAX_RUN-character segments and encode those
// separately. Text without such runs is encoded as one segment, exactly like `encode_ordinary`.
//
// Seams are placed at run start + k*MAX_RUN (moved one code unit right if that would split a
// surrogate pair), so a chunk that starts at a seam re-segments identically: the chunker relies on
// this to report token counts without re-encoding.

export const MAX_RUN = 256;

export interface Segmentation {
  /** Consecutive pieces of the text; joined they give the text back. */
  segments: string[];
  /** Giant runs as [start, end) UTF-16 index pairs, flattened and sorted. */
  runs: number[];
}

function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Giant runs of `text`, flattened [start, end) pairs in UTF-16 indices. */
export function findGiantRuns(text: string, maxRun = MAX_RUN): number[] {
  const runs: number[] = [];
  const n = text.length;
  if (n <= maxRun) return runs;
  let start = 0;
  let cls = isSpace(text.charCodeAt(0));
  for (let i = 1; i < n; i++) {
    const c = isSpace(text.charCodeAt(i));
    if (c !== cls) {
      if (i - start > maxRun) runs.push(start, i);
      start = i;
      cls = c;
    }
  }
  if (n - start > maxRun) runs.push(start, n);
  return runs;
}

/** Seam positions inside the run [start, end). */
export function runSeams(text: string, start: number, end: number, maxRun = MAX_RUN): number[] {
  const seams: number[] = [];
  let p = start + maxRun;
  while (p < end) {
    const c = text.charCodeAt(p);
    // Never split a surrogate pair: move the seam past the low surrogate.
    if (c >= 0xdc00 && c <= 0xdfff && p > start) {
      const h = text.charCodeAt(p - 1);
      if (h >= 0xd800 && h <= 0xdbff) p++;
    }
    if (p >= end) break;
    seams.push(p);
    p += maxRun;
  }
  return seams;
}

/** Splits `text` at the seams of its giant runs. */
export function segmentForEncoding(text: string, maxRun = MAX_RUN): Segmentation {
  const runs = findGiantRuns(text, maxRun);
  if (runs.length === 0) return { segments: [text], runs };
  const segments: string[] = [];
  let last = 0;
  for (let r = 0; r < runs.length; r += 2) {
    for (const seam of runSeams(text, runs[r] as number, runs[r + 1] as number, maxRun)) {
      segments.push(text.slice(last, seam));
      last = seam;
    }
  }
  segments.push(text.slice(last));
  return { segments, runs };
}

/** Token count with giant runs segmented; `countTokens` in tokenizer.ts documents it. */
/** `tok`: the tokenizer's encoder (tokenizer.ts), passed in so this module stays free of tiktoken. */
export function countSegmented(text: string, tok: { encodeOrdinary(text: string): Uint32Array }): number {
  let n = 0;
  for (const seg of segmentForEncoding(text).segments) n += tok.encodeOrdinary(seg).length;
  return n;
}
