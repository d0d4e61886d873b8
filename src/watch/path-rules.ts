import { entryRule } from '../scan/entry-rules.js';
import type { IgnoreFrame } from '../scan/gitignore.js';
import { type GlobRules, isExcludedDir, isHidden } from '../scan/rules.js';

// Pure: does a change at this path matter to a source? The rules and their order are the
// scanner's own (scan/entry-rules.ts): excluded directory names, hidden names, .gitignore rules,
// exclude globs, then for files the format allowlist and include globs. The watcher uses the same
// answer to prune what it watches (directories) and to drop events the next scan would skip
// anyway (files).
// A `.gitignore` is hidden, so the scanner never indexes it, but it changes what is indexed: it
// is the one hidden name that counts as a change (and invalidates the cached rules).

export interface WatchRoot {
  path: string;
  kind: 'file' | 'folder';
}

/** The `/`-separated path relative to the source root (`''` = the root), or null when outside. */
export function relativeToRoot(root: WatchRoot, absPath: string): string | null {
  const p = trimSlash(absPath);
  const r = trimSlash(root.path);
  if (p === r) return '';
  if (root.kind === 'file') return null;
  const prefix = r.endsWith('/') ? r : `${r}/`;
  return p.startsWith(prefix) ? p.slice(prefix.length) : null;
}

export type PathKind = 'dir' | 'file' | 'unknown';

export interface PathContext {
  /** .gitignore frames that apply to entries of the path's parent directory (empty: none / off). */
  frames: readonly IgnoreFrame[];
  globs: GlobRules;
}

export type PathVerdict =
  | { relevant: true; rules?: true }
  | {
      relevant: false;
      why:
        | 'outside'
        | 'excluded-dir'
        | 'hidden'
        | 'gitignored'
        | 'excluded-by-glob'
        | 'unsupported-format'
        | 'not-included';
    };

/**
 * `rel` is relative to a folder root and not `''`. `kind` 'unknown' (the watcher did not stat the
 * path) is relevant unless both a directory and a file of that name would be skipped.
 */
export function pathVerdict(rel: string, kind: PathKind, ctx: PathContext): PathVerdict {
  if (kind === 'unknown') {
    const asDir = pathVerdict(rel, 'dir', ctx);
    if (asDir.relevant) return asDir;
    const asFile = pathVerdict(rel, 'file', ctx);
    return asFile.relevant ? asFile : asDir;
  }
  const parts = rel.split('/');
  // Ancestors: the watcher never descends into a skipped directory, but events can still name a
  // path below one (a rename out of it, a late event); judge them as the walk would.
  for (const dir of parts.slice(0, -1)) {
    if (isExcludedDir(dir)) return { relevant: false, why: 'excluded-dir' };
    if (isHidden(dir)) return { relevant: false, why: 'hidden' };
  }
  const name = parts[parts.length - 1]!;
  const isDir = kind === 'dir';
  const rule = entryRule(name, rel, isDir, ctx.frames, ctx.globs);
  switch (rule.step) {
    case 'descend':
    case 'index':
      return { relevant: true };
    case 'hidden':
      return !isDir && name === '.gitignore'
        ? { relevant: true, rules: true }
        : { relevant: false, why: 'hidden' };
    default:
      return { relevant: false, why: rule.step };
  }
}

/** The root-relative directory whose entries `rel` belongs to (`''` for top-level names). */
export function parentRel(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}
