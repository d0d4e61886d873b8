import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { decodeUtf8Text } from '../extract/text.js';
import { createContentCheck, finishContent, pushChunk } from '../scan/content-check.js';
import { InsideRootError, openInsideRoot } from '../scan/dir-handle.js';
import { detectFormat } from '../scan/formats.js';
import { isExcludedDir, isHidden } from '../scan/rules.js';

// Reads one text document inside a source root for an MCP client. The source is untrusted: the
// path is split into names under the root, and `..`, `.`, empty names, hidden names, excluded
// directories and names off the text allowlist are refused before any I/O. The file is then
// opened by the one verified opener the scanner and extraction use (`openInsideRoot`: every
// folder through its parent's descriptor, no link followed, no FIFO blocking), at most limit + 1
// bytes are read, and the content must pass the scanner's text check (UTF-8, no NUL or control
// bytes). A folder swapped for a link while we read is never followed out of the root.

export type SafeReadResult =
  | { ok: true; text: string; bytes: number; sha256: string }
  | { ok: false; reason: string };

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
export function readExcerptFile(root: string, names: readonly string[], maxBytes: number): SafeReadResult {
  const refuse = (reason: string): SafeReadResult => ({ ok: false, reason });
  let opened: { fd: number; stat: fs.Stats };
  try {
    opened = openInsideRoot(root, names);
  } catch (err) {
    if (err instanceof InsideRootError) return refuse(openRefusal(err));
    throw err;
  }
  const { fd, stat } = opened;
  try {
    if (stat.size > maxBytes)
      return refuse(`${stat.size} bytes is over the source's per-file limit of ${maxBytes}`);
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

function openRefusal(err: InsideRootError): string {
  const part = err.where === 'folder' ? 'a folder on the path' : 'it';
  switch (err.code) {
    case 'ELOOP':
      return `${part} is a symbolic link; links are never followed`;
    case 'ENOENT':
      return err.where === 'folder' ? 'a folder on the path does not exist' : 'no such file';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'NOT_FILE':
      return 'not a regular file';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${err.code})`;
    default:
      return `cannot be opened (${err.code})`;
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
