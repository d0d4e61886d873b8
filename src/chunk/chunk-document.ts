// The chunker (pure): deterministic token windows with overlap, cut at content-defined points.
//
// - The document is encoded once (see token-map.ts); chunk edges are token boundaries. Where chunks
//   end is planned in cut-plan.ts: by the strength of each boundary (a paragraph end, then a line
//   end, then a word start, then any boundary between two characters, never inside a UTF-8
//   character; ties by a hash of the bytes around it), so cuts depend on the text near them and an
//   edit changes only the chunks around it.
// - Every chunk has at most chunkTokens tokens (overlap included); they average ~0.77 of it.
// - The next chunk starts ~overlapTokens before the previous end, snapped to the nearest line
//   start within a quarter of the overlap, else to a word start, else to a character boundary.
// - `tokens` is `countTokens(chunk.text)` (tokenizer.ts): equal to `encode_ordinary(text).length`
//   for all text without 256+ character runs of one kind (see segments.ts). Chunks whose edges are
//   clean pre-tokenizer boundaries take the count from the document's token array; others are
//   re-counted and, if needed, shortened until they fit.
// - Locations: 1-based inclusive range of the lines holding the chunk's text (lines counted by LF;
//   blank lines at either end of the slice excluded) for line documents; 1-based inclusive page
//   range for paged documents (chunks may span pages).
// - Whitespace-only chunks are dropped; an empty document gives no chunks.

import type { Chunk, ChunkParams, ExtractedDoc } from '../types.js';
import { planCuts } from './cut-plan.js';
import { NONE, RAW, rankAt } from './cut-points.js';
import { type DocText, flattenDoc, type PageSpan } from './doc-text.js';
import { validateChunkParams } from './params.js';
import { countSegmented as countTokens } from './segments.js';
import { mapTokens, type TokenMap } from './token-map.js';
import type { Tokenizer } from './tokenizer.js';

export {
  chunkParamsProblem,
  DEFAULT_CHUNK_PARAMS,
  MAX_CHUNK_TOKENS,
  MIN_CHUNK_TOKENS,
  validateChunkParams,
} from './params.js';

interface Span {
  s: number;
  e: number;
  tokens: number;
}

export function chunkDocument(doc: ExtractedDoc, params: ChunkParams, tok: Tokenizer): Chunk[] {
  return place(doc, params, tok, false).map((c) => c.chunk);
}

/** A chunk with its [start, end) UTF-16 offsets in `flattenDoc(doc).text` (for tests and highlighting). */
export interface PlacedChunk {
  chunk: Chunk;
  start: number;
  end: number;
}

export function chunkDocumentWithOffsets(
  doc: ExtractedDoc,
  params: ChunkParams,
  tok: Tokenizer,
): PlacedChunk[] {
  return place(doc, params, tok, true);
}

function place(doc: ExtractedDoc, params: ChunkParams, tok: Tokenizer, offsets: boolean): PlacedChunk[] {
  validateChunkParams(params);
  const flat = flattenDoc(doc);
  if (flat.text.length === 0) return [];
  const map = mapTokens(flat.text, tok);
  const spans = planSpans(map, params, tok);
  return locate(flat, map, spans, offsets);
}

function planSpans(map: TokenMap, params: ChunkParams, tok: Tokenizer): Span[] {
  const { n, off, bytes } = map;
  const C = params.chunkTokens;
  const planned = planCuts(map, C, params.overlapTokens);
  const spans: Span[] = [];
  let prevEnd = 0;
  for (const p of planned) {
    // A previous chunk shortened below (raw edges) must not leave a gap before this one.
    const s = Math.min(p.s, prevEnd);
    let e = p.e;
    let tokens = e - s;
    const raw = (i: number) => i > 0 && i < n && rankAt(map, off[i] as number) === RAW;
    if (raw(s) || raw(e)) {
      // Counts of edges cut inside a pre-tokenizer piece may differ from the slice: measure.
      tokens = countTokens(bytes.toString('utf8', off[s], off[e]), tok);
      while (tokens > C) {
        e = charBoundaryAtOrBefore(map, e - Math.max(1, tokens - C), s);
        tokens = countTokens(bytes.toString('utf8', off[s], off[e]), tok);
      }
    }
    spans.push({ s, e, tokens });
    prevEnd = e;
  }
  return spans;
}

/** Largest i in (s, from] whose byte offset is a character boundary; s + 1 at worst. */
function charBoundaryAtOrBefore(map: TokenMap, from: number, s: number): number {
  for (let i = Math.min(from, map.n); i > s; i--) {
    if (rankAt(map, map.off[i] as number) !== NONE) return i;
  }
  // A token boundary inside a character right after s: move forward to the next clean one.
  for (let i = s + 1; i <= map.n; i++) {
    if (rankAt(map, map.off[i] as number) !== NONE) return i;
  }
  return map.n;
}

function locate(flat: DocText, map: TokenMap, spans: Span[], offsets: boolean): PlacedChunk[] {
  const { bytes, off } = map;
  const out: PlacedChunk[] = [];
  const lines = flat.pages === undefined ? new LineCounter(bytes) : undefined;
  let pageCursor = 0;
  // UTF-16 offset of the previous span's start, advanced by decoding only the bytes in between.
  let prevByte = 0;
  let prev16 = 0;
  for (const span of spans) {
    const start = off[span.s] as number;
    const end = off[span.e] as number;
    const text = bytes.toString('utf8', start, end);
    const start16 =
      !offsets || start === prevByte ? prev16 : prev16 + bytes.toString('utf8', prevByte, start).length;
    prevByte = start;
    prev16 = start16;
    if (text.trim().length === 0) continue;
    const chunk: Chunk = { index: out.length, text, tokens: span.tokens };
    if (lines) {
      // Cite the lines that hold text: leading/trailing blank lines of the slice are not part of it.
      let a = start;
      let z = end - 1;
      while (a < z && isAsciiSpace(bytes[a] as number)) a++;
      while (z > a && isAsciiSpace(bytes[z] as number)) z--;
      chunk.lineStart = lines.lineOf(a);
      chunk.lineEnd = lines.lineOf(z);
    } else {
      const pages = flat.pages as PageSpan[];
      while (pageCursor < pages.length - 1 && (pages[pageCursor] as PageSpan).end <= start) pageCursor++;
      let last = pageCursor;
      while (last < pages.length - 1 && (pages[last + 1] as PageSpan).start < end) last++;
      chunk.pageStart = (pages[pageCursor] as PageSpan).page;
      chunk.pageEnd = (pages[last] as PageSpan).page;
    }
    out.push({ chunk, start: start16, end: start16 + text.length });
  }
  return out;
}

function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** 1-based line of a byte offset; queries must not go backwards by more than one chunk. */
class LineCounter {
  private pos = 0;
  private line = 1;
  private readonly marks: { pos: number; line: number }[] = [];
  constructor(private readonly buf: Uint8Array) {}

  lineOf(byte: number): number {
    if (byte < this.pos) {
      // Chunk starts move back by the overlap: restart from the nearest remembered position.
      let m = this.marks.length - 1;
      while (m >= 0 && (this.marks[m] as { pos: number }).pos > byte) m--;
      const mark = m >= 0 ? (this.marks[m] as { pos: number; line: number }) : { pos: 0, line: 1 };
      this.pos = mark.pos;
      this.line = mark.line;
      this.marks.length = Math.max(0, m + 1);
    }
    const buf = this.buf;
    let line = this.line;
    for (let i = this.pos; i < byte; i++) if (buf[i] === 0x0a) line++;
    this.marks.push({ pos: byte, line });
    this.pos = byte;
    this.line = line;
    return line;
  }
}
