import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import {
  type ContentCheck,
  type ContentKind,
  type ContentProblem,
  contentChars,
  createContentCheck,
  finishContent,
  pushChunk,
  resetContentCheck,
} from './content-check.js';
import { createSimdScratch } from './simd-scan.js';

// File I/O for the scanner: open without following links or blocking, then check and sha256-hash
// the file in one read pass through a reused buffer.
//
// Synchronous on purpose: measured here on 5,000 small files, async fs calls (promises or
// callbacks, 4-16 in flight) took 2-3x longer than sync calls because every open/fstat/read/close
// is a thread-pool round trip, while the work per file is a few microseconds. The walker yields to
// the event loop every few milliseconds, and scans run as background jobs anyway.

/** Opened read-only with O_NOFOLLOW (a link swapped in after readdir fails with ELOOP) and
 * O_NONBLOCK (a FIFO swapped in cannot block the open; regular files ignore the flag). */
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

export const READ_CHUNK = 1024 * 1024;

/** Reused by every file of a scan: the read buffer and the content checker. */
export interface ReadScratch {
  buf: Buffer;
  check: ContentCheck;
}

/** The read buffer lives in the SIMD scanner's memory when available, so checks need no copy. */
export function createScratch(): ReadScratch {
  return {
    buf: createSimdScratch(READ_CHUNK) ?? Buffer.allocUnsafeSlow(READ_CHUNK),
    check: createContentCheck('utf8'),
  };
}

// One-shot hashing (Node >= 20.12) saves a native Hash object per file, which is garbage with a
// finalizer; most files fit in one read.
const oneShot = (crypto as { hash?: (alg: string, data: Uint8Array, enc: 'hex') => string }).hash;

export interface Opened {
  fd: number;
  stat: fs.Stats;
}

/** Throws the fs error (with `.code`) on failure. */
export function openNoFollow(path: string): Opened {
  const fd = fs.openSync(path, OPEN_FLAGS);
  try {
    return { fd, stat: fs.fstatSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

export function closeQuiet(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {}
}

export type ReadOutcome =
  | { ok: true; bytes: number; sha256: string; chars: number }
  | { ok: false; bytes: number; tooLarge: true }
  | { ok: false; bytes: number; tooLarge: false; problem: ContentProblem };

/**
 * A generator that yields between chunks of large files (small files finish in one step).
 * Read the whole file from `fd` (at most `limit` bytes: one more means too large), checking
 * content as `kind` and hashing it. Stops at the first content problem. Throws on read errors.
 */
export function* readChecked(
  fd: number,
  expectedSize: number,
  kind: ContentKind,
  limit: number,
  scratch: ReadScratch,
): Generator<void, ReadOutcome, void> {
  const { buf } = scratch;
  const check = resetContentCheck(scratch.check, kind);
  let hash: crypto.Hash | null = null;
  let digest: string | null = null;
  let total = 0;
  for (;;) {
    const want = Math.min(buf.length, limit + 1 - total);
    const n = fs.readSync(fd, buf, 0, want, null);
    if (n === 0) break;
    total += n;
    if (total > limit) return { ok: false, bytes: total, tooLarge: true };
    const problem = pushChunk(check, buf, 0, n);
    if (problem) return { ok: false, bytes: total, tooLarge: false, problem };
    // A short read that reaches the size fstat gave is end of file: skip the extra read() call.
    const last = n < want && total >= expectedSize;
    if (last && hash === null && oneShot) {
      digest = oneShot('sha256', buf.subarray(0, n), 'hex');
      break;
    }
    hash ??= crypto.createHash('sha256');
    hash.update(n === buf.length ? buf : buf.subarray(0, n));
    if (last) break;
    yield; // between chunks of a large file the caller may give the event loop a turn
  }
  const problem = finishContent(check);
  if (problem) return { ok: false, bytes: total, tooLarge: false, problem };
  digest ??= (hash ?? crypto.createHash('sha256')).digest('hex');
  return { ok: true, bytes: total, sha256: digest, chars: contentChars(check) };
}

export function lstatQuiet(path: string | Buffer): fs.Stats | null {
  try {
    return fs.lstatSync(path);
  } catch {
    return null;
  }
}

export function readLinkDisplay(path: string | Buffer): Buffer | null {
  try {
    return fs.readlinkSync(path, { encoding: 'buffer' });
  } catch {
    return null;
  }
}

/** A small regular file (ignore files), never following a link; null when absent or unreadable. */
export function readSmallFile(
  path: string,
  maxBytes = 4 * 1024 * 1024,
): { text: string } | { error: string } | null {
  let opened: Opened;
  try {
    opened = openNoFollow(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : { error: code ?? String(err) };
  }
  try {
    if (!opened.stat.isFile()) return null;
    const size = Math.min(opened.stat.size, maxBytes);
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(opened.fd, buf, off, size - off, null);
      if (n === 0) break;
      off += n;
    }
    return { text: buf.subarray(0, off).toString('utf8') };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? String(err) };
  } finally {
    closeQuiet(opened.fd);
  }
}
