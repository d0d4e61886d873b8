// Pure: when the watcher runs which sync. Changes are coalesced per store (one job updates all of
// a store's changed sources under one lock). A store is due once its sources have been quiet for
// `quietMs` — our own "the writes have finished" check: a file being written keeps producing
// events — or once changes have kept coming for `maxDelayMs`, so a constantly written file cannot
// postpone a sync forever. One job runs at a time. A busy store (someone else holds its lock) is
// retried after `busyRetryMs`; a failed job backs off exponentially up to `maxFailRetryMs`.
// Changes arriving during a job are kept for the next one, so the last change is never lost.

export interface ScheduleConfig {
  quietMs: number;
  maxDelayMs: number;
  busyRetryMs: number;
  failRetryMs: number;
  maxFailRetryMs: number;
  /** More events than this for one source within `overflowWindowMs` counts as an event overflow. */
  overflowEvents: number;
  overflowWindowMs: number;
}

export const DEFAULT_SCHEDULE: Readonly<ScheduleConfig> = Object.freeze({
  quietMs: 750,
  maxDelayMs: 30_000,
  busyRetryMs: 2_000,
  failRetryMs: 5_000,
  maxFailRetryMs: 300_000,
  overflowEvents: 20_000,
  overflowWindowMs: 2_000,
});

interface Pending {
  sources: Set<string>;
  firstAt: number;
  lastAt: number;
  /** A rescan or a retry: due without waiting for quiet. */
  forced: boolean;
  notBefore: number;
}

interface Rate {
  windowStart: number;
  count: number;
  reported: boolean;
}

export interface ScheduleState {
  pending: Map<string, Pending>;
  running: SyncJob | null;
  failures: Map<string, number>;
  rates: Map<string, Rate>;
}

export interface SyncJob {
  storeId: string;
  sourceIds: string[];
}

export type JobOutcome = 'ok' | 'busy' | 'failed' | 'cancelled';

export function createScheduleState(): ScheduleState {
  return { pending: new Map(), running: null, failures: new Map(), rates: new Map() };
}

function pendingFor(state: ScheduleState, storeId: string, now: number): Pending {
  let p = state.pending.get(storeId);
  if (!p) {
    p = { sources: new Set(), firstAt: now, lastAt: now, forced: false, notBefore: 0 };
    state.pending.set(storeId, p);
  }
  return p;
}

/** A file event. Returns true exactly once per window when the source's event rate overflows. */
export function noteChange(
  state: ScheduleState,
  storeId: string,
  sourceId: string,
  now: number,
  cfg: ScheduleConfig,
): boolean {
  const p = pendingFor(state, storeId, now);
  p.sources.add(sourceId);
  p.lastAt = now;
  const key = `${storeId}/${sourceId}`;
  let r = state.rates.get(key);
  if (!r || now - r.windowStart >= cfg.overflowWindowMs) {
    r = { windowStart: now, count: 0, reported: false };
    state.rates.set(key, r);
  }
  r.count++;
  if (r.count > cfg.overflowEvents && !r.reported) {
    r.reported = true;
    return true;
  }
  return false;
}

/** Whether a source's current window is over the overflow threshold (still flooding). */
export function isFlooding(
  state: ScheduleState,
  storeId: string,
  sourceId: string,
  now: number,
  cfg: ScheduleConfig,
): boolean {
  const r = state.rates.get(`${storeId}/${sourceId}`);
  return r !== undefined && now - r.windowStart < cfg.overflowWindowMs && r.count > cfg.overflowEvents;
}

/** A rescan (start-up, periodic reconcile, root reappeared, rules changed): due without quiet. */
export function noteRescan(
  state: ScheduleState,
  storeId: string,
  sourceIds: readonly string[],
  now: number,
): void {
  if (sourceIds.length === 0) return;
  const p = pendingFor(state, storeId, now);
  for (const id of sourceIds) p.sources.add(id);
  p.forced = true;
}

/** Forget a source that is no longer watched (removed, disabled, switched to manual). */
export function dropSource(state: ScheduleState, storeId: string, sourceId: string): void {
  const p = state.pending.get(storeId);
  p?.sources.delete(sourceId);
  if (p && p.sources.size === 0) state.pending.delete(storeId);
  state.rates.delete(`${storeId}/${sourceId}`);
}

function isDue(p: Pending, now: number, cfg: ScheduleConfig): boolean {
  if (now < p.notBefore) return false;
  return p.forced || now - p.lastAt >= cfg.quietMs || now - p.firstAt >= cfg.maxDelayMs;
}

/** The job to start now, if any: the due store that has waited longest. */
export function nextJob(state: ScheduleState, now: number, cfg: ScheduleConfig): SyncJob | null {
  if (state.running) return null;
  let best: [string, Pending] | null = null;
  for (const entry of state.pending) {
    if (!isDue(entry[1], now, cfg)) continue;
    if (!best || entry[1].firstAt < best[1].firstAt) best = entry;
  }
  return best ? { storeId: best[0], sourceIds: [...best[1].sources].sort() } : null;
}

export function jobStarted(state: ScheduleState, job: SyncJob): void {
  state.pending.delete(job.storeId);
  state.running = job;
}

export function jobFinished(
  state: ScheduleState,
  outcome: JobOutcome,
  now: number,
  cfg: ScheduleConfig,
): void {
  const job = state.running;
  state.running = null;
  if (!job) return;
  if (outcome === 'ok') {
    state.failures.delete(job.storeId);
    return;
  }
  // Not done: the sources go back, merged with whatever changed meanwhile.
  const p = pendingFor(state, job.storeId, now);
  for (const id of job.sourceIds) p.sources.add(id);
  p.forced = true;
  if (outcome === 'busy') p.notBefore = now + cfg.busyRetryMs;
  if (outcome === 'failed') {
    const n = (state.failures.get(job.storeId) ?? 0) + 1;
    state.failures.set(job.storeId, n);
    p.notBefore = now + Math.min(cfg.maxFailRetryMs, cfg.failRetryMs * 2 ** (n - 1));
  }
}

/** When the next pending store becomes due (null: nothing pending or a job is running). */
export function nextWakeAt(state: ScheduleState, cfg: ScheduleConfig): number | null {
  if (state.running) return null;
  let at: number | null = null;
  for (const p of state.pending.values()) {
    const due = Math.max(
      p.notBefore,
      p.forced ? 0 : Math.min(p.lastAt + cfg.quietMs, p.firstAt + cfg.maxDelayMs),
    );
    at = at === null ? due : Math.min(at, due);
  }
  return at;
}
