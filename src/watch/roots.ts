import { lstat } from 'node:fs/promises';

// Source roots come and go (unmounted disks, deleted and restored folders). The watcher polls
// each root: a root that disappears is rescanned (the sync records MISSING and drops its chunks),
// one that appears again — or was replaced between two polls — is watched afresh and rescanned.

export type RootState = { state: 'present'; ino: string } | { state: 'absent' } | { state: 'unknown' };

/** A symbolic link or the wrong kind of entry counts as absent: the scanner refuses it too. */
export async function probeRoot(path: string, kind: 'file' | 'folder'): Promise<RootState> {
  try {
    const st = await lstat(path);
    const ok = kind === 'folder' ? st.isDirectory() : st.isFile();
    return ok ? { state: 'present', ino: `${st.dev}:${st.ino}` } : { state: 'absent' };
  } catch {
    return { state: 'absent' };
  }
}

/** Pure: what a change between two polls means. */
export function rootChange(before: RootState, now: RootState): 'missing' | 'back' | null {
  if (before.state === 'unknown') return null;
  if (before.state === 'present' && now.state === 'absent') return 'missing';
  if (now.state === 'present' && (before.state === 'absent' || before.ino !== now.ino)) return 'back';
  return null;
}
