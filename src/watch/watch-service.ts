import { createError, isKorttyError } from '../errors.js';
import { acquireLock, readOwner, type StoreLock } from '../storage/lock.js';
import { korttyHome, watcherLockPath } from '../storage/paths.js';
import { dataDirConflict } from '../store/data-dir.js';
import { listStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import { MAX_TIMER_MS, rangeProblem } from '../util/ranges.js';
import type { WatchEvent } from './events.js';
import { detectNetworkFs } from './fs-probe.js';
import { createLimitedNotes, type LimitedNotes } from './limited-notes.js';
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

/** The daemon's state, shared by the phases below (one watcher per $KORTTY_HOME). */
interface Daemon {
  home: string;
  cfg: sched.ScheduleConfig;
  log: (e: WatchEvent) => void;
  probeFs: (path: string) => Promise<string | undefined>;
  state: sched.ScheduleState;
  entries: Map<string, Entry>;
  notes: LimitedNotes;
  stamps: Stamps;
  stopping: boolean;
  running: { job: sched.SyncJob; abort: AbortController; done: Promise<void> } | null;
  wakeTimer: NodeJS.Timeout | undefined;
  ticking: Promise<void> | null;
}

/** The watcher's settings and their ranges: a timer past Node's limit would fire every 1 ms. */
const SETTING_RANGES = {
  reconcileMs: { min: 1, max: MAX_TIMER_MS, unit: 'ms' },
  pollMs: { min: 1, max: MAX_TIMER_MS, unit: 'ms' },
  quietMs: { min: 0, max: MAX_TIMER_MS, unit: 'ms' },
  maxDelayMs: { min: 0, max: MAX_TIMER_MS, unit: 'ms' },
} as const;

function checkSettings(opts: WatchOptions): void {
  const given: Record<keyof typeof SETTING_RANGES, number | undefined> = {
    reconcileMs: opts.reconcileMs,
    pollMs: opts.pollMs,
    quietMs: opts.schedule?.quietMs,
    maxDelayMs: opts.schedule?.maxDelayMs,
  };
  for (const [name, v] of Object.entries(given)) {
    const why =
      v === undefined ? undefined : rangeProblem(String(v), SETTING_RANGES[name as keyof typeof given]);
    if (why) throw createError('INVALID_ARGUMENT', { name, reason: `${why}, got ${v}` });
  }
}

export async function startWatchService(opts: WatchOptions = {}): Promise<WatchService> {
  checkSettings(opts);
  const home = opts.home ?? korttyHome();
  const lock = await takeWatcherLock(home);
  const d: Daemon = {
    home,
    cfg: { ...sched.DEFAULT_SCHEDULE, ...opts.schedule },
    log: opts.log ?? (() => {}),
    probeFs: opts.detectNetworkFs ?? detectNetworkFs,
    state: sched.createScheduleState(),
    entries: new Map(),
    notes: createLimitedNotes(home),
    stamps: new Map(),
    stopping: false,
    running: null,
    wakeTimer: undefined,
    ticking: null,
  };
  await reload(d, true);
  d.log({ type: 'start', pid: process.pid, sources: d.entries.size });
  const timers = [
    setInterval(() => tick(d), opts.pollMs ?? DEFAULT_POLL_MS),
    setInterval(() => reconcile(d), opts.reconcileMs ?? DEFAULT_RECONCILE_MS),
  ];
  schedulePump(d);

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => {
    resolveStopped = r;
  });
  const stop = async () => {
    if (d.stopping) return stopped;
    d.stopping = true;
    for (const t of timers) clearInterval(t);
    await shutDown(d, lock);
    resolveStopped();
    return stopped;
  };
  return { stop, stopped };
}

async function takeWatcherLock(home: string): Promise<StoreLock> {
  try {
    return await acquireLock(watcherLockPath(home), 'watcher', { job: 'watch' });
  } catch (err) {
    if (!isKorttyError(err, 'STORE_BUSY')) throw err;
    const owner = await readOwner(watcherLockPath(home));
    throw createError('WATCHER_RUNNING', { home, pid: owner?.pid });
  }
}

async function shutDown(d: Daemon, lock: StoreLock): Promise<void> {
  clearTimeout(d.wakeTimer);
  // Cancel the running job: before activation it leaves the old snapshot; after, it completes.
  d.running?.abort.abort();
  await d.running?.done.catch(() => {});
  await d.ticking?.catch(() => {});
  for (const e of d.entries.values()) {
    await closeWatch(e);
    // Nobody monitors these sources any more; a stale "limited" note would mislead.
    if (e.limited || e.target.limitedMonitoring) d.notes.want(e.target, undefined);
  }
  await applyNotes(d).catch(() => {});
  await lock.release();
  d.log({ type: 'stop' });
}

const who = (t: WatchTarget) => ({ store: t.storeName, source: t.sourceId, path: t.path });

function rescan(d: Daemon, e: Entry): void {
  sched.noteRescan(d.state, e.target.storeId, [e.target.sourceId], Date.now());
}

// --- limited monitoring ---------------------------------------------------------------------
function setLimited(d: Daemon, e: Entry, reason: string | undefined): void {
  if (e.limited === reason) return;
  e.limited = reason;
  d.log(
    reason ? { type: 'limited', ...who(e.target), reason } : { type: 'limited-cleared', ...who(e.target) },
  );
  d.notes.want(e.target, reason);
}

async function applyNotes(d: Daemon): Promise<void> {
  for (const w of await d.notes.apply(d.running?.job.storeId)) {
    const e = d.entries.get(w.id);
    if (e) e.target = { ...e.target, limitedMonitoring: w.reason };
  }
}

/** An overflow note is lifted once the flood is over and its changes have been synced. */
function liftOverflow(d: Daemon): void {
  const now = Date.now();
  for (const e of d.entries.values()) {
    const { storeId, sourceId } = e.target;
    if (!isOverflowReason(e.limited) || sched.isFlooding(d.state, storeId, sourceId, now, d.cfg)) continue;
    if (d.state.pending.has(storeId) || d.running?.job.storeId === storeId) continue;
    setLimited(d, e, undefined);
  }
}

// --- file watchers --------------------------------------------------------------------------
async function closeWatch(e: Entry): Promise<void> {
  e.gen++;
  const w = e.watch;
  e.watch = undefined;
  await w?.close().catch(() => {});
}

// Watch first, then scan: a change made before the watcher is ready produces no event, so the
// rescan that settles the source is scheduled once the watcher is ready (or at once when the
// source cannot be watched). A scan started earlier could miss a file written in between.
async function startWatch(d: Daemon, e: Entry): Promise<void> {
  await closeWatch(e);
  const gen = e.gen;
  if (d.stopping) return;
  if (e.root.state !== 'present') return rescan(d, e); // the sync records MISSING
  // Every sync refuses such a source (and records why); watching it would turn the store's own
  // writes under the data directory into changes and syncs without end.
  const refused = dataDirConflict(e.target.path, d.home);
  if (refused) {
    d.log({ type: 'refused', ...who(e.target), reason: refused.message });
    return rescan(d, e);
  }
  const fsName = await d.probeFs(e.target.path);
  if (gen !== e.gen || d.stopping) return;
  if (fsName) {
    setLimited(d, e, networkReason(fsName));
    return rescan(d, e);
  }
  try {
    e.watch = watchSource(d, e);
  } catch (err) {
    setLimited(d, e, watcherErrorReason(err));
    rescan(d, e);
  }
}

function watchSource(d: Daemon, e: Entry): SourceWatch {
  const handle: SourceWatch = startSourceWatcher(e.target, {
    onChange(kind) {
      if (e.watch !== handle) return;
      if (kind === 'rules') {
        // New .gitignore rules may un-ignore directories the watcher pruned: watch afresh.
        d.log({ type: 'rules-changed', ...who(e.target) });
        void startWatch(d, e).then(() => schedulePump(d));
      } else if (
        sched.noteChange(d.state, e.target.storeId, e.target.sourceId, Date.now(), d.cfg) &&
        !e.limited
      ) {
        setLimited(d, e, overflowReason(d.cfg.overflowEvents, d.cfg.overflowWindowMs));
      }
      schedulePump(d);
    },
    onError(err) {
      if (e.watch !== handle) return;
      void closeWatch(e);
      setLimited(d, e, watcherErrorReason(err));
      rescan(d, e); // events may have been lost before the error
      schedulePump(d);
    },
    onReady() {
      if (e.watch !== handle) return;
      d.log({ type: 'watching', ...who(e.target) });
      rescan(d, e);
      schedulePump(d);
      // Watching works (again): lift a note left by an earlier failure or a previous run.
      if (!isOverflowReason(e.limited)) setLimited(d, e, undefined);
      if (e.target.limitedMonitoring && !e.limited) d.notes.want(e.target, undefined);
    },
  });
  return handle;
}

// --- roots and store.json -------------------------------------------------------------------
async function checkRoot(d: Daemon, e: Entry): Promise<void> {
  const now = await probeRoot(e.target.path, e.target.kind);
  const change = rootChange(e.root, now);
  e.root = now;
  if (change === 'missing') {
    d.log({ type: 'root-missing', ...who(e.target) });
    await closeWatch(e);
    rescan(d, e); // the sync records MISSING and drops the source's chunks
  } else if (change === 'back') {
    d.log({ type: 'root-back', ...who(e.target) });
    await startWatch(d, e);
  }
}

/** Re-reads store.json files that changed (all of them with `force`) and follows the diff. */
async function reload(d: Daemon, force = false): Promise<void> {
  const next = await readStamps(d.home);
  if (!force && sameStamps(next, d.stamps)) return;
  d.stamps = next;
  const stores = await listStores(d.home);
  const diff = diffTargets(
    [...d.entries.values()].map((e) => e.target),
    watchTargets(stores),
  );
  for (const old of diff.removed) await unwatchTarget(d, old, stores);
  for (const t of diff.kept) {
    const e = d.entries.get(targetId(t))!;
    e.target = t;
    if ((t.limitedMonitoring ?? undefined) !== e.limited) d.notes.want(t, e.limited);
  }
  for (const t of [...diff.added, ...diff.changed]) await watchTarget(d, t);
}

async function unwatchTarget(d: Daemon, old: WatchTarget, stores: readonly StoreConfig[]): Promise<void> {
  const e = d.entries.get(targetId(old))!;
  d.entries.delete(targetId(old));
  await closeWatch(e);
  sched.dropSource(d.state, old.storeId, old.sourceId);
  d.log({ type: 'unwatched', ...who(old) });
  // A source switched to manual or disabled is not monitored at all: drop its note.
  const still = stores.find((s) => s.id === old.storeId)?.sources.find((s) => s.id === old.sourceId);
  if (still?.limitedMonitoring)
    d.notes.want({ ...old, limitedMonitoring: still.limitedMonitoring }, undefined);
  else d.notes.forget(targetId(old));
}

async function watchTarget(d: Daemon, t: WatchTarget): Promise<void> {
  let e = d.entries.get(targetId(t));
  if (e) e.target = t;
  else {
    e = { target: t, root: { state: 'unknown' }, gen: 0, limited: t.limitedMonitoring };
    d.entries.set(targetId(t), e);
  }
  await checkRoot(d, e);
  // New, re-enabled or re-configured: the rescan after the watch starts catches up.
  await startWatch(d, e);
}

// --- jobs -----------------------------------------------------------------------------------
function schedulePump(d: Daemon): void {
  if (d.stopping) return;
  clearTimeout(d.wakeTimer);
  d.wakeTimer = setTimeout(() => pump(d), 0);
}

/** Starts the next due sync, or sleeps until one is due. */
function pump(d: Daemon): void {
  if (d.stopping || d.running) return;
  const now = Date.now();
  const job = sched.nextJob(d.state, now, d.cfg);
  if (!job) {
    const at = sched.nextWakeAt(d.state, d.cfg);
    clearTimeout(d.wakeTimer);
    if (at !== null) d.wakeTimer = setTimeout(() => pump(d), Math.max(0, at - now));
    return;
  }
  sched.jobStarted(d.state, job);
  const live = [...d.entries.values()].filter(
    (e) => e.target.storeId === job.storeId && job.sourceIds.includes(e.target.sourceId),
  );
  if (live.length > 0) runJob(d, job, live);
  else {
    sched.jobFinished(d.state, 'ok', now, d.cfg);
    schedulePump(d);
  }
}

function runJob(d: Daemon, job: sched.SyncJob, live: Entry[]): void {
  const store = { id: job.storeId, name: live[0]!.target.storeName };
  const ids = live.map((e) => e.target.sourceId);
  const abort = new AbortController();
  d.log({ type: 'sync-start', store: store.name, sources: ids });
  const done = runWatchSync(store, ids, abort.signal, d.home).then(async (r) => {
    if (r.event) d.log(r.event);
    if (r.reload) await reload(d, true).catch(() => {});
    d.running = null;
    sched.jobFinished(d.state, r.outcome, Date.now(), d.cfg);
    void applyNotes(d);
    schedulePump(d);
  });
  d.running = { job, abort, done };
}

// --- periodic work --------------------------------------------------------------------------
/** Every pollMs: changed store.json files, roots that went or came back, lifted notes. */
function tick(d: Daemon): void {
  if (d.stopping || d.ticking) return;
  d.ticking = (async () => {
    await reload(d);
    for (const e of d.entries.values()) await checkRoot(d, e);
    liftOverflow(d);
    await applyNotes(d);
  })()
    .catch(() => {})
    .finally(() => {
      d.ticking = null;
      schedulePump(d);
    });
}

/** Every reconcileMs: the rescan of every source, the truth behind file events. */
function reconcile(d: Daemon): void {
  if (d.stopping) return;
  d.log({ type: 'reconcile', sources: d.entries.size });
  for (const e of d.entries.values()) {
    rescan(d, e);
    // Retry watchers that failed (the limit may have been raised); network mounts stay limited.
    const failed = !e.watch && e.limited && !e.limited.startsWith('network filesystem');
    if (failed && e.root.state === 'present') void startWatch(d, e);
  }
  schedulePump(d);
}
