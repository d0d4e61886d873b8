import { isKorttyError } from '../errors.js';
import { updateSources } from '../store/engine.js';
import type { WatchEvent } from './events.js';
import type { JobOutcome } from './schedule.js';

// One watcher-triggered sync: "Update now" for the given sources, without the review step.

export interface SyncRun {
  outcome: JobOutcome;
  event?: WatchEvent;
  /** The store or a source vanished meanwhile: re-read store.json. */
  reload?: boolean;
}

export async function runWatchSync(
  store: { id: string; name: string },
  sourceIds: string[],
  signal: AbortSignal,
  home: string,
): Promise<SyncRun> {
  try {
    const res = await updateSources(store.id, sourceIds, { signal }, home);
    return {
      outcome: 'ok',
      event: { type: 'sync-done', store: store.name, summary: res.summary, statuses: res.statuses },
    };
  } catch (err) {
    return classifySyncError(err, store.name, signal.aborted);
  }
}

/** Pure: what a failed sync means for the schedule. */
export function classifySyncError(err: unknown, store: string, stopping: boolean): SyncRun {
  const reason = (err as Error)?.message ?? String(err);
  if (isKorttyError(err, 'STORE_BUSY'))
    return { outcome: 'busy', event: { type: 'sync-busy', store, reason } };
  if (isKorttyError(err, 'JOB_CANCELLED') && stopping) {
    return { outcome: 'cancelled', event: { type: 'sync-cancelled', store, reason } };
  }
  if (isKorttyError(err, 'SOURCE_UNKNOWN') || isKorttyError(err, 'STORE_NOT_FOUND'))
    return { outcome: 'ok', reload: true };
  return { outcome: 'failed', event: { type: 'sync-failed', store, reason } };
}
