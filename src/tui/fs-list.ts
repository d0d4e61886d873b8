import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isExcludedDir, isHidden } from '../app/limits.js';
import type { DirEntry } from './state.js';

// The file browser's view of a directory: lstat only, so symbolic links are shown (and marked),
// never followed, exactly as the scan treats them.

export async function listDir(dir: string): Promise<DirEntry[]> {
  const names = await readdir(dir);
  const entries = await Promise.all(
    names.map(async (name): Promise<DirEntry> => {
      const p = join(dir, name);
      const hidden = isHidden(name);
      try {
        const st = await lstat(p);
        if (st.isSymbolicLink()) {
          const target = await readlink(p).catch(() => '?');
          return { name, type: 'symlink', target, size: 0, hidden, excluded: false };
        }
        const type = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
        return { name, type, size: st.size, hidden, excluded: type === 'dir' && isExcludedDir(name) };
      } catch {
        return { name, type: 'other', size: 0, hidden, excluded: false };
      }
    }),
  );
  return sortEntries(entries);
}

/** Folders first, then files; each group by name (case-insensitive), hidden entries after visible ones. */
export function sortEntries(entries: DirEntry[]): DirEntry[] {
  const rank = (e: DirEntry) => (e.type === 'dir' ? 0 : 1) * 2 + (e.hidden ? 1 : 0);
  return entries.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) ||
      (a.name < b.name ? -1 : 1),
  );
}

export async function pathKind(path: string): Promise<'dir' | 'file' | 'symlink' | 'other' | 'missing'> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return 'symlink';
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}
