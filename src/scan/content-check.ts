import { isUtf8 } from 'node:buffer';
import type { SkipReason } from '../types.js';
import { controlScanContinuation, scanControls } from './control-scan.js';
import { validSequenceLength } from './display-name.js';

// Is this file text we may index? Pure, fed chunk by chunk by the reader in the same pass that
// hashes the file, so a multi-byte sequence may be split across chunks.
//
// Rules (spec "Supported formats"): valid UTF-8; no NUL (→ `binary`) and no other C0 control
// byte or DEL (→ `control-bytes`), except tab, LF, CR and form feed. Form feed is allowed because
// it is a page break in real source files (GNU C, Emacs Lisp, Python's stdlib) and is whitespace
// to the tokenizer. A UTF-8 BOM is fine (stripped at extraction, not counted as a character).
// UTF-16/32 text is reported as `not-utf8`, named from its BOM or its NUL pattern.
// C1 controls (U+0080..U+009F) are valid UTF-8 and are not checked (rare, harmless to the tokenizer).
//
// Speed (measured here, 1 MiB chunks of source text): node:buffer isUtf8 (simdutf) ~25 GB/s; the
// control scan in WebAssembly SIMD (simd-scan.ts, used for buffers in its memory) several GB/s,
// its 32-bit SWAR fallback below ~1.7-2 GB/s; against TextDecoder({fatal, stream}) ~0.57 GB/s
// (which also allocates the decoded string) and a per-byte state machine ~0.4-0.6 GB/s.
//
// Characters (for the extracted-characters preview bound) are Unicode code points: bytes minus
// UTF-8 continuation bytes, minus the BOM. PDF and .docx text is unknown until extraction, so they
// count 0 here and the extractor must enforce the rest of the budget with its real counts.

export type ContentKind = 'utf8' | 'pdf' | 'docx';

export interface ContentProblem {
  reason: SkipReason;
  explanation: string;
}

export interface ContentCheck {
  kind: ContentKind;
  /** Bytes consumed so far. */
  offset: number;
  /** UTF-8 continuation bytes seen (chars = offset - continuation - BOM). */
  continuation: number;
  /** First bytes of the file (up to `headMax`), for BOM / magic-number decisions. */
  head: Uint8Array;
  headLen: number;
  headMax: number;
  /** Bytes of a multi-byte sequence cut off at the end of the last chunk. */
  carry: Uint8Array;
  carryLen: number;
  problem: ContentProblem | null;
}

const HEAD_BYTES: Record<ContentKind, number> = { utf8: 64, pdf: 1024, docx: 4 };

export function createContentCheck(kind: ContentKind): ContentCheck {
  const st = { head: new Uint8Array(1024), carry: new Uint8Array(4) } as ContentCheck;
  return resetContentCheck(st, kind);
}

/** Reuse a checker for the next file (the scanner checks thousands; this saves the garbage). */
export function resetContentCheck(st: ContentCheck, kind: ContentKind): ContentCheck {
  st.kind = kind;
  st.offset = 0;
  st.continuation = 0;
  st.headLen = 0;
  st.headMax = HEAD_BYTES[kind];
  st.carryLen = 0;
  st.problem = null;
  return st;
}

/** Consume buf[start, end). Returns (and keeps) the first problem; later chunks are then ignored. */
export function pushChunk(
  st: ContentCheck,
  buf: Uint8Array,
  start: number,
  end: number,
): ContentProblem | null {
  if (st.problem) return st.problem;
  if (st.headLen < st.headMax) {
    const take = Math.min(st.headMax - st.headLen, end - start);
    for (let i = 0; i < take; i++) st.head[st.headLen + i] = buf[start + i]!;
    st.headLen += take;
  }
  if (st.kind !== 'utf8') {
    st.offset += end - start;
    return null;
  }
  const bad = scanControls(buf, start, end);
  st.continuation += controlScanContinuation();
  let badUtf8 = -1;
  // Complete a sequence cut at the previous chunk boundary.
  let pos = start;
  if (st.carryLen > 0) {
    const carryStart = st.offset - st.carryLen;
    const want = sequenceLength(st.carry[0]!);
    while (st.carryLen < want && pos < end && (buf[pos]! & 0xc0) === 0x80)
      st.carry[st.carryLen++] = buf[pos++]!;
    if (st.carryLen < want && pos < end) {
      badUtf8 = carryStart; // the sequence ends early: a non-continuation byte follows
      st.carryLen = 0;
    } else if (st.carryLen === want) {
      if (validSequenceLength(st.carry.subarray(0, want), 0) !== want) badUtf8 = carryStart;
      st.carryLen = 0;
    }
  }
  if (badUtf8 < 0) {
    const tail = incompleteTail(buf, pos, end);
    if (!isUtf8(buf.subarray(pos, tail))) badUtf8 = st.offset + (firstInvalid(buf, pos, tail) - start);
    else for (let i = tail; i < end; i++) st.carry[st.carryLen++] = buf[i]!;
  }
  const badCtl = bad < 0 ? -1 : st.offset + (bad - start);
  st.offset += end - start;
  if (badUtf8 >= 0 && (badCtl < 0 || badUtf8 < badCtl)) st.problem = classify(st, 'utf8', badUtf8, 0);
  else if (badCtl >= 0) st.problem = classify(st, 'ctl', badCtl, buf[bad]!);
  return st.problem;
}

/** End of input: the verdict for the whole file. */
export function finishContent(st: ContentCheck): ContentProblem | null {
  if (st.problem) return st.problem;
  const h = st.head.subarray(0, st.headLen);
  if (st.kind === 'utf8' && st.carryLen > 0) {
    const lead = st.carry[0]!;
    const cut = lead >= 0xc2 && lead <= 0xf4 ? ' (multi-byte sequence cut off at end of file)' : '';
    st.problem = classify(st, 'utf8', st.offset - st.carryLen, 0, cut);
  } else if (st.kind === 'pdf' && Buffer.from(h).indexOf('%PDF-') < 0) {
    st.problem = {
      reason: 'pdf-invalid',
      explanation: 'no %PDF- header in the first 1024 bytes: not a PDF file',
    };
  } else if (st.kind === 'docx' && !(h[0] === 0x50 && h[1] === 0x4b && h[2] === 0x03 && h[3] === 0x04)) {
    st.problem = {
      reason: 'docx-invalid',
      explanation: 'not a ZIP container (a .docx file is a ZIP archive)',
    };
  }
  return st.problem;
}

/** Decoded characters (code points) of an accepted UTF-8 file, BOM excluded; 0 for PDF/docx. */
export function contentChars(st: ContentCheck): number {
  if (st.kind !== 'utf8') return 0;
  const bom = st.headLen >= 3 && st.head[0] === 0xef && st.head[1] === 0xbb && st.head[2] === 0xbf;
  return st.offset - st.continuation - (bom ? 1 : 0);
}

/** Whole-buffer convenience (tests, small inputs). */
export function checkContent(kind: ContentKind, data: Uint8Array): ContentProblem | null {
  const st = createContentCheck(kind);
  pushChunk(st, data, 0, data.length);
  return finishContent(st);
}

function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** Start of a multi-byte sequence that runs past `end`, else `end`. */
function incompleteTail(buf: Uint8Array, start: number, end: number): number {
  for (let i = end - 1; i >= start && i >= end - 3; i--) {
    const b = buf[i]!;
    if (b < 0x80) return end;
    if (b >= 0xc0) return i + sequenceLength(b) > end ? i : end;
  }
  return end;
}

function firstInvalid(buf: Uint8Array, start: number, end: number): number {
  const view = buf.subarray(0, end);
  for (let i = start; i < end; ) {
    const len = validSequenceLength(view, i);
    if (len === 0) return i;
    i += len;
  }
  return end;
}

const CONTROL_NAMES: Record<number, string> = {
  27: 'ESC',
  127: 'DEL',
  8: 'BS',
  11: 'VT',
  7: 'BEL',
};

function classify(
  st: ContentCheck,
  what: 'utf8' | 'ctl',
  at: number,
  byte: number,
  extra = '',
): ContentProblem {
  const h = st.head.subarray(0, st.headLen);
  const bom = wideBom(h);
  if (bom) return { reason: 'not-utf8', explanation: `${bom} text (byte-order mark): only UTF-8 is indexed` };
  if (what === 'ctl' && byte === 0) {
    const wide = looksUtf16(h);
    if (wide) {
      return {
        reason: 'not-utf8',
        explanation: `looks like ${wide} text without a byte-order mark: only UTF-8 is indexed`,
      };
    }
    return { reason: 'binary', explanation: `NUL byte at byte offset ${at}: binary data, not text` };
  }
  if (what === 'ctl') {
    const name = CONTROL_NAMES[byte];
    const hex = `0x${byte.toString(16).padStart(2, '0').toUpperCase()}`;
    return {
      reason: 'control-bytes',
      explanation: `control byte ${hex}${name ? ` (${name})` : ''} at byte offset ${at}; only tab, LF, CR and form feed are allowed in text`,
    };
  }
  return { reason: 'not-utf8', explanation: `not UTF-8: invalid byte sequence at byte offset ${at}${extra}` };
}

function wideBom(h: Uint8Array): string | null {
  if (h[0] === 0xff && h[1] === 0xfe) return h[2] === 0 && h[3] === 0 ? 'UTF-32 LE' : 'UTF-16 LE';
  if (h[0] === 0xfe && h[1] === 0xff) return 'UTF-16 BE';
  if (h[0] === 0 && h[1] === 0 && h[2] === 0xfe && h[3] === 0xff) return 'UTF-32 BE';
  return null;
}

/** ASCII-range text in UTF-16 without a BOM: NULs at nearly every odd (LE) or even (BE) byte. */
function looksUtf16(h: Uint8Array): string | null {
  const pairs = h.length >> 1;
  if (pairs < 2) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i + 1 < h.length; i += 2) {
    if (h[i] === 0) even++;
    if (h[i + 1] === 0) odd++;
  }
  if (odd >= pairs * 0.75 && even === 0) return 'UTF-16 LE';
  if (even >= pairs * 0.75 && odd === 0) return 'UTF-16 BE';
  return null;
}
