import { isKorttyError } from '../errors.js';
import { setLimitedMonitoring } from '../store/engine.js';
import { targetId, type WatchTarget } from './targets.js';

// The "limited monitoring" notes the watcher wants in store.json. Writing one takes the store
// lock, which a running job holds, so wanted notes are kept and retried until written.

export interface LimitedNotes {
  /** Want `reason` (undefined = no note) for this source; `t.limitedMonitoring` is what is written. */
  want(t: WatchTarget, reason: string | undefined): void;
  forget(id: string): void;
  /** Write what can be written now (not into `busyStoreId`); returns the notes written. */
  apply(busyStoreId?: string): Promise<{ id: string; reason: string | undefined }[]>;
}

export function createLimitedNotes(home: string): LimitedNotes {
  const wanted = new Map<string, { storeId: string; sourceId: string; reason: string | undefined }>();
  return {
    want(t, reason) {
      if ((t.limitedMonitoring ?? undefined) === reason) wanted.delete(targetId(t));
      else wanted.set(targetId(t), { storeId: t.storeId, sourceId: t.sourceId, reason });
    },
    forget(id) {
      wanted.delete(id);
    },
    async apply(busyStoreId) {
      const written: { id: string; reason: string | undefined }[] = [];
      for (const [id, w] of [...wanted]) {
        if (w.storeId === busyStoreId) continue;
        try {
          await setLimitedMonitoring(w.storeId, w.sourceId, w.reason, home);
          wanted.delete(id);
          written.push({ id, reason: w.reason });
        } catch (err) {
          if (isKorttyError(err, 'STORE_BUSY')) continue; // retried on the next poll
          wanted.delete(id); // the source or its store is gone
        }
      }
      return written;
    },
  };
}
