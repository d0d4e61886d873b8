import type * as fs from 'node:fs';
import { basename } from 'node:path';
import { createError } from '../errors.js';
import type { FormatInfo, SkipReason, SourceOptions } from '../types.js';
import { admitVisit } from './bounds.js';
import {
  closeDir,
  type DirHandle,
  entryPath,
  type FileId,
  listDir,
  openFileIn,
  openRootDir,
  openSubdir,
} from './dir-handle.js';
import { decodeName, escapeBytes } from './display-name.js';
import { entryRule } from './entry-rules.js';
import { detectFormat, unsupportedReason } from './formats.js';
import type { IgnoreFrame } from './gitignore.js';
import { ancestorFrames, dirFrames } from './gitignore-files.js';
import { readCandidate } from './read-candidate.js';
import { lstatQuiet, openNoFollow, readLinkDisplay } from './read-file.js';
import { expectRootKind, kindName, rootStat } from './root-stat.js';
import { createGlobRules, type GlobRules } from './rules.js';
import { due, finish, pause, type WalkContext } from './walk-context.js';
import { fsErrorEntry, skippedEntry, type WalkEntry } from './walk-entry.js';

// The scanner's I/O shell: an lstat-level walk in byte order of names, never following links and
// never opening anything but regular files. Every visited entry becomes one row; directories that
// are entered produce no row of their own. Scheduling (yields, progress, cancellation) is in
// walk-context.ts, reading one file in read-candidate.ts.
//
// Every directory is entered through an open descriptor and its entries are reached through it
// (dir-handle.ts), so a directory swapped for a symbolic link mid-scan fails to open (ELOOP) and
// is reported; nothing outside the root is listed or read. The walk records the device and inode
// of each directory entered and of each accepted file: extraction opens exactly those again.

export { detectSourceKind } from './root-stat.js';
export type { ScanProgress, WalkContext } from './walk-context.js';
export type { WalkEntry } from './walk-entry.js';

export interface WalkResult {
  entries: WalkEntry[];
  /** Root-relative name components where a bound stopped the walk (null: walk completed). */
  stoppedAt: Buffer[] | null;
  /** Folder sources: identity of every directory entered, by root-relative path ('' = the root). */
  dirIds?: Record<string, FileId>;
}

type EntryType = 'dir' | 'file' | 'symlink' | 'special';

interface Walker {
  root: string;
  options: SourceOptions;
  globs: GlobRules;
  ctx: WalkContext;
  out: WalkResult;
}

export async function walkFolder(
  root: string,
  options: SourceOptions,
  ctx: WalkContext,
): Promise<WalkResult> {
  expectRootKind(root, rootStat(root), 'folder');
  const w: Walker = {
    root,
    options,
    globs: createGlobRules(options),
    ctx,
    out: { entries: [], stoppedAt: null, dirIds: {} },
  };
  const dir = openRoot(root);
  try {
    await walkDir(w, dir, '', [], options.gitignore ? ancestorFrames(root) : [], true);
  } finally {
    closeDir(dir);
  }
  return w.out;
}

/** The root directory by its (trusted) name; errors as the spec wants them for a root. */
function openRoot(root: string): DirHandle {
  try {
    return openRootDir(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw createError('SOURCE_NOT_FOUND', { path: root }, err);
    if (code === 'ELOOP') throw createError('SOURCE_IS_SYMLINK', { path: root });
    if (code === 'ENOTDIR')
      throw createError('SOURCE_TYPE_MISMATCH', { path: root, expected: 'folder', found: 'file' });
    if (code === 'EACCES' || code === 'EPERM')
      throw createError('SOURCE_PERMISSION_DENIED', { path: root }, err);
    throw createError('IO_FAILED', { path: root, op: 'open', reason: code ?? String(err) }, err);
  }
}

/** A file source: format, size and content rules apply; hidden/glob/.gitignore rules do not (it was chosen). */
export async function walkFile(root: string, options: SourceOptions, ctx: WalkContext): Promise<WalkResult> {
  const st = rootStat(root);
  expectRootKind(root, st, 'file');
  const out: WalkResult = { entries: [], stoppedAt: null };
  if (due(ctx)) await pause(ctx);
  if (!admitVisit(ctx.tracker, root)) {
    out.stoppedAt = [];
    return out;
  }
  const name = basename(root);
  const format = detectFormat(name);
  if (!format) {
    out.entries.push(skippedEntry(root, name, null, st.size, 'unsupported-format', unsupportedReason(name)));
    return out;
  }
  const open = () => openNoFollow(root);
  const c = {
    abs: root,
    open,
    rel: name,
    format,
    maxFileBytes: options.maxFileBytes,
    hardLinks: options.hardLinks === true,
    isRoot: true,
  };
  const r = await finish(readCandidate(c, ctx.tracker, ctx.scratch), ctx);
  out.entries.push(r.entry);
  if (r.stopped) out.stoppedAt = [];
  return out;
}

const joinAbs = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : `${dir}/${name}`);
const joinRel = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);

function entryType(d: fs.Dirent<Buffer>): EntryType {
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isSymbolicLink()) return 'symlink';
  return 'special';
}

/** Record one row; false (and the stop point set) when the visited-files bound is used up. */
function push(w: Walker, parts: Buffer[], name: Buffer, entry: WalkEntry): boolean {
  if (!admitVisit(w.ctx.tracker, entry.path)) {
    w.out.stoppedAt = [...parts, name];
    return false;
  }
  w.out.entries.push(entry);
  return true;
}

async function walkDir(
  w: Walker,
  dir: DirHandle,
  relDir: string,
  parts: Buffer[],
  inherited: IgnoreFrame[],
  isRoot: boolean,
): Promise<void> {
  const absDir = dir.path;
  let list: fs.Dirent<Buffer>[];
  try {
    list = listDir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (isRoot && (code === 'EACCES' || code === 'EPERM')) {
      throw createError('SOURCE_PERMISSION_DENIED', { path: absDir }, err);
    }
    if (isRoot)
      throw createError('IO_FAILED', { path: absDir, op: 'readdir', reason: code ?? String(err) }, err);
    push(w, parts.slice(0, -1), parts.at(-1)!, fsErrorEntry(absDir, `${relDir}/`, null, 0, err, 'directory'));
    return;
  }
  w.out.dirIds![relDir] = dir.id;
  let frames = inherited;
  let ignoreNote: string | null = null;
  if (w.options.gitignore)
    ({ frames, error: ignoreNote } = dirFrames(list, absDir, relDir, inherited, dir.prefix));

  for (const d of list) {
    if (due(w.ctx)) await pause(w.ctx);
    const type = entryType(d);
    const decoded = decodeName(d.name);
    if (!decoded.ok) {
      const rel = joinRel(relDir, decoded.display) + (type === 'dir' ? '/' : '');
      const size = type === 'file' ? (lstatQuiet(entryPath(dir, d.name))?.size ?? 0) : 0;
      const entry = skippedEntry(
        joinAbs(w.root, rel),
        rel,
        null,
        size,
        'bad-name',
        `${decoded.why}; not indexed`,
      );
      if (!push(w, parts, d.name, entry)) return;
      continue;
    }
    const name = decoded.name;
    const abs = joinAbs(absDir, name);
    const at = entryPath(dir, name) as string;
    const rel = joinRel(relDir, name);
    const v = verdict(w, at, rel, name, type, frames, ignoreNote);
    if ('reason' in v) {
      const size = type === 'file' ? (lstatQuiet(at)?.size ?? 0) : 0;
      const format = type === 'file' ? (detectFormat(name)?.id ?? null) : null;
      const shownRel = type === 'dir' ? `${rel}/` : rel;
      if (!push(w, parts, d.name, skippedEntry(abs, shownRel, format, size, v.reason, v.why))) return;
      continue;
    }
    if ('descend' in v) {
      let sub: DirHandle;
      try {
        sub = openSubdir(dir, name, abs);
      } catch (err) {
        // Swapped for a link (ELOOP) or a file (ENOTDIR) since it was listed, or gone.
        if (!push(w, parts, d.name, fsErrorEntry(abs, `${rel}/`, null, 0, err, 'directory'))) return;
        continue;
      }
      try {
        await walkDir(w, sub, rel, [...parts, d.name], frames, false);
      } finally {
        closeDir(sub);
      }
      if (w.ctx.tracker.stop) return;
      continue;
    }
    const format = v.format;
    if (!admitVisit(w.ctx.tracker, abs)) {
      w.out.stoppedAt = [...parts, d.name];
      return;
    }
    const open = () => openFileIn(dir, name);
    const c = {
      abs,
      open,
      rel,
      format,
      maxFileBytes: w.options.maxFileBytes,
      hardLinks: w.options.hardLinks === true,
      isRoot: false,
    };
    const step = readCandidate(c, w.ctx.tracker, w.ctx.scratch);
    const first = step.next(); // most files are done in one step: no promise needed
    const r = first.done ? first.value : await finish(step, w.ctx, first);
    w.out.entries.push(r.entry);
    if (r.stopped) {
      w.out.stoppedAt = [...parts, d.name];
      return;
    }
  }
}

const DESCEND = { descend: true } as const;
type Verdict = { reason: SkipReason; why: string } | typeof DESCEND | { format: FormatInfo };

/** The rules for one well-named entry, in the order that gives the most specific reason. */
function verdict(
  w: Walker,
  at: string,
  rel: string,
  name: string,
  type: EntryType,
  frames: IgnoreFrame[],
  ignoreNote: string | null,
): Verdict {
  const isDir = type === 'dir';
  const rule = entryRule(name, rel, isDir, frames, w.globs);
  if (rule.step === 'excluded-dir') {
    return {
      reason: 'excluded-dir',
      why: `${name}/ is a metadata, dependency, build, cache or IDE directory; not entered`,
    };
  }
  if (rule.step === 'hidden') {
    const note =
      name === '.gitignore' && ignoreNote ? `; its ignore rules could not be read (${ignoreNote})` : '';
    return { reason: 'hidden', why: `hidden ${isDir ? 'directory' : 'path'}${note}` };
  }
  if (type === 'symlink') {
    const target = readLinkDisplay(at);
    return {
      reason: 'symlink',
      why: `symbolic link${target ? ` to ${escapeBytes(target)}` : ''}; links are never followed`,
    };
  }
  if (type === 'special') {
    const st = lstatQuiet(at);
    return { reason: 'special-file', why: `${st ? kindName(st) : 'special file'}; not opened` };
  }
  switch (rule.step) {
    case 'gitignored':
      return {
        reason: 'gitignored',
        why: `ignored by ${rule.match.source} (pattern "${rule.match.pattern}")`,
      };
    case 'excluded-by-glob':
      return { reason: 'excluded-by-glob', why: 'matches an exclude glob of this source' };
    case 'descend':
      return DESCEND;
    case 'unsupported-format':
      return { reason: 'unsupported-format', why: unsupportedReason(name) };
    case 'not-included':
      return { reason: 'not-included', why: 'not matched by the include globs of this source' };
    case 'index':
      return { format: rule.format };
  }
}
