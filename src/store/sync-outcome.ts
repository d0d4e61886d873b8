import type { SnapshotDoc } from '../index/snapshot-types.js';
import { isProblem } from '../scan/skip-kinds.js';
import { nextFailures } from './failure-memory.js';
import type { JobSummary, SourceRecord, StoreConfig } from './store-types.js';
import type { BuiltDocs, Embedding } from './sync-build.js';
import type { SourceOutcome, SyncRequest } from './sync-job.js';
import { docKey } from './sync-job.js';

// Phases (pure): the replacement document list, then the source table and summary to record
// once that list is durably active.

const MAX_PROBLEMS_KEPT = 50;

export interface NextDocs {
  /** Sorted by (sourceId, path), as the snapshot stores them. */
  docs: SnapshotDoc[];
  /** Sources of the store after this sync (removed ones gone, added ones last). */
  liveSources: SourceRecord[];
  removedDocs: number;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function assembleDocs(
  cfg: StoreConfig,
  req: Pick<SyncRequest, 'addSources' | 'removeSourceIds'>,
  oldDocs: readonly SnapshotDoc[],
  outcomes: readonly SourceOutcome[],
  built: BuiltDocs,
): NextDocs {
  const removeIds = new Set(req.removeSourceIds ?? []);
  const oldBySource = new Map<string, SnapshotDoc[]>();
  for (const d of oldDocs) oldBySource.set(d.sourceId, [...(oldBySource.get(d.sourceId) ?? []), d]);
  const outcomeById = new Map(outcomes.map((o) => [o.source.id, o]));
  const liveSources = [...cfg.sources.filter((s) => !removeIds.has(s.id)), ...(req.addSources ?? [])];
  const docs: SnapshotDoc[] = [];
  let removedDocs = 0;
  for (const s of liveSources) {
    const old = oldBySource.get(s.id) ?? [];
    const o = outcomeById.get(s.id);
    if (!o?.plan || o.fatal?.status === 'ERROR') {
      docs.push(...old); // untouched, or a fatal scan error keeps known-good vectors
      continue;
    }
    const reuse = new Set(o.plan.reuse);
    for (const d of old) if (reuse.has(d.path)) docs.push(d);
    for (const d of o.plan.embed) {
      const doc = built.docs.get(docKey(s.id, d.path));
      if (doc) docs.push(doc);
    }
    removedDocs += o.plan.remove.length;
  }
  for (const id of removeIds) removedDocs += (oldBySource.get(id) ?? []).length;
  docs.sort((a, b) => cmp(a.sourceId, b.sourceId) || cmp(a.path, b.path));
  return { docs, liveSources, removedDocs };
}

/**
 * Whether the replacement differs from the active snapshot (else nothing is written: a sync that
 * only learns that a file fails records that in store.json, not in a rewritten snapshot).
 */
export function docsChanged(oldDocs: readonly SnapshotDoc[], next: NextDocs, built: BuiltDocs): boolean {
  if (built.docs.size > 0 || next.removedDocs > 0 || oldDocs.length !== next.docs.length) return true;
  return oldDocs.some((a, i) => {
    const b = next.docs[i] as SnapshotDoc;
    return a.sourceId !== b.sourceId || a.path !== b.path || a.sha256 !== b.sha256;
  });
}

export interface Outcome {
  summary: JobSummary;
  statuses: Record<string, SourceRecord['status']>;
  sources: SourceRecord[];
}

export function recordOutcome(
  outcomes: readonly SourceOutcome[],
  built: BuiltDocs,
  embedding: Embedding,
  next: NextDocs,
  now: string,
): Outcome {
  const problemsOf = (id: string) => built.problems.get(id) ?? [];
  const summary: JobSummary = {
    indexed: built.docs.size,
    unchanged: outcomes.reduce((n, o) => n + (o.plan?.reuse.length ?? 0), 0),
    removed: next.removedDocs,
    skipped: 0,
    chunksEmbedded: embedding.embedded,
    chunksReused: 0,
    problems: 0,
  };
  const outcomeById = new Map(outcomes.map((o) => [o.source.id, o]));
  // Only this job's sources: the other sources' chunks were not part of it.
  summary.chunksReused =
    next.docs.filter((d) => outcomeById.has(d.sourceId)).reduce((n, d) => n + d.chunks.length, 0) -
    embedding.embedded;
  const statuses: Record<string, SourceRecord['status']> = {};
  const sources = next.liveSources.map((s): SourceRecord => {
    const o = outcomeById.get(s.id);
    if (!o) return s;
    const docs = next.docs.filter((d) => d.sourceId === s.id);
    const chunks = docs.reduce((n, d) => n + d.chunks.length, 0);
    const skippedRows = (o.review?.rows.filter((r) => r.status === 'skipped') ?? []).map((r) => ({
      path: r.path,
      reason: r.reason ?? 'skipped',
      explanation: r.explanation,
    }));
    const problemList = [
      ...(o.fatal ? [{ path: s.path, reason: o.fatal.status, explanation: o.fatal.reason }] : []),
      ...skippedRows.filter((r) => isProblem(r.reason)),
      ...problemsOf(s.id).map(({ path, reason, explanation }) => ({ path, reason, explanation })),
    ];
    const skippedList = skippedRows.filter((r) => !isProblem(r.reason));
    summary.skipped += skippedList.length;
    const status: SourceRecord['status'] = o.fatal ? o.fatal.status : s.enabled ? 'READY' : 'DISABLED';
    statuses[s.id] = status;
    summary.problems += problemList.length;
    const failed =
      o.fatal?.status === 'ERROR'
        ? s.failed
        : o.fatal
          ? undefined
          : nextFailures(o.remembered, problemsOf(s.id), now);
    const embedded = embedding.embeddedBySource.get(s.id) ?? 0;
    const record: SourceRecord = {
      ...s,
      status,
      statusReason: o.fatal?.reason,
      files: o.fatal?.status === 'ERROR' ? s.files : docs.length,
      chunks,
      problems: problemList.length,
      problemList: problemList.slice(0, MAX_PROBLEMS_KEPT),
      skipped: skippedList.length,
      skippedList: skippedList.slice(0, MAX_PROBLEMS_KEPT),
      lastIndexedAt: o.fatal ? s.lastIndexedAt : now,
      hashes: Object.fromEntries(docs.map((d) => [d.path, d.sha256])),
      lastChunksEmbedded: o.fatal?.status === 'ERROR' ? s.lastChunksEmbedded : embedded,
      lastChunksReused: o.fatal?.status === 'ERROR' ? s.lastChunksReused : chunks - embedded,
    };
    if (failed) record.failed = failed;
    else delete record.failed;
    return record;
  });
  return { summary, statuses, sources };
}
