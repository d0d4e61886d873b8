import { readdir, stat } from 'node:fs/promises';
import { storeConfigPath, storesDir } from '../storage/paths.js';

// Cheap change detection for store.json files: the watcher re-reads the stores only when a stamp
// (mtime, size, inode: atomic replacement changes the inode) or the set of stores changed.

export type Stamps = Map<string, string>;

export async function readStamps(home: string): Promise<Stamps> {
  const out: Stamps = new Map();
  let ids: string[] = [];
  try {
    ids = await readdir(storesDir(home));
  } catch {}
  await Promise.all(
    ids.map(async (id) => {
      try {
        const st = await stat(storeConfigPath(id, home));
        out.set(id, `${st.mtimeMs}:${st.size}:${st.ino}`);
      } catch {}
    }),
  );
  return out;
}

export function sameStamps(a: Stamps, b: Stamps): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}
