import { type Dirent, readdirSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type { IgnoreFrame } from '../scan/gitignore.js';
import { ancestorFrames, dirFrames } from '../scan/gitignore-files.js';
import { createGlobRules } from '../scan/rules.js';
import type { SourceOptions } from '../types.js';
import {
  type PathKind,
  type PathVerdict,
  parentRel,
  pathVerdict,
  relativeToRoot,
  type WatchRoot,
} from './path-rules.js';

// The scanner's skip rules applied to watcher paths, with the .gitignore frames of each directory
// read through the scanner's own reader (gitignore-files.ts) and cached until a .gitignore changes.
// A file source is watched through its parent directory (editors replace files by rename, which
// a watch on the file itself would lose); every other entry of that directory is outside.

export interface SourceFilter {
  /** The directory or file chokidar is given. */
  readonly watchPath: string;
  /** chokidar's `ignored`: true prunes the path (and, for a directory, everything below it). */
  ignored(absPath: string, stats?: Stats): boolean;
  /** Whether an event at this path can change what the next scan indexes. */
  verdict(absPath: string, kind: PathKind): PathVerdict;
  /** Forget cached .gitignore rules (one changed). */
  invalidate(): void;
}

export function createSourceFilter(root: WatchRoot, options: SourceOptions): SourceFilter {
  if (root.kind === 'file') {
    const parent = dirname(root.path);
    return {
      watchPath: parent,
      ignored: (p) => p !== parent && p !== root.path,
      verdict: (p) => (p === root.path ? { relevant: true } : { relevant: false, why: 'outside' }),
      invalidate() {},
    };
  }
  const globs = createGlobRules(options);
  const cache = new Map<string, IgnoreFrame[]>();
  let top: IgnoreFrame[] | null = null;

  const framesFor = (relDir: string): IgnoreFrame[] => {
    if (!options.gitignore) return [];
    const hit = cache.get(relDir);
    if (hit) return hit;
    if (relDir === '' && top === null) top = ancestorFrames(root.path);
    const inherited = relDir === '' ? (top ?? []) : framesFor(parentRel(relDir));
    const abs = relDir === '' ? root.path : `${root.path}/${relDir}`;
    let frames = inherited;
    try {
      const list = readdirSync(abs, { withFileTypes: true, encoding: 'buffer' }) as Dirent<Buffer>[];
      frames = dirFrames(list, abs, relDir, inherited).frames;
    } catch {
      // Gone or unreadable: the scan reports it; the parent's rules still apply.
    }
    cache.set(relDir, frames);
    return frames;
  };

  const verdict = (absPath: string, kind: PathKind): PathVerdict => {
    const rel = relativeToRoot(root, absPath);
    if (rel === null) return { relevant: false, why: 'outside' };
    if (rel === '') return { relevant: true };
    return pathVerdict(rel, kind, { frames: framesFor(parentRel(rel)), globs });
  };

  return {
    watchPath: root.path,
    ignored(absPath, stats) {
      // Links are never followed by the scanner; their own changes index nothing.
      if (stats?.isSymbolicLink()) return true;
      const kind: PathKind = stats ? (stats.isDirectory() ? 'dir' : 'file') : 'unknown';
      return !verdict(absPath, kind).relevant;
    },
    verdict,
    invalidate() {
      cache.clear();
      top = null;
    },
  };
}
