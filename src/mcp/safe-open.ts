import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { decodeUtf8Text } from '../extract/text.js';
import { createContentCheck, finishContent, pushChunk } from '../scan/content-check.js';
import { detectFormat } from '../scan/formats.js';
import { isExcludedDir, isHidden } from '../scan/rules.js';

// Reads one text document inside a source root for an MCP client, safe against a hostile folder
// that swaps entries while we look (the source is untrusted; links are never followed):
//   1. the path is split into names under the root; `..`, `.`, empty names, hidden names,
//      excluded directories and names off the text allowlist are refused before any I/O;
//   2. every directory from the root down to the parent is lstat'ed: a real directory, never a
//      link, and its device/inode is remembered;
//   3. the file is opened with O_NOFOLLOW | O_NONBLOCK (a link fails, a FIFO cannot block) and
//      fstat'ed: a regular file within the size limit;
//   4. the open file is tied to the path we meant: on Linux the kernel's own name for the
//      descriptor (/proc/self/fd/N) must be the real root joined with the names (a directory
//      swapped for a link anywhere above, even for an instant, shows its target there); and
//      everywhere, the directory chain is lstat'ed again and must have the same devices/inodes
//      (without /proc that narrows the window but cannot close it: a swap and a swap back
//      between the two lstats go unseen; Node has no openat to walk the chain by descriptor);
//   5. at most limit + 1 bytes are read; the content must pass the scanner's text check
//      (UTF-8, no NUL or control bytes).

export type SafeReadResult =
  | { ok: true; text: string; bytes: number; sha256: string }
  | { ok: false; reason: string };

const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** Why `names` (a relative path under a folder source, split on `/`) may not be read, or null. */
export function nameRefusal(names: readonly string[]): string | null {
  if (names.length === 0) return 'no file name';
  for (const [i, n] of names.entries()) {
    if (n === '' || n === '.' || n === '..') return 'the path must not contain empty, "." or ".." parts';
    if (n.includes('\0')) return 'the path contains a NUL byte';
    if (isHidden(n)) return `"${n}" is hidden; hidden paths are never indexed`;
    if (i < names.length - 1 && isExcludedDir(n)) return `"${n}" is an excluded directory`;
  }
  return formatRefusal(names[names.length - 1]!);
}

/** Why a file of this name cannot be read by line range, or null (text formats only). */
export function formatRefusal(name: string): string | null {
  const format = detectFormat(name);
  if (!format) return 'not a supported text format';
  if (format.extract !== 'text')
    return `a ${format.id} file has no source lines; read its excerpts by marker, without a line range`;
  return null;
}

/**
 * Read `root/names...` (a folder source) or `root` itself (`names` empty: a file source, whose
 * own name the user chose). `maxBytes` is the source's per-file limit.
 */
export function readInsideRoot(root: string, names: readonly string[], maxBytes: number): SafeReadResult {
  const refuse = (reason: string): SafeReadResult => ({ ok: false, reason });
  let realRoot: string;
  const chain: string[] = [];
  if (names.length === 0) {
    // A file source: the chain starts at its directory, which the user chose with the file.
    try {
      realRoot = join(fs.realpathSync(dirname(root)), root.slice(dirname(root).length + 1));
    } catch {
      return refuse('the source root is not reachable');
    }
  } else {
    try {
      realRoot = fs.realpathSync(root);
    } catch {
      return refuse('the source root is not reachable');
    }
    chain.push(root);
    for (let i = 0; i < names.length - 1; i++) chain.push(join(chain[chain.length - 1]!, names[i]!));
  }
  const before = statChain(chain);
  if (typeof before === 'string') return refuse(before);
  const path = names.length === 0 ? root : join(root, ...names);
  let fd: number;
  try {
    fd = fs.openSync(path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return refuse('it is a symbolic link; links are never followed');
    if (code === 'ENOENT' || code === 'ENOTDIR') return refuse('no such file');
    return refuse(`cannot be opened (${code ?? 'error'})`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return refuse('not a regular file');
    if (st.size > maxBytes)
      return refuse(`${st.size} bytes is over the source's per-file limit of ${maxBytes}`);
    const expected = names.length === 0 ? realRoot : join(realRoot, ...names);
    const kernelName = procName(fd);
    if (kernelName !== null && kernelName !== expected) return refuse('the path leads outside its source');
    const after = statChain(chain);
    if (typeof after === 'string' || after.some((id, i) => id !== before[i]))
      return refuse('the folder changed while it was being opened');
    const read = readAll(fd, maxBytes);
    if (!read) return refuse(`grew past the source's per-file limit of ${maxBytes} bytes`);
    const check = createContentCheck('utf8');
    const problem = pushChunk(check, read, 0, read.length) ?? finishContent(check);
    if (problem) return refuse(problem.explanation);
    const decoded = decodeUtf8Text(read);
    if (!decoded.ok) return refuse(decoded.reason);
    return {
      ok: true,
      text: decoded.text,
      bytes: read.length,
      sha256: createHash('sha256').update(read).digest('hex'),
    };
  } finally {
    try {
      fs.closeSync(fd);
    } catch {}
  }
}

/** dev:ino of each directory, or why one is not a plain directory. */
function statChain(dirs: readonly string[]): string[] | string {
  const ids: string[] = [];
  for (const d of dirs) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(d);
    } catch {
      return 'a folder on the path does not exist';
    }
    if (st.isSymbolicLink()) return 'a folder on the path is a symbolic link; links are never followed';
    if (!st.isDirectory()) return 'a part of the path is not a folder';
    ids.push(`${st.dev}:${st.ino}`);
  }
  return ids;
}

/** The kernel's path of an open descriptor (Linux), or null where /proc is not available. */
function procName(fd: number): string | null {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** The whole file, or null when it holds more than `max` bytes. */
function readAll(fd: number, max: number): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, max + 1 - total));
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > max) return null;
    chunks.push(buf.subarray(0, n));
  }
  return Buffer.concat(chunks, total);
}
