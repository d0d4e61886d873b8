import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { korttyHome, ragDir, snapshotPath, storeConfigPath, storeDir } from './paths.js';

// Everything under $KORTTY_HOME/rag is the owner's alone: snapshots hold the full text of every
// indexed document, run records the questions asked. Directories are created 0700 and files 0600
// whatever the umask (explicit modes on every mkdir and open; umask can only remove bits, so
// these modes hold under umask 000 too). Files written by native code (hnswlib) or copied
// (copyFile keeps the source's mode) are chmod'ed after. Data written by older versions under a
// permissive umask is tightened when it is next opened.

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Bits that let other users read, write or traverse. */
const OPEN_TO_OTHERS = 0o077;

/** Takes the group and other bits off one path (not following a link); false if nothing changed. */
async function tighten(path: string): Promise<boolean> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch {
    return false;
  }
  if (st.isSymbolicLink() || (st.mode & OPEN_TO_OTHERS) === 0) return false;
  await chmod(path, st.mode & 0o700).catch(() => {});
  return true;
}

/** Tightens `dir` and everything below it (links are not followed). */
export async function tightenTree(dir: string): Promise<void> {
  await tighten(dir);
  let names: import('node:fs').Dirent[];
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of names) {
    const p = join(dir, d.name);
    if (d.isDirectory()) await tightenTree(p);
    else if (!d.isSymbolicLink()) await tighten(p);
  }
}

/**
 * On opening the data directory: `rag/` itself, and a store whose directory, store.json or
 * snapshot is open to others (written by an older version) is tightened whole. Costs a few
 * lstat calls per store when everything is already private.
 */
export async function tightenDataDir(home = korttyHome(), storeIds: readonly string[] = []): Promise<void> {
  try {
    if (await tighten(ragDir(home))) await tightenTree(ragDir(home));
    for (const id of storeIds) {
      const loose = await Promise.all(
        [storeDir(id, home), storeConfigPath(id, home), snapshotPath(id, home)].map(isOpenToOthers),
      );
      if (loose.some(Boolean)) await tightenTree(storeDir(id, home));
    }
  } catch {
    // Best effort: a file we cannot chmod (another owner) is reported by `status`, not fatal here.
  }
}

async function isOpenToOthers(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => undefined);
  return st !== undefined && !st.isSymbolicLink() && (st.mode & OPEN_TO_OTHERS) !== 0;
}

/** `$KORTTY_HOME/rag` when other users can read or traverse it, with its mode ("0755"), for `status`. */
export async function exposedDataDirs(home = korttyHome()): Promise<{ path: string; mode: string }[]> {
  const out: { path: string; mode: string }[] = [];
  for (const path of [ragDir(home)]) {
    const st = await lstat(path).catch(() => undefined);
    if (st && (st.mode & OPEN_TO_OTHERS) !== 0)
      out.push({ path, mode: (st.mode & 0o777).toString(8).padStart(4, '0') });
  }
  return out;
}
