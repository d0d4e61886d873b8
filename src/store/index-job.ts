import { createError, isKorttyError, KorttyError } from '../errors.js';
import { openSnapshot, type SnapshotStep, writeSnapshot } from '../index/snapshot-io.js';
import type { SnapshotDoc } from '../index/snapshot-types.js';
import { acquireLock } from '../storage/lock.js';
import { korttyHome, snapshotPath, storeLockPath } from '../storage/paths.js';
import { recordStoreHealth } from '../storage/store-health.js';
import type { Review } from '../types.js';
import { type KillLabel, killPoint } from '../util/kill-points.js';
import { loadStore, saveStore } from './store-config.js';
import type { StoreConfig } from './store-types.js';
import { embedChunks, extractAndChunk } from './sync-build.js';
import { cancelCheck, createProgress, type SyncJob, type SyncRequest, type SyncResult } from './sync-job.js';
import { assembleDocs, docsChanged, type Outcome, recordOutcome } from './sync-outcome.js';
import { scanSources } from './sync-scan.js';

// One sync = open (load + lock + old snapshot) → scan and plan → review → extract and chunk →
// embed (new chunk texts only) → write the snapshot → activate → record in store.json.
// Everything before the rename of index.hnsw is cancellable and leaves the old snapshot and the
// source table untouched; progress is recorded (store.json) only after the durable commit.

export type { SyncRequest, SyncResult };

/** Snapshot-writer steps that carry a kill-point label (reliability suite). */
const SNAPSHOT_KILL_LABELS: Partial<Record<SnapshotStep, KillLabel>> = {
  written: 'snapshot-written',
  fsynced: 'snapshot-fsynced',
  verified: 'snapshot-verified',
  renamed: 'snapshot-renamed',
  'dir-synced': 'dir-synced',
};

export async function runSync(req: SyncRequest): Promise<SyncResult> {
  const job = await openJob(req);
  try {
    const outcomes = await scanSources(job);
    killPoint('after-scan');
    const reviews = new Map<string, Review>();
    for (const o of outcomes) if (o.review) reviews.set(o.source.id, o.review);
    if (req.confirm && !(await req.confirm(reviews))) throw createError('JOB_CANCELLED');
    job.check();

    const built = await extractAndChunk(job, outcomes);
    const embedding = await embedChunks(job, built);
    const next = assembleDocs(job.cfg, req, job.oldDocs, outcomes, built);
    job.check();
    const wroteSnapshot =
      docsChanged(job.oldDocs, next, built) || !job.hadSnapshot ? await activate(job, next.docs) : false;

    job.progress.set({ state: 'activating', percent: 98 });
    const outcome = recordOutcome(outcomes, built, embedding, next, new Date().toISOString());
    await saveOutcome(job, outcome);
    job.progress.set({ state: 'done', percent: 100 });
    return { summary: outcome.summary, reviews, statuses: outcome.statuses, wroteSnapshot };
  } catch (err) {
    if (req.signal?.aborted && !(err instanceof KorttyError && err.code === 'JOB_CANCELLED')) {
      throw createError('JOB_CANCELLED', {}, err);
    }
    throw err;
  } finally {
    await job.embedder?.close().catch(() => {});
    await job.lock.release();
  }
}

/** Phase: take the store's lock, re-read store.json under it and load the active snapshot. */
async function openJob(req: SyncRequest): Promise<SyncJob> {
  const home = req.home ?? korttyHome();
  const unlocked = await loadStore(req.storeId, home);
  const lock = await acquireLock(storeLockPath(unlocked.id, home), unlocked.name, {
    job: 'sync',
    staleMs: req.lockStaleMs,
  });
  try {
    const stored = await loadStore(req.storeId, home);
    const cfg: StoreConfig = req.rebuild
      ? { ...stored, modelId: req.rebuild.modelId, fingerprint: req.rebuild.fingerprint }
      : stored;
    const snapFile = snapshotPath(cfg.id, home);
    // A rebuild replaces whatever is there; otherwise another embedding configuration is refused.
    const snap = req.rebuild ? null : await openForUpdate(cfg, snapFile, home, req.env);
    const old = snap ? { fingerprint: snap.data.fingerprint, docs: snap.data.docs } : undefined;
    snap?.close();
    return {
      req,
      home,
      cfg,
      lock,
      snapFile,
      old,
      oldDocs: old?.docs ?? [],
      hadSnapshot: snap !== null,
      removeIds: new Set(req.removeSourceIds ?? []),
      progress: createProgress(cfg.id, req.onProgress),
      check: cancelCheck(req.signal),
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** Phase: write, verify and activate the replacement snapshot (the commit point). */
async function activate(job: SyncJob, docs: SnapshotDoc[]): Promise<true> {
  const { cfg, lock } = job;
  job.progress.set({ state: 'writing', percent: 92 });
  await lock.assertHeld();
  await writeSnapshot(
    job.snapFile,
    { fingerprint: cfg.fingerprint, dimension: cfg.fingerprint.dimension, docs },
    {
      env: job.req.env,
      signal: job.req.signal,
      checkpoint: async (step) => {
        const label = SNAPSHOT_KILL_LABELS[step];
        if (label) killPoint(label);
        if (step === 'verified') {
          // Last moment to cancel or to notice a lost lock: the rename comes next.
          job.check();
          await lock.assertHeld();
        }
      },
    },
  );
  return true;
}

/** Phase: record the source table once the snapshot it describes is durably active. */
async function saveOutcome(job: SyncJob, outcome: Outcome): Promise<void> {
  await job.lock.assertHeld();
  await saveStore({ ...job.cfg, sources: outcome.sources }, job.home, job.req.env);
  killPoint('store-updated');
}

/**
 * The active snapshot an update builds on. A damaged one cannot be built on, and trying again
 * would fail the same way: the error says to rebuild, and the store shows as DAMAGED meanwhile.
 */
async function openForUpdate(cfg: StoreConfig, snapFile: string, home: string, env: SyncRequest['env']) {
  try {
    return await openSnapshot(snapFile, { expectFingerprint: cfg.fingerprint, env });
  } catch (err) {
    if (!isKorttyError(err, 'SNAPSHOT_CORRUPT')) throw err;
    const fix = `kortty-rag store rebuild ${cfg.name}`;
    const reason = String(err.details.reason);
    await recordStoreHealth(
      home,
      [{ storeId: cfg.id, storeName: cfg.name, kind: 'damaged', reason: err.message, fix }],
      [],
    ).catch(() => {});
    throw createError('SNAPSHOT_NEEDS_REBUILD', { path: snapFile, reason, store: cfg.name }, err);
  }
}
