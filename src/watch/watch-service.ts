import { createError, isKorttyError } from '../errors.js';
import { korttyHome, watcherLockPath } from '../storage/paths.js';
import { dataDirConflict } from '../store/data-dir.js';
import { acquireLock, readOwner, type StoreLock } from '../store/lock.js';
import { listStores } from '../store/store-config.js';
import type { WatchEvent } from './events.js';
import { detectNetworkFs } from './fs-probe.js';
import { createLimitedNotes } from './limited-notes.js';
import { isOverflowReason, networkReason, overflowReason, watcherErrorReason } from './reasons.js';
import { probeRoot, type RootState, rootChange } from './roots.js';
import * as sched from './schedule.js';
import { type SourceWatch, startSourceWatcher } from './source-watcher.js';
import { readStamps, type Stamps, sameStamps } from './store-stamps.js';
import { runWatchSync } from './sync-runner.js';
import { diffTargets, targetId, type WatchTarget, watchTargets } from './targets.js';

// `kortty-rag watch`: keeps automatic sources in sync. File events are hints that make a source
// dirty; the schedule (schedule.ts) turns dirty sources into incremental syncs through the engine
// (updateSources: the same job, lock and activation as "Update now", without the review step).
// The truth is the rescan: at start-up, every `reconcileMs`, and whenever a root comes back.
// Every `pollMs` the service re-reads changed store.json files (new, removed or edited sources)
// and checks that each root still exists. A source that cannot be watched reliably is marked
// "limited monitoring" with the reason, and is still rescanned. One watcher per $KORTTY_HOME.

export type { WatchEvent } from './events.js';

export interface WatchOptions {
  home?: string;
  reconcileMs?: number;
  pollMs?: number;
  schedule?: Partial<sched.ScheduleConfig>;
  log?: (e: WatchEvent) => void;
  /** Network-filesystem probe (injectable for tests). */
  detectNetworkFs?: (path: string) => Promise<string | undefined>;
}

export interface WatchService {
  stop(): Promise<void>;
  /** Resolves once stopped. */
  readonly stopped: Promise<void>;
}

export const DEFAULT_RECONCILE_MS = 300_000;
export const DEFAULT_POLL_MS = 1_000;

interface Entry {
  target: WatchTarget;
  watch?: SourceWatch;
  root: RootState;
  /** Why this source is not (fully) watched right now; undefined = watched normally. */
  limited?: string;
  /** Bumped by every close, so a start that raced with a close or another start gives up. */
  gen: number;
}

export async function startWatchService(opts: WatchOptions = {}): Promise<WatchService> {
  const home = opts.home ?? korttyHome();
  const cfg: sched.ScheduleConfig = { ...sched.DEFAULT_SCHEDULE, ...opts.schedule };
  const log = opts.log ?? (() => {});
  const probeFs = opts.detectNetworkFs ?? detectNetworkFs;

  let lock: StoreLock;
  try {
    lock = await acquireLock(watcherLockPath(home), 'watcher', { job: 'watch' });
  } catch (err) {
    if (!isKorttyError(err, 'STORE_BUSY')) throw err;
    const owner = await readOwner(watcherLockPath(home));
    throw createError('WATCHER_RUNNING', { home, pid: owner?.pid });
  }

  const state = sched.createScheduleState();
  const entries = new Map<string, Entry>();
  const notes = createLimitedNotes(home);
  let stamps: Stamps = new Map();
  let stopping = false;
  let running: { job: sched.SyncJob; abort: AbortController; done: Promise<void> } | null = null;
  let wakeTimer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | null = null;

  const who = (t: WatchTarget) => ({ store: t.storeName, source: t.sourceId, path: t.path });
  const rescan = (e: Entry) => sched.noteRescan(state, e.target.storeId, [e.target.sourceId], Date.now());

  const setLimited = (e: Entry, reason: string | undefined) => {
    if (e.limited === reason) return;
    e.limited = reason;
    log(
      reason ? { type: 'limited', ...who(e.target), reason } : { type: 'limited-cleared', ...who(e.target) },
    );
    notes.want(e.target, reason);
  };
  const applyNotes = async () => {
    for (const w of await notes.apply(running?.job.storeId)) {
      const e = entries.get(w.id);
      if (e) e.target = { ...e.target, limitedMonitoring: w.reason };
    }
  };

  // --- file watchers ------------------------------------------------------------------------
  const closeWatch = async (e: Entry) => {
    e.gen++;
    const w = e.watch;
    e.watch = undefined;
    await w?.close().catch(() => {});
  };

  // Watch first, then scan: a change made before the watcher is ready produces no event, so the
  // rescan that settles the source is scheduled once the watcher is ready (or at once when the
  // source cannot be watched). A scan started earlier could miss a file written in between.
  const startWatch = async (e: Entry) => {
    await closeWatch(e);
    const gen = e.gen;
    if (stopping) return;
    if (e.root.state !== 'present') return rescan(e); // the sync records MISSING
    // Every sync refuses such a source (and records why); watching it would turn the store's own
    // writes under the data directory into changes and syncs without end.
    const refused = dataDirConflict(e.target.path, home);
    if (refused) {
      log({ type: 'refused', ...who(e.target), reason: refused.message });
      return rescan(e);
    }
    const fsName = await probeFs(e.target.path);
    if (gen !== e.gen || stopping) return;
    if (fsName) {
      setLimited(e, networkReason(fsName));
      return rescan(e);
    }
    try {
      e.watch = watchSource(e);
    } catch (err) {
      setLimited(e, watcherErrorReason(err));
      rescan(e);
    }
  };

  const watchSource = (e: Entry): SourceWatch => {
    const handle: SourceWatch = startSourceWatcher(e.target, {
      onChange(kind) {
        if (e.watch !== handle) return;
        if (kind === 'rules') {
          // New .gitignore rules may un-ignore directories the watcher pruned: watch afresh.
          log({ type: 'rules-changed', ...who(e.target) });
          void startWatch(e).then(schedulePump);
        } else if (
          sched.noteChange(state, e.target.storeId, e.target.sourceId, Date.now(), cfg) &&
          !e.limited
        ) {
          setLimited(e, overflowReason(cfg.overflowEvents, cfg.overflowWindowMs));
        }
        schedulePump();
      },
      onError(err) {
        if (e.watch !== handle) return;
        void closeWatch(e);
        setLimited(e, watcherErrorReason(err));
        rescan(e); // events may have been lost before the error
        schedulePump();
      },
      onReady() {
        if (e.watch !== handle) return;
        log({ type: 'watching', ...who(e.target) });
        rescan(e);
        schedulePump();
        // Watching works (again): lift a note left by an earlier failure or a previous run.
        if (!isOverflowReason(e.limited)) setLimited(e, undefined);
        if (e.target.limitedMonitoring && !e.limited) notes.want(e.target, undefined);
      },
    });
    return handle;
  };

  // --- roots and store.json -----------------------------------------------------------------
  const checkRoot = async (e: Entry) => {
    const now = await probeRoot(e.target.path, e.target.kind);
    const change = rootChange(e.root, now);
    e.root = now;
    if (change === 'missing') {
      log({ type: 'root-missing', ...who(e.target) });
      await closeWatch(e);
      rescan(e); // the sync records MISSING and drops the source's chunks
    } else if (change === 'back') {
      log({ type: 'root-back', ...who(e.target) });
      await startWatch(e);
    }
  };

  const reload = async (force = false) => {
    const next = await readStamps(home);
    if (!force && sameStamps(next, stamps)) return;
    stamps = next;
    const stores = await listStores(home);
    const diff = diffTargets(
      [...entries.values()].map((e) => e.target),
      watchTargets(stores),
    );
    for (const old of diff.removed) {
      const e = entries.get(targetId(old))!;
      entries.delete(targetId(old));
      await closeWatch(e);
      sched.dropSource(state, old.storeId, old.sourceId);
      log({ type: 'unwatched', ...who(old) });
      // A source switched to manual or disabled is not monitored at all: drop its note.
      const still = stores.find((s) => s.id === old.storeId)?.sources.find((s) => s.id === old.sourceId);
      if (still?.limitedMonitoring)
        notes.want({ ...old, limitedMonitoring: still.limitedMonitoring }, undefined);
      else notes.forget(targetId(old));
    }
    for (const t of diff.kept) {
      const e = entries.get(targetId(t))!;
      e.target = t;
      if ((t.limitedMonitoring ?? undefined) !== e.limited) notes.want(t, e.limited);
    }
    for (const t of [...diff.added, ...diff.changed]) {
      let e = entries.get(targetId(t));
      if (e) e.target = t;
      else {
        e = { target: t, root: { state: 'unknown' }, gen: 0, limited: t.limitedMonitoring };
        entries.set(targetId(t), e);
      }
      await checkRoot(e);
      // New, re-enabled or re-configured: the rescan after the watch starts catches up.
      await startWatch(e);
    }
  };

  // --- jobs ---------------------------------------------------------------------------------
  const schedulePump = () => {
    if (stopping) return;
    clearTimeout(wakeTimer);
    wakeTimer = setTimeout(pump, 0);
  };

  function pump() {
    if (stopping || running) return;
    const now = Date.now();
    const job = sched.nextJob(state, now, cfg);
    if (!job) {
      const at = sched.nextWakeAt(state, cfg);
      clearTimeout(wakeTimer);
      if (at !== null) wakeTimer = setTimeout(pump, Math.max(0, at - now));
      return;
    }
    sched.jobStarted(state, job);
    const live = [...entries.values()].filter(
      (e) => e.target.storeId === job.storeId && job.sourceIds.includes(e.target.sourceId),
    );
    if (live.length === 0) {
      sched.jobFinished(state, 'ok', now, cfg);
      return schedulePump();
    }
    const store = { id: job.storeId, name: live[0]!.target.storeName };
    const ids = live.map((e) => e.target.sourceId);
    const abort = new AbortController();
    log({ type: 'sync-start', store: store.name, sources: ids });
    const done = runWatchSync(store, ids, abort.signal, home).then(async (r) => {
      if (r.event) log(r.event);
      if (r.reload) await reload(true).catch(() => {});
      running = null;
      sched.jobFinished(state, r.outcome, Date.now(), cfg);
      void applyNotes();
      schedulePump();
    });
    running = { job, abort, done };
  }

  /** An overflow note is lifted once the flood is over and its changes have been synced. */
  const liftOverflow = () => {
    const now = Date.now();
    for (const e of entries.values()) {
      const { storeId, sourceId } = e.target;
      if (!isOverflowReason(e.limited) || sched.isFlooding(state, storeId, sourceId, now, cfg)) continue;
      if (state.pending.has(storeId) || running?.job.storeId === storeId) continue;
      setLimited(e, undefined);
    }
  };

  // --- periodic work ------------------------------------------------------------------------
  const tick = () => {
    if (stopping || ticking) return;
    ticking = (async () => {
      await reload();
      for (const e of entries.values()) await checkRoot(e);
      liftOverflow();
      await applyNotes();
    })()
      .catch(() => {})
      .finally(() => {
        ticking = null;
        schedulePump();
      });
  };

  const reconcile = () => {
    if (stopping) return;
    log({ type: 'reconcile', sources: entries.size });
    for (const e of entries.values()) {
      rescan(e);
      // Retry watchers that failed (the limit may have been raised); network mounts stay limited.
      const failed = !e.watch && e.limited && !e.limited.startsWith('network filesystem');
      if (failed && e.root.state === 'present') void startWatch(e);
    }
    schedulePump();
  };

  await reload(true);
  log({ type: 'start', pid: process.pid, sources: entries.size });
  const pollTimer = setInterval(tick, opts.pollMs ?? DEFAULT_POLL_MS);
  const reconcileTimer = setInterval(reconcile, opts.reconcileMs ?? DEFAULT_RECONCILE_MS);
  schedulePump();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => {
    resolveStopped = r;
  });
  const stop = async () => {
    if (stopping) return stopped;
    stopping = true;
    clearInterval(pollTimer);
    clearInterval(reconcileTimer);
    clearTimeout(wakeTimer);
    // Cancel the running job: before activation it leaves the old snapshot; after, it completes.
    running?.abort.abort();
    await running?.done.catch(() => {});
    await ticking?.catch(() => {});
    for (const e of entries.values()) {
      await closeWatch(e);
      // Nobody monitors these sources any more; a stale "limited" note would mislead.
      if (e.limited || e.target.limitedMonitoring) notes.want(e.target, undefined);
    }
    await applyNotes().catch(() => {});
    await lock.release();
    log({ type: 'stop' });
    resolveStopped();
    return stopped;
  };

  return { stop, stopped };
}
