import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { createError } from '../errors.js';
import { InsideRootError, openInsideRoot } from '../scan/dir-handle.js';
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

/** The skip for a refused reopen, in the words of "what changed since the scan". */
function refusal(path: string, err: InsideRootError): Error {
  const on = err.where === 'folder' ? 'a folder on its path' : 'it';
  switch (err.code) {
    case 'ELOOP':
      return skip(path, `${on} was replaced by a symbolic link since the scan; not followed`, 'symlink', err);
    case 'ENOENT':
      return skip(path, `${on} was removed since the scan`, 'read-error', err);
    case 'ENOTDIR':
      return skip(path, 'a folder on its path changed into a file since the scan', 'read-error', err);
    case 'EACCES':
    case 'EPERM':
      return skip(path, `permission denied (${err.code})`, 'permission-denied', err);
    case 'NOT_FILE':
      return skip(path, `changed into a ${err.found} since the scan; not read`, 'special-file', err);
    case 'REPLACED':
      return skip(
        path,
        `${err.where === 'file' ? 'it' : `the folder ${err.at}`} was replaced by another one since the scan; not read`,
        'read-error',
        err,
      );
    default:
      return skip(path, `cannot read (${err.code})`, 'read-error', err);
  }
}

/** The file the scan read (or, without the scan's record, the path itself); the caller closes it. */
function open(path: string, s: ScannedFile | undefined): { fd: number; stat: fs.Stats } {
  try {
    return s
      ? openInsideRoot(s.root, s.names, { dirIds: s.dirIds, fileId: s.fileId })
      : openInsideRoot(path, []);
  } catch (err) {
    if (err instanceof InsideRootError) throw refusal(path, err);
    throw err;
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
  const { fd, stat } = open(path, s);
  try {
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
        const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
        throw refusal(path, new InsideRootError(code, 'file', path, String(err), { cause: err }));
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
