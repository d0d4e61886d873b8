import ignore, { type Ignore } from 'ignore';

// .gitignore semantics as git applies them (pure; the walker reads the files). Each ignore file
// applies to paths relative to its own directory; for one path the deepest file with a matching
// rule decides (its last matching rule wins, `!` re-includes), then $GIT_DIR/info/exclude.
// A directory that is ignored is never entered, so nothing below it can be re-included, as in git.
// Not applied: core.excludesFile (a per-user setting, not part of the tree) and core.ignoreCase
// (matching is case-sensitive, git's default on Linux).

export interface IgnoreFrame {
  ig: Ignore;
  /** Root-relative directory the rules apply to (`''` = the source root or a frame above it). */
  base: string;
  /** For frames above the source root: the root's path relative to the frame's directory, plus `/`. */
  prefix: string;
  /** Display path of the ignore file, for explanations. */
  source: string;
}

export function createIgnoreFrame(content: string, base: string, source: string, prefix = ''): IgnoreFrame {
  return { ig: ignore({ ignorecase: false }).add(content), base, prefix, source };
}

export interface IgnoreVerdict {
  ignored: boolean;
  source?: string;
  pattern?: string;
}

/** `rel` is the `/`-separated path relative to the source root (`''` is the root itself). */
export function gitignoreVerdict(frames: readonly IgnoreFrame[], rel: string, isDir: boolean): IgnoreVerdict {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i]!;
    const local =
      f.base !== '' ? rel.slice(f.base.length + 1) : rel === '' ? f.prefix.slice(0, -1) : f.prefix + rel;
    if (local === '') continue;
    const r = f.ig.test(isDir ? `${local}/` : local);
    if (r.ignored) return { ignored: true, source: f.source, pattern: r.rule?.pattern ?? '' };
    if (r.unignored) return { ignored: false };
  }
  return { ignored: false };
}
