import type { FormatInfo } from '../types.js';
import { detectFormat } from './formats.js';
import { gitignoreVerdict, type IgnoreFrame, type IgnoreVerdict } from './gitignore.js';
import { type GlobRules, isExcludedDir, isHidden } from './rules.js';

// Pure: the name and path rules for one entry, in the order that gives the most specific reason.
// The scanner (walk.ts) and the watcher (watch/path-rules.ts) both decide through this, so what
// the watcher ignores is exactly what the next scan would skip.

export type EntryRule =
  | { step: 'excluded-dir' }
  | { step: 'hidden' }
  | { step: 'gitignored'; match: IgnoreVerdict }
  | { step: 'excluded-by-glob' }
  | { step: 'unsupported-format' }
  | { step: 'not-included' }
  | { step: 'descend' }
  | { step: 'index'; format: FormatInfo };

/**
 * `rel` is the `/`-separated path relative to the source root. The first two steps depend on the
 * name alone; the scanner checks links and special files between them and the rest.
 */
export function entryRule(
  name: string,
  rel: string,
  isDir: boolean,
  frames: readonly IgnoreFrame[],
  globs: GlobRules,
): EntryRule {
  if (isDir && isExcludedDir(name)) return { step: 'excluded-dir' };
  if (isHidden(name)) return { step: 'hidden' };
  if (frames.length > 0) {
    const match = gitignoreVerdict(frames, rel, isDir);
    if (match.ignored) return { step: 'gitignored', match };
  }
  if (globs.excluded(rel, isDir)) return { step: 'excluded-by-glob' };
  if (isDir) return { step: 'descend' };
  // The allowlist first: include globs can only narrow it (spec).
  const format = detectFormat(name);
  if (!format) return { step: 'unsupported-format' };
  if (!globs.included(rel)) return { step: 'not-included' };
  return { step: 'index', format };
}
