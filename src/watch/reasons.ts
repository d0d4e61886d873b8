// Pure: the words a source's "limited monitoring" status carries. Each says what failed and what
// the watcher does instead, so the user knows the source is still kept in sync (more slowly).

const FALLBACK = 'relying on periodic rescans';

export function watcherErrorReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code === 'ENOSPC') {
    return `inotify watch limit reached (ENOSPC; raise fs.inotify.max_user_watches): ${FALLBACK}`;
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return `too many open files or inotify instances (${code}; raise fs.inotify.max_user_instances or ulimit -n): ${FALLBACK}`;
  }
  const msg = String(e?.message ?? err)
    .split('\n')[0]!
    .slice(0, 200);
  return `watcher error${code ? ` (${code})` : ''}: ${msg}; ${FALLBACK}`;
}

export function networkReason(fsName: string): string {
  return `network filesystem (${fsName}): changes made elsewhere are not reported; ${FALLBACK}`;
}

export function overflowReason(events: number, windowMs: number): string {
  return `event overflow (more than ${events} changes within ${windowMs / 1000} s; events may be dropped): ${FALLBACK}`;
}

/** Reasons the watcher may lift by itself once the condition is gone. */
export function isOverflowReason(reason: string | undefined): boolean {
  return reason?.startsWith('event overflow') ?? false;
}
