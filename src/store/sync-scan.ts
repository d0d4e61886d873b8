import { createError, isKorttyError } from '../errors.js';
import { dataDirConflict } from './data-dir.js';
import { applyFailureMemory } from './failure-memory.js';
import type { SourceRecord } from './store-types.js';
import type { SourceOutcome, SyncJob } from './sync-job.js';
import { planSource } from './sync-plan.js';

// Phase: scan every target source against the snapshot's own hashes and plan what to do.

/** The sources this sync scans: requested existing ones (not being removed), then new ones. */
export function targetSources(job: SyncJob): SourceRecord[] {
  const { req, cfg, removeIds } = job;
  return [
    ...cfg.sources.filter((s) => req.sourceIds?.includes(s.id) && !removeIds.has(s.id)),
    ...(req.addSources ?? []),
  ];
}

export async function scanSources(job: SyncJob): Promise<SourceOutcome[]> {
  const { req } = job;
  const outcomes: SourceOutcome[] = [];
  job.progress.set({ state: 'scanning', percent: 0 });
  for (const source of targetSources(job)) {
    job.check();
    const previous = new Map(
      job.oldDocs.filter((d) => d.sourceId === source.id).map((d) => [d.path, d.sha256]),
    );
    // Also checked when the source is added; store.json may have been edited by hand since.
    const conflict = dataDirConflict(source.path, job.home);
    if (conflict) {
      outcomes.push({ source, remembered: new Map(), fatal: { status: 'ERROR', reason: conflict.message } });
      continue;
    }
    try {
      const scanned = await req.ports.scan(source, previous, req.signal);
      const { review, remembered } = req.retryFailed
        ? { review: scanned, remembered: new Map() }
        : applyFailureMemory(scanned, source.failed);
      if (review.stoppedBy) {
        outcomes.push({
          source,
          review,
          remembered,
          fatal: { status: 'ERROR', reason: review.stoppedBy.message },
        });
      } else {
        outcomes.push({ source, review, remembered, plan: planSource(previous, review) });
      }
    } catch (err) {
      if (isKorttyError(err, 'SCAN_CANCELLED') || req.signal?.aborted) throw createError('JOB_CANCELLED');
      if (isKorttyError(err, 'SOURCE_NOT_FOUND')) {
        // A deleted root is an incremental deletion: the source keeps no chunks.
        outcomes.push({
          source,
          remembered: new Map(),
          plan: { reuse: [], embed: [], remove: [...previous.keys()].sort(), skipped: 0 },
          fatal: { status: 'MISSING', reason: (err as Error).message },
        });
      } else if (isKorttyError(err)) {
        outcomes.push({ source, remembered: new Map(), fatal: { status: 'ERROR', reason: err.message } });
      } else {
        throw err;
      }
    }
  }
  return outcomes;
}
