import type { Dirent } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createIgnoreFrame, gitignoreVerdict, type IgnoreFrame } from './gitignore.js';
import { lstatQuiet, readSmallFile } from './read-file.js';

// Finding and reading the ignore files git would use (the rules themselves are in gitignore.ts):
// - `.gitignore` in every directory the walk enters (regular files only: git does not follow a
//   symlinked .gitignore either);
// - `$GIT_DIR/info/exclude` of the repository the directory belongs to (a `.git` directory, or a
//   `.git` file pointing at one for worktrees and submodules);
// - when the source root lies inside a repository, the .gitignore files of the directories from
//   the repository top down to the root's parent, as git applies them. If those rules ignore the
//   root itself they are dropped: the user chose that folder explicitly.
// A directory holding its own `.git` starts a new rule set, as a nested repository does in git.

export function ancestorFrames(root: string): IgnoreFrame[] {
  const chain: string[] = [];
  let top: string | null = null;
  for (let dir = dirname(root), depth = 0; depth < 256; depth++) {
    chain.push(dir);
    if (lstatQuiet(join(dir, '.git'))) {
      top = dir;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (top === null) return [];
  const prefixOf = (dir: string) => `${relative(dir, root)}/`;
  const frames: IgnoreFrame[] = [];
  const exclude = infoExcludeFrame(join(top, '.git'), '', prefixOf(top));
  if (exclude) frames.push(exclude);
  for (const dir of chain.reverse()) {
    const file = join(dir, '.gitignore');
    const read = readSmallFile(file);
    if (read && 'text' in read) frames.push(createIgnoreFrame(read.text, '', file, prefixOf(dir)));
  }
  return gitignoreVerdict(frames, '', true).ignored ? [] : frames;
}

/**
 * Frames for the entries of one directory, given its parent's frames. `readBase` reaches the
 * directory's entries (the scanner passes its verified descriptor prefix, see dir-handle.ts);
 * messages name files under `absDir`.
 */
export function dirFrames(
  list: Dirent<Buffer>[],
  absDir: string,
  relDir: string,
  inherited: IgnoreFrame[],
  readBase = `${absDir}/`,
): { frames: IgnoreFrame[]; error: string | null } {
  let frames = inherited;
  let error: string | null = null;
  const shown = (p: string) => (p.startsWith(readBase) ? join(absDir, p.slice(readBase.length)) : p);
  const dotGit = list.find((d) => d.name.equals(DOT_GIT));
  if (dotGit && (dotGit.isDirectory() || dotGit.isFile())) {
    const exclude = infoExcludeFrame(`${readBase}.git`, relDir, '', shown);
    frames = exclude ? [exclude] : [];
  }
  const gi = list.find((d) => d.name.equals(DOT_GITIGNORE));
  if (gi?.isFile()) {
    const read = readSmallFile(`${readBase}.gitignore`);
    const file = join(absDir, '.gitignore');
    if (read && 'text' in read) frames = [...frames, createIgnoreFrame(read.text, relDir, file)];
    else if (read) error = read.error;
  }
  return { frames, error };
}

const DOT_GIT = Buffer.from('.git');
const DOT_GITIGNORE = Buffer.from('.gitignore');

function infoExcludeFrame(
  dotGit: string,
  base: string,
  prefix: string,
  shown: (p: string) => string = (p) => p,
): IgnoreFrame | null {
  const gitDir = resolveGitDir(dotGit);
  if (!gitDir) return null;
  const file = join(gitDir, 'info', 'exclude');
  const read = readSmallFile(file);
  return read && 'text' in read ? createIgnoreFrame(read.text, base, shown(file), prefix) : null;
}

function resolveGitDir(dotGit: string): string | null {
  const st = lstatQuiet(dotGit);
  if (st?.isDirectory()) return dotGit;
  if (!st?.isFile()) return null;
  const read = readSmallFile(dotGit, 64 * 1024);
  const m = read && 'text' in read ? /^gitdir:\s*(.+?)\s*$/m.exec(read.text) : null;
  if (!m) return null;
  const gitDir = resolve(dirname(dotGit), m[1]!);
  const common = readSmallFile(join(gitDir, 'commondir'), 64 * 1024);
  return common && 'text' in common ? resolve(gitDir, common.text.trim()) : gitDir;
}
