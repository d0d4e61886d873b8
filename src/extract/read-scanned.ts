import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { createError } from '../errors.js';
import {
  closeDir,
  type DirHandle,
  FILE_FLAGS,
  fileIdOf,
  openFileIn,
  openRootDir,
  openSubdir,
} from '../scan/dir-handle.js';
import { kindName } from '../scan/root-stat.js';
import type { ScannedFile, SkipReason } from '../types.js';

// The bytes of one accepted file, read again for extraction without trusting any name: the root
// and every directory on the way down are opened through the previous one's descriptor and must
// be the directories the scan entered (device and inode), the file must be the regular file the
// scan read, and at most the scanned size + 1 byte is read (one more means it changed). The scan's
// sha256 must match. So a file swapped for a link to /dev/zero or for a FIFO, or a directory
// swapped for a link to somewhere else, is skipped with its reason and never read.

const read = promisify(fs.read);
const READ_CHUNK = 8 * 1024 * 1024;

function skip(path: string, reason: string, skipReason: SkipReason, cause?: unknown): Error {
  return createError('EXTRACT_FAILED', { path, reason, skipReason }, cause);
}

function openFailure(path: string, err: unknown, what: 'file' | 'folder'): Error {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  const on = what === 'folder' ? 'a folder on its path' : 'it';
  if (code === 'ELOOP')
    return skip(path, `${on} was replaced by a symbolic link since the scan; not followed`, 'symlink', err);
  if (code === 'ENOENT') return skip(path, `${on} was removed since the scan`, 'read-error', err);
  if (code === 'ENOTDIR')
    return skip(path, 'a folder on its path changed into a file since the scan', 'read-error', err);
  if (code === 'EACCES' || code === 'EPERM')
    return skip(path, `permission denied (${code})`, 'permission-denied', err);
  return skip(path, `cannot read (${code})`, 'read-error', err);
}

const replaced = (path: string, what: string) =>
  skip(path, `${what} was replaced by another one since the scan; not read`, 'read-error');

/** The file the scan read, opened through verified directories; the caller closes the descriptor. */
function openScanned(path: string, s: ScannedFile): { fd: number; stat: fs.Stats } {
  if (s.names.length === 0) return openByName(path, s.root);
  if (s.dirIds.length !== s.names.length) throw replaced(path, 'its folder');
  let dir: DirHandle;
  try {
    dir = openRootDir(s.root);
  } catch (err) {
    throw openFailure(path, err, 'folder');
  }
  try {
    if (dir.id !== s.dirIds[0]) throw replaced(path, 'the source folder');
    for (let i = 0; i < s.names.length - 1; i++) {
      let sub: DirHandle;
      try {
        sub = openSubdir(dir, s.names[i]!, `${dir.path}/${s.names[i]}`);
      } catch (err) {
        throw openFailure(path, err, 'folder');
      }
      closeDir(dir);
      dir = sub;
      if (dir.id !== s.dirIds[i + 1]) throw replaced(path, `the folder ${dir.path}`);
    }
    try {
      return openFileIn(dir, s.names.at(-1)!);
    } catch (err) {
      throw openFailure(path, err, 'file');
    }
  } finally {
    closeDir(dir);
  }
}

function openByName(path: string, name: string): { fd: number; stat: fs.Stats } {
  let fd: number;
  try {
    fd = fs.openSync(name, FILE_FLAGS);
  } catch (err) {
    throw openFailure(path, err, 'file');
  }
  try {
    return { fd, stat: fs.fstatSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw openFailure(path, err, 'file');
  }
}

export interface ReadScannedOptions {
  /** The scan's record of the file; without it the path is opened (still without following a
   * link or blocking) and read up to the size fstat gives. */
  scanned?: ScannedFile;
  /** sha256 the bytes must have (defaults to the scanned one). */
  expectSha256?: string;
  signal?: AbortSignal;
}

export async function readScannedBytes(path: string, opts: ReadScannedOptions = {}): Promise<Buffer> {
  const s = opts.scanned;
  const { fd, stat } = s ? openScanned(path, s) : openByName(path, path);
  try {
    if (!stat.isFile())
      throw skip(path, `changed into a ${kindName(stat)} since the scan; not read`, 'special-file');
    if (s && fileIdOf(stat) !== s.fileId) throw replaced(path, 'it');
    const size = s ? s.size : stat.size;
    let buf: Buffer;
    try {
      // Not from the shared pool: the bytes go to another process as their own buffer.
      buf = Buffer.allocUnsafeSlow(size + 1);
    } catch (err) {
      throw skip(path, 'too large to read', 'too-large', err);
    }
    let off = 0;
    while (off < buf.length) {
      if (opts.signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
      let n: number;
      try {
        ({ bytesRead: n } = await read(fd, buf, off, Math.min(READ_CHUNK, buf.length - off), off));
      } catch (err) {
        throw openFailure(path, err, 'file');
      }
      if (n === 0) break;
      off += n;
    }
    if (off > size) throw changed(path, 'it grew');
    if (s && off < size) throw changed(path, 'it shrank');
    const bytes = buf.subarray(0, off);
    const expect = opts.expectSha256 ?? s?.sha256;
    if (expect !== undefined && createHash('sha256').update(bytes).digest('hex') !== expect)
      throw changed(path, 'its content no longer has the scanned hash');
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

function changed(path: string, how: string): Error {
  return skip(path, `changed since the scan (${how}); run the update again`, 'read-error');
}
