import * as fs from 'node:fs';
import { createError } from '../errors.js';

// The source root itself: problems here are errors (spec: a symbolic-link root, a type mismatch or
// a permission error report ERROR; a missing root is handled by the caller as MISSING).

export function rootStat(root: string): fs.Stats {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw createError('SOURCE_NOT_FOUND', { path: root }, err);
    if (code === 'EACCES' || code === 'EPERM')
      throw createError('SOURCE_PERMISSION_DENIED', { path: root }, err);
    throw createError('IO_FAILED', { path: root, op: 'lstat', reason: code ?? String(err) }, err);
  }
  if (st.isSymbolicLink()) throw createError('SOURCE_IS_SYMLINK', { path: root });
  return st;
}

export function expectRootKind(root: string, st: fs.Stats, kind: 'file' | 'folder'): void {
  if (kind === 'folder' ? st.isDirectory() : st.isFile()) return;
  throw createError('SOURCE_TYPE_MISMATCH', { path: root, expected: kind, found: kindName(st) });
}

/** File or folder, for callers that take a bare path (the CLI). */
export function detectSourceKind(path: string): 'file' | 'folder' {
  return rootStat(path).isDirectory() ? 'folder' : 'file';
}

export function kindName(st: fs.Stats): string {
  if (st.isDirectory()) return 'folder';
  if (st.isFile()) return 'file';
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'special file';
}
