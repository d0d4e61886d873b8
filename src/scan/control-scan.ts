import { simdScannerFor } from './simd-scan.js';

// Finding the first forbidden byte (a C0 control other than tab, LF, FF, CR; or DEL) while
// counting UTF-8 continuation bytes, for content-check.ts. Buffers in the SIMD scanner's memory
// (the reader's scratch) go through WebAssembly 64 bytes at a time; others, and the tails, through
// a 32-bit SWAR loop.

/** 1 for the bytes that make a file not text. */
export const BAD = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) BAD[b] = 1;
BAD[0x7f] = 1;
for (const ok of [0x09, 0x0a, 0x0c, 0x0d]) BAD[ok] = 0;

/** Continuation bytes counted by the last scanControls call (up to the index it returned). */
export function controlScanContinuation(): number {
  return lastContinuation;
}

let lastContinuation = 0;
const EMPTY_WORDS = new Int32Array(0);

/**
 * Index of the first forbidden control byte in buf[start, end), or -1. Also counts UTF-8
 * continuation bytes into `lastContinuation` (up to the returned index). 4 bytes at a time:
 * z = (b & 0x7f) + 1 maps DEL and C0 controls, and only those among ASCII bytes, below 0x21.
 */
export function scanControls(buf: Uint8Array, start: number, end: number): number {
  let cont = 0;
  let i = start;
  const simd = end - start >= 64 ? simdScannerFor(buf) : undefined;
  if (simd) {
    const base = buf.byteOffset;
    const stop = start + ((end - start) & ~63);
    const hit = simd.scan(base + start, base + stop);
    if (hit >= 0) {
      const from = hit - base;
      for (let j = from; j < from + 64; j++) if (BAD[buf[j]!]) return done(0, j);
    }
    cont = simd.cont();
    i = stop;
  }
  const align = Math.min(end, i + ((4 - ((buf.byteOffset + i) & 3)) & 3));
  for (; i < align; i++) {
    const b = buf[i]!;
    if (BAD[b]) return done(cont, i);
    if ((b & 0xc0) === 0x80) cont++;
  }
  const words = i === end ? 0 : (end - i) >> 2;
  const w32 = words === 0 ? EMPTY_WORDS : new Int32Array(buf.buffer, buf.byteOffset + i, words);
  for (let k = 0; k < words; k++) {
    const w = w32[k]!;
    const z = ((w & 0x7f7f7f7f) + 0x01010101) & 0x7f7f7f7f;
    if (((z - 0x21212121) & ~z & ~w & 0x80808080) !== 0) {
      const o = i + (k << 2);
      for (let j = o; j < o + 4; j++) if (BAD[buf[j]!]) return done(cont + countCont(buf, o, j), j);
    }
    if ((w & 0x80808080) !== 0) cont += Math.imul((w & ~(w << 1) & 0x80808080) >>> 7, 0x01010101) >>> 24;
  }
  for (i += words << 2; i < end; i++) {
    const b = buf[i]!;
    if (BAD[b]) return done(cont, i);
    if ((b & 0xc0) === 0x80) cont++;
  }
  return done(cont, -1);
}

function countCont(buf: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let j = from; j < to; j++) if ((buf[j]! & 0xc0) === 0x80) n++;
  return n;
}

function done(cont: number, at: number): number {
  lastContinuation = cont;
  return at;
}
