import * as fs from 'node:fs';
import { kindName } from './root-stat.js';

// Opening things inside a source folder without trusting its names. Anyone who can write into
// the folder can swap a directory for a symbolic link between two system calls; a path like
// `root/a/b/file` opened with O_NOFOLLOW still follows a link at `a` or `b`. Node has no openat,
// so every directory the scanner enters is opened once (O_DIRECTORY | O_NOFOLLOW) and its
// entries are reached through the descriptor: on Linux `/proc/self/fd/<fd>/<name>` resolves
// `<fd>` to the open directory itself (not to a name that can be swapped), which is openat(fd,
// name). Listing, lstat, readlink and open of an entry all go through that prefix, so nothing
// outside the directories actually entered is ever touched.
//
// Without /proc (macOS, BSD) names are used, and each open is followed by an lstat of the parent
// that must still be the directory that was entered. A swap and swap-back between the open and
// the check can still redirect one open there; extraction then refuses the file anyway, because
// its device and inode must match those of the file the scan read.
//
// This is the one place that opens a file inside a source: the scanner's walk, extraction's
// reopen (`openInsideRoot` with the scan's identities) and the MCP excerpt reader all use it.

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
/** Regular files: no link at the last component, no blocking on a FIFO, no controlling tty. */
export const FILE_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | (C.O_NOCTTY ?? 0);

/** `dev:ino` of an entry: what "the same file" means across two opens. */
export type FileId = string;
export const fileIdOf = (st: fs.Stats): FileId => `${st.dev}:${st.ino}`;

export interface DirHandle {
  fd: number;
  id: FileId;
  /** The directory's path as shown to the user (and opened by on platforms without /proc). */
  path: string;
  /** Prefix that names an entry of this very directory: `/proc/self/fd/<fd>/` or `path/`. */
  prefix: string;
}

let procFd: boolean | undefined;

/** Whether `/proc/self/fd/<fd>/` reaches the directory open as `fd` (decided once). */
function procFdWorks(fd: number, id: FileId): boolean {
  if (procFd === undefined) {
    try {
      procFd = fileIdOf(fs.statSync(`/proc/self/fd/${fd}/.`)) === id;
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

function handle(fd: number, path: string): DirHandle {
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  const id = fileIdOf(st);
  return { fd, id, path, prefix: procFdWorks(fd, id) ? `/proc/self/fd/${fd}/` : `${trimSlash(path)}/` };
}

/** The source root (its own name is trusted: the user chose it; a link there fails with ELOOP). */
export function openRootDir(path: string): DirHandle {
  return handle(fs.openSync(path, DIR_FLAGS), path);
}

/** Where `name` of `dir` is reached (for lstat, readlink, readdir and open). */
export function entryPath(dir: DirHandle, name: string | Buffer): string | Buffer {
  return typeof name === 'string' ? dir.prefix + name : Buffer.concat([Buffer.from(dir.prefix), name]);
}

/** A subdirectory of `dir`; fails (ELOOP, ENOTDIR, ENOENT) when `name` is no longer a directory. */
export function openSubdir(dir: DirHandle, name: string | Buffer, path: string): DirHandle {
  let fd: number;
  try {
    fd = fs.openSync(entryPath(dir, name), DIR_FLAGS);
  } catch (err) {
    // Linux answers ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW: say what it is.
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' && isLink(entryPath(dir, name)))
      throw Object.assign(new Error(`${path} is a symbolic link`), { code: 'ELOOP' });
    throw err;
  }
  const sub = handle(fd, path);
  try {
    checkParent(dir);
  } catch (err) {
    fs.closeSync(sub.fd);
    throw err;
  }
  return sub;
}

/** A file of `dir`, opened without following a link or blocking; with its fstat. */
export function openFileIn(dir: DirHandle, name: string | Buffer): { fd: number; stat: fs.Stats } {
  const fd = fs.openSync(entryPath(dir, name), FILE_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    checkParent(dir);
    return { fd, stat };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** Entries of `dir` itself, in byte order of the raw names (deterministic and locale-free). */
export function listDir(dir: DirHandle): fs.Dirent<Buffer>[] {
  const list = fs.readdirSync(dir.prefix, { withFileTypes: true, encoding: 'buffer' });
  const sorted = list.sort((a, b) => Buffer.compare(a.name, b.name));
  checkParent(dir);
  return sorted;
}

function isLink(p: string | Buffer): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

export function closeDir(dir: DirHandle): void {
  try {
    fs.closeSync(dir.fd);
  } catch {}
}

/**
 * Without /proc, names were used: the directory must still be the one that was opened. Errors
 * read as ELOOP ("replaced by a link"), which the walk reports and extraction turns into a skip.
 */
function checkParent(dir: DirHandle): void {
  if (dir.prefix.startsWith('/proc/self/fd/')) return;
  let now: FileId | null = null;
  try {
    const st = fs.lstatSync(dir.path);
    if (st.isDirectory()) now = fileIdOf(st);
  } catch {}
  if (now !== dir.id) {
    throw Object.assign(new Error(`${dir.path} was replaced while it was being read`), { code: 'ELOOP' });
  }
}

/**
 * Why `openInsideRoot` did not open. `code` is the errno of the failing call (ELOOP: a link where
 * a folder or the file was; ENOENT, ENOTDIR, EACCES, ...), `REPLACED` when a folder or the file is
 * not the one `expect` names, or `NOT_FILE` when the entry is no regular file.
 */
export class InsideRootError extends Error {
  constructor(
    readonly code: string,
    /** The part that failed: a folder on the way down (the root included) or the file itself. */
    readonly where: 'folder' | 'file',
    /** The folder or file as shown to the user. */
    readonly at: string,
    message: string,
    options?: { cause?: unknown },
    /** For NOT_FILE: what it is instead (FIFO, device, folder, ...). */
    readonly found?: string,
  ) {
    super(message, options);
  }
}

/** Identities a reopen must find: the scan's `dev:ino` of the root and each folder below it, and of the file. */
export interface ExpectedIds {
  dirIds: readonly FileId[];
  fileId?: FileId;
}

/**
 * Open `root/names...` as a regular file through verified descriptors: the root is opened without
 * following a link, each folder below it through its parent's descriptor, and the file without
 * following a link or blocking (a FIFO or device never hangs the caller). With `expect`, every
 * folder and the file must be the very ones the scan saw. `names` empty: `root` is a file source
 * itself, opened by its own name (the user chose it). The caller closes `fd`.
 */
export function openInsideRoot(
  root: string,
  names: readonly string[],
  expect?: ExpectedIds,
): { fd: number; stat: fs.Stats } {
  if (names.length === 0) return checkedFile(openFileByName(root), root, expect);
  if (expect && expect.dirIds.length !== names.length)
    throw new InsideRootError('REPLACED', 'folder', root, `${root}: the scan recorded another folder depth`);
  let dir: DirHandle;
  try {
    dir = openRootDir(root);
  } catch (err) {
    throw failure(err, 'folder', root);
  }
  try {
    if (expect && dir.id !== expect.dirIds[0]) throw replacedDir(dir.path);
    for (let i = 0; i < names.length - 1; i++) {
      const path = `${trimSlash(dir.path)}/${names[i]}`;
      let sub: DirHandle;
      try {
        sub = openSubdir(dir, names[i]!, path);
      } catch (err) {
        throw failure(err, 'folder', path);
      }
      closeDir(dir);
      dir = sub;
      if (expect && dir.id !== expect.dirIds[i + 1]) throw replacedDir(dir.path);
    }
    const path = `${trimSlash(dir.path)}/${names.at(-1)}`;
    let opened: { fd: number; stat: fs.Stats };
    try {
      opened = openFileIn(dir, names.at(-1)!);
    } catch (err) {
      throw failure(err, 'file', path);
    }
    return checkedFile(opened, path, expect);
  } finally {
    closeDir(dir);
  }
}

function openFileByName(path: string): { fd: number; stat: fs.Stats } {
  let fd: number;
  try {
    fd = fs.openSync(path, FILE_FLAGS);
  } catch (err) {
    throw failure(err, 'file', path);
  }
  try {
    return { fd, stat: fs.fstatSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw failure(err, 'file', path);
  }
}

function checkedFile(
  opened: { fd: number; stat: fs.Stats },
  path: string,
  expect: ExpectedIds | undefined,
): { fd: number; stat: fs.Stats } {
  let problem: InsideRootError | undefined;
  if (!opened.stat.isFile())
    problem = new InsideRootError(
      'NOT_FILE',
      'file',
      path,
      `${path} is a ${kindName(opened.stat)}, not a regular file`,
      {},
      kindName(opened.stat),
    );
  else if (expect?.fileId !== undefined && fileIdOf(opened.stat) !== expect.fileId)
    problem = new InsideRootError('REPLACED', 'file', path, `${path} is not the file that was scanned`);
  if (!problem) return opened;
  fs.closeSync(opened.fd);
  throw problem;
}

const replacedDir = (path: string) =>
  new InsideRootError('REPLACED', 'folder', path, `${path} is not the folder that was scanned`);

function failure(err: unknown, where: 'folder' | 'file', path: string): InsideRootError {
  const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
  return new InsideRootError(code, where, path, `${path}: ${(err as Error).message}`, { cause: err });
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** Test hook: force the name-based fallback (or back to auto-detection with `undefined`). */
export function setProcFdForTests(value: boolean | undefined): void {
  procFd = value;
}
