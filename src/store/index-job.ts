import { createError, isKorttyError, KorttyError } from '../errors.js';
import { openSnapshot, type SnapshotStep, writeSnapshot } from '../index/snapshot-io.js';
import type { SnapshotChunk, SnapshotDoc } from '../index/snapshot-types.js';
import { chunkId } from '../index/snapshot-types.js';
import type { FsEnv } from '../storage/fs-env.js';
import { korttyHome, snapshotPath, storeLockPath } from '../storage/paths.js';
import type { Review } from '../types.js';
import { type KillLabel, killPoint } from '../util/kill-points.js';
import { dataDirConflict } from './data-dir.js';
import { acquireLock } from './lock.js';
import type { EmbedPort, PipelinePorts } from './ports.js';
import { loadStore, saveStore } from './store-config.js';
import type { JobProgress, JobSummary, SourceRecord, StoreConfig } from './store-types.js';
import { planSource, type SourcePlan } from './sync-plan.js';

// One sync = scan → (review) → extract/chunk → embed → write snapshot → activate → store.json.
// Everything before the rename of index.hnsw is cancellable and leaves the old snapshot and the
// source table untouched; progress is recorded (store.json) only after the durable commit.

export const EMBED_BATCH = 32;

/** Snapshot-writer steps that carry a kill-point label (reliability suite). */
const SNAPSHOT_KILL_LABELS: Partial<Record<SnapshotStep, KillLabel>> = {
  written: 'snapshot-written',
  fsynced: 'snapshot-fsynced',
  verified: 'snapshot-verified',
  renamed: 'snapshot-renamed',
  'dir-synced': 'dir-synced',
};
const MAX_PROBLEMS_KEPT = 50;

export interface SyncRequest {
  storeId: string;
  home?: string;
  /** Existing sources to update (default: none unless addSources/removeSourceIds given). */
  sourceIds?: string[];
  /** New sources: written to store.json only after their first successful activation. */
  addSources?: SourceRecord[];
  removeSourceIds?: string[];
  /** Review step; returning false cancels before any work. Absent = confirmed (watcher, --yes). */
  confirm?: (reviews: ReadonlyMap<string, Review>) => Promise<boolean>;
  signal?: AbortSignal;
  onProgress?: (p: JobProgress) => void;
  ports: PipelinePorts;
  lockStaleMs?: number;
  /** Explicit rebuild: ignore the old snapshot, embed everything with this configuration. */
  rebuild?: { modelId: string; fingerprint: StoreConfig['fingerprint'] };
  /** Durable I/O of the snapshot and store.json (default: the real file system; tests inject faults). */
  env?: FsEnv;
}

export interface SyncResult {
  summary: JobSummary;
  reviews: Map<string, Review>;
  /** Per-source outcome status. */
  statuses: Record<string, SourceRecord['status']>;
  wroteSnapshot: boolean;
}

interface SourceOutcome {
  source: SourceRecord;
  review?: Review;
  plan?: SourcePlan;
  fatal?: { status: 'MISSING' | 'ERROR'; reason: string };
}

export async function runSync(req: SyncRequest): Promise<SyncResult> {
  const home = req.home ?? korttyHome();
  const cfg0 = await loadStore(req.storeId, home);
  const lock = await acquireLock(storeLockPath(cfg0.id, home), cfg0.name, {
    job: 'sync',
    staleMs: req.lockStaleMs,
  });
  let embedder: EmbedPort | undefined;
  try {
    const stored = await loadStore(req.storeId, home); // re-read under the lock
    const cfg = req.rebuild
      ? { ...stored, modelId: req.rebuild.modelId, fingerprint: req.rebuild.fingerprint }
      : stored;
    const snapFile = snapshotPath(cfg.id, home);
    // A rebuild replaces whatever is there; otherwise another embedding configuration is refused.
    const snap = req.rebuild
      ? null
      : await openSnapshot(snapFile, { expectFingerprint: cfg.fingerprint, env: req.env });
    const oldDocs = snap ? snap.data.docs : [];
    snap?.close();
    const progress = createProgress(cfg.id, req.onProgress);
    const check = () => {
      if (req.signal?.aborted) throw createError('JOB_CANCELLED');
    };

    // 1. Scan every target source against the snapshot's own hashes.
    const removeIds = new Set(req.removeSourceIds ?? []);
    const targets = [
      ...cfg.sources.filter((s) => req.sourceIds?.includes(s.id) && !removeIds.has(s.id)),
      ...(req.addSources ?? []),
    ];
    const outcomes: SourceOutcome[] = [];
    progress.set({ state: 'scanning', percent: 0 });
    for (const source of targets) {
      check();
      const previous = new Map(
        oldDocs.filter((d) => d.sourceId === source.id).map((d) => [d.path, d.sha256]),
      );
      // Also checked when the source is added; store.json may have been edited by hand since.
      const conflict = dataDirConflict(source.path, home);
      if (conflict) {
        outcomes.push({ source, fatal: { status: 'ERROR', reason: conflict.message } });
        continue;
      }
      try {
        const review = await req.ports.scan(source, previous, req.signal);
        if (review.stoppedBy) {
          outcomes.push({ source, review, fatal: { status: 'ERROR', reason: review.stoppedBy.message } });
        } else {
          outcomes.push({ source, review, plan: planSource(previous, review) });
        }
      } catch (err) {
        if (isKorttyError(err, 'SCAN_CANCELLED') || req.signal?.aborted) throw createError('JOB_CANCELLED');
        if (isKorttyError(err, 'SOURCE_NOT_FOUND')) {
          // A deleted root is an incremental deletion: the source keeps no chunks.
          outcomes.push({
            source,
            plan: { reuse: [], embed: [], remove: [...previous.keys()].sort(), skipped: 0 },
            fatal: { status: 'MISSING', reason: (err as Error).message },
          });
        } else if (isKorttyError(err)) {
          outcomes.push({ source, fatal: { status: 'ERROR', reason: err.message } });
        } else {
          throw err;
        }
      }
    }
    killPoint('after-scan');
    const reviews = new Map(outcomes.filter((o) => o.review).map((o) => [o.source.id, o.review!]));
    if (req.confirm && !(await req.confirm(reviews))) throw createError('JOB_CANCELLED');
    check();

    // 2. Extract and chunk new/changed documents.
    const oldBySource = groupBy(oldDocs, (d) => d.sourceId);
    const toEmbed = outcomes.flatMap((o) => (o.plan ? o.plan.embed.map((d) => ({ o, d })) : []));
    const built = new Map<string, SnapshotDoc>(); // key sourceId\0path
    const problems = new Map<string, SourceRecord['problemList']>();
    const pending: { key: string; chunk: SnapshotChunk }[] = [];
    let docsDone = 0;
    progress.set({ state: 'extracting', documentsTotal: toEmbed.length });
    for (const { o, d } of toEmbed) {
      check();
      try {
        const extracted = await req.ports.extract(d.path, d.format, req.signal, d.sha256, d.scanned);
        const chunks = req.ports.chunk(extracted, cfg.chunk);
        // HTML/.docx line numbers count extracted text, not the file: a `file:line` citation
        // would point at the wrong place, so such chunks carry no line range.
        const keepLines = !(extracted.kind === 'lines' && extracted.sourceLines === false);
        const doc: SnapshotDoc = {
          sourceId: o.source.id,
          path: d.path,
          sha256: d.sha256,
          size: d.size,
          format: d.format,
          chunks: [],
        };
        for (const c of chunks) {
          const chunk: SnapshotChunk = {
            id: chunkId(cfg.id, o.source.id, d.path, c.index, c.text),
            index: c.index,
            text: c.text,
            tokens: c.tokens,
            lineStart: keepLines ? c.lineStart : undefined,
            lineEnd: keepLines ? c.lineEnd : undefined,
            pageStart: c.pageStart,
            pageEnd: c.pageEnd,
            vector: new Float32Array(0),
          };
          doc.chunks.push(chunk);
          pending.push({ key: `${o.source.id}\0${d.path}`, chunk });
        }
        built.set(`${o.source.id}\0${d.path}`, doc);
      } catch (err) {
        if (req.signal?.aborted || isKorttyError(err, 'EXTRACT_CANCELLED'))
          throw createError('JOB_CANCELLED');
        // Whatever one document does to extraction or chunking is that document's problem: it
        // is skipped with the reason, and the job goes on with the others.
        const list = problems.get(o.source.id) ?? [];
        list.push(documentProblem(d.path, err));
        problems.set(o.source.id, list);
      }
      docsDone++;
      progress.set({
        documents: docsDone,
        chunks: pending.length,
        percent: 5 + Math.round((25 * docsDone) / Math.max(1, toEmbed.length)),
      });
    }

    // 3. Embed in batches of 32 (only new/changed chunks; unchanged documents reuse their vectors).
    let embedded = 0;
    if (pending.length > 0) {
      embedder = await req.ports.openEmbedder(cfg.fingerprint, cfg.modelId);
      if (embedder.dimension !== cfg.fingerprint.dimension) {
        throw createError('MODEL_DIMENSION_MISMATCH', {
          model: cfg.modelId,
          got: embedder.dimension,
          want: cfg.fingerprint.dimension,
          store: cfg.name,
        });
      }
      progress.set({ state: 'embedding' });
      for (let i = 0; i < pending.length; i += EMBED_BATCH) {
        check();
        const batch = pending.slice(i, i + EMBED_BATCH);
        const vectors = await embedder.embedDocuments(
          batch.map((p) => p.chunk.text),
          { signal: req.signal },
        );
        batch.forEach((p, j) => {
          p.chunk.vector = vectors[j]!;
        });
        embedded += batch.length;
        if (i === 0) killPoint('mid-embedding');
        progress.set({ percent: 30 + Math.round((60 * embedded) / pending.length) });
      }
    }

    // 4. Assemble the replacement document list in a stable order.
    const nextDocs: SnapshotDoc[] = [];
    const outcomeById = new Map(outcomes.map((o) => [o.source.id, o]));
    const liveSources = [...cfg.sources.filter((s) => !removeIds.has(s.id)), ...(req.addSources ?? [])];
    let removedDocs = 0;
    for (const s of liveSources) {
      const old = oldBySource.get(s.id) ?? [];
      const o = outcomeById.get(s.id);
      if (!o || o.fatal?.status === 'ERROR') {
        nextDocs.push(...old); // untouched, or a fatal scan error keeps known-good vectors
        continue;
      }
      const reuse = new Set(o.plan!.reuse);
      for (const d of old) if (reuse.has(d.path)) nextDocs.push(d);
      for (const d of o.plan!.embed) {
        const doc = built.get(`${s.id}\0${d.path}`);
        if (doc) nextDocs.push(doc);
      }
      removedDocs += o.plan!.remove.length;
    }
    for (const id of removeIds) removedDocs += (oldBySource.get(id) ?? []).length;
    nextDocs.sort((a, b) => cmp(a.sourceId, b.sourceId) || cmp(a.path, b.path));

    const changed = embedded > 0 || toEmbed.length > 0 || removedDocs > 0 || !sameDocs(oldDocs, nextDocs);
    check();
    let wroteSnapshot = false;
    if (changed || !snap) {
      progress.set({ state: 'writing', percent: 92 });
      await lock.assertHeld();
      await writeSnapshot(
        snapFile,
        { fingerprint: cfg.fingerprint, dimension: cfg.fingerprint.dimension, docs: nextDocs },
        {
          env: req.env,
          signal: req.signal,
          checkpoint: async (step) => {
            const label = SNAPSHOT_KILL_LABELS[step];
            if (label) killPoint(label);
            if (step === 'verified') {
              // Last moment to cancel or to notice a lost lock: the rename comes next.
              check();
              await lock.assertHeld();
            }
          },
        },
      );
      wroteSnapshot = true;
    }

    // 5. Record the outcome (only after the durable commit).
    progress.set({ state: 'activating', percent: 98 });
    const now = new Date().toISOString();
    const summary: JobSummary = {
      indexed: built.size,
      unchanged: outcomes.reduce((n, o) => n + (o.plan?.reuse.length ?? 0), 0),
      removed: removedDocs,
      skipped:
        outcomes.reduce((n, o) => n + (o.plan?.skipped ?? 0), 0) +
        [...problems.values()].reduce((n, l) => n + l.length, 0),
      chunksEmbedded: embedded,
      chunksReused: nextDocs
        .filter((d) => !built.has(`${d.sourceId}\0${d.path}`))
        .reduce((n, d) => n + d.chunks.length, 0),
      problems: 0,
    };
    const statuses: Record<string, SourceRecord['status']> = {};
    const nextSources: SourceRecord[] = [];
    for (const s of liveSources) {
      const o = outcomeById.get(s.id);
      if (!o) {
        nextSources.push(s);
        continue;
      }
      const docs = nextDocs.filter((d) => d.sourceId === s.id);
      const skippedRows = o.review?.rows.filter((r) => r.status === 'skipped') ?? [];
      const problemList = [
        ...(o.fatal ? [{ path: s.path, reason: o.fatal.status, explanation: o.fatal.reason }] : []),
        ...skippedRows.map((r) => ({
          path: r.path,
          reason: r.reason ?? 'skipped',
          explanation: r.explanation,
        })),
        ...(problems.get(s.id) ?? []),
      ];
      const status: SourceRecord['status'] = o.fatal ? o.fatal.status : s.enabled ? 'READY' : 'DISABLED';
      statuses[s.id] = status;
      summary.problems += problemList.length;
      nextSources.push({
        ...s,
        status,
        statusReason: o.fatal?.reason,
        files: o.fatal?.status === 'ERROR' ? s.files : docs.length,
        chunks: docs.reduce((n, d) => n + d.chunks.length, 0),
        problems: problemList.length,
        problemList: problemList.slice(0, MAX_PROBLEMS_KEPT),
        lastIndexedAt: o.fatal ? s.lastIndexedAt : now,
        hashes: Object.fromEntries(docs.map((d) => [d.path, d.sha256])),
      });
    }
    await lock.assertHeld();
    await saveStore({ ...cfg, sources: nextSources }, home, req.env);
    killPoint('store-updated');
    progress.set({ state: 'done', percent: 100 });
    return { summary, reviews, statuses, wroteSnapshot };
  } catch (err) {
    if (req.signal?.aborted && !(err instanceof KorttyError && err.code === 'JOB_CANCELLED')) {
      throw createError('JOB_CANCELLED', {}, err);
    }
    throw err;
  } finally {
    await embedder?.close().catch(() => {});
    await lock.release();
  }
}

function documentProblem(path: string, err: unknown): SourceRecord['problemList'][number] {
  if (isKorttyError(err, 'EXTRACT_FAILED'))
    return { path, reason: String(err.details.skipReason ?? 'extract-failed'), explanation: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return {
    path,
    reason: isKorttyError(err, 'CHUNK_FAILED') ? 'chunk-failed' : 'extract-failed',
    explanation: message.includes(path) ? message : `${path}: ${message}`,
  };
}

function createProgress(storeId: string, cb?: (p: JobProgress) => void) {
  const p: JobProgress = {
    storeId,
    state: 'scanning',
    documents: 0,
    documentsTotal: 0,
    chunks: 0,
    problems: 0,
    percent: 0,
  };
  return {
    set(patch: Partial<JobProgress>) {
      Object.assign(p, patch);
      cb?.({ ...p });
    },
  };
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const l = m.get(k);
    if (l) l.push(it);
    else m.set(k, [it]);
  }
  return m;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sameDocs(a: readonly SnapshotDoc[], b: readonly SnapshotDoc[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.sourceId !== b[i]!.sourceId || a[i]!.path !== b[i]!.path || a[i]!.sha256 !== b[i]!.sha256)
      return false;
  }
  return true;
}

export type { StoreConfig };
