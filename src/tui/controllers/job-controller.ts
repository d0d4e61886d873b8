import { isKorttyError } from '../../errors.js';
import type { JobSpec } from '../../store/job-protocol.js';
import type { JobHandle } from '../../store/job-runner.js';
import type { JobSummary, SourceRecord } from '../../store/store-types.js';
import type { Review } from '../../types.js';
import type { Services } from '../services.js';
import type { LoopStats } from '../signal.js';
import type { AppState, Dialog, JobState, Level } from '../state.js';

// One job at a time for the pane (the store lock also refuses overlapping jobs across processes).
// The job runs in a child process; this keeps its handle, turns its events into state, opens the
// review, and ends with a summary, a cancellation notice or an error.

export interface JobController {
  start(spec: JobSpec, job: Omit<JobState, 'phase' | 'cancelling' | 'startedAt' | 'removing'>): Promise<void>;
  confirmReview(ok: boolean): void;
  cancel(): void;
  cancelBlocked(): string | undefined;
  ownPids(): number[];
}

export interface JobHost {
  state: AppState;
  services: Services;
  render(): void;
  /** A repaint for a progress event (rate-limited more than a key's). */
  renderProgress(): void;
  push(d: Dialog): void;
  removeDialogs(pred: (d: Dialog) => boolean): void;
  notify(text: string, level?: Level): void;
  fail(title: string, err: unknown): void;
  refresh(): Promise<void>;
  /** Tracks the child start as an in-flight operation. */
  op<T>(label: string | undefined, fn: () => Promise<T>): Promise<T | undefined>;
  loop?: Pick<LoopStats, 'reset' | 'report' | 'work'>;
}

export function createJobController(h: JobHost): JobController {
  let handle: JobHandle | undefined;
  let cancelEarly = false;
  const s = h.state;

  const labelFor = (
    sourceId: string,
    job: JobState,
    index: number,
  ): { label: string; kind: 'file' | 'folder' } => {
    const store = s.stores.find((x) => x.id === job.storeId);
    const src = store?.sources.find((x) => x.id === sourceId);
    if (src) return { label: src.path, kind: src.kind };
    const a = job.adding[index] ?? job.adding[0];
    return { label: a?.path ?? sourceId, kind: a?.kind ?? 'folder' };
  };

  const onReview = (reviews: Map<string, Review>) => {
    const job = s.job;
    if (!job) return;
    job.phase = 'review';
    h.removeDialogs((d) => d.kind === 'scan');
    h.push({
      kind: 'review',
      reviews: [...reviews].map(([sourceId, review], i) => ({
        sourceId,
        review,
        ...labelFor(sourceId, job, i),
      })),
      index: 0,
      skippedOnly: false,
      selected: 0,
    });
    h.render();
  };

  const finish = async (
    job: JobState,
    outcome: { ok: true; result: Awaited<JobHandle['done']> } | { ok: false; err: unknown },
  ) => {
    handle = undefined;
    s.job = undefined;
    h.loop?.report(`${job.op} ${job.storeName}`);
    h.removeDialogs((d) => d.kind === 'scan' || d.kind === 'review');
    const cancelled = !outcome.ok && isKorttyError(outcome.err, 'JOB_CANCELLED');
    if (!outcome.ok && job.restore) {
      // The beginner flow creates a store together with its first reviewed source: no source, no store.
      await h.services.deleteStore(job.storeId).catch(() => {});
      await h.refresh();
      const why = cancelled
        ? 'the first source was cancelled'
        : `its first source failed: ${(outcome.err as Error)?.message ?? outcome.err}`;
      job.restore.form = { ...job.restore.form, error: `Store "${job.storeName}" was not created: ${why}.` };
      h.push(job.restore);
      h.notify(
        `Store "${job.storeName}" was not created: ${cancelled ? 'cancelled' : 'failed'}; nothing was kept.`,
        'warning',
      );
      h.render();
      return;
    }
    await h.refresh();
    if (cancelled) h.notify('Cancelled: nothing changed; the previous snapshot is unchanged.', 'warning');
    else if (!outcome.ok) h.fail(job.op === 'remove' ? 'Remove failed' : 'Indexing failed', outcome.err);
    else {
      const store = s.stores.find((x) => x.id === job.storeId);
      const ids = Object.keys(outcome.result.statuses);
      const sources = ids.map((id) => {
        const src = store?.sources.find((x) => x.id === id);
        return { path: src?.path ?? id, status: outcome.result.statuses[id]!, reason: src?.statusReason };
      });
      if (job.restore) {
        s.storeSel = Math.max(
          0,
          s.stores.findIndex((x) => x.id === job.storeId),
        );
        s.focus = 'sources';
        s.sourceSel = 0;
      }
      h.push({
        kind: 'summary',
        storeName: job.storeName,
        op: job.op,
        summary: outcome.result.summary,
        sources,
        created: Boolean(job.restore),
      });
      h.notify(doneMessage(job, outcome.result.summary, job.removing ?? []), 'ok');
    }
    h.render();
  };

  return {
    async start(spec, info) {
      cancelEarly = false;
      const job: JobState = {
        ...info,
        // What a removed source was, before store.json forgets it.
        ...(spec.op === 'remove'
          ? {
              removing: (s.stores.find((x) => x.id === info.storeId)?.sources ?? [])
                .filter((x) => info.sourceIds.includes(x.id))
                .map((x) => ({ path: x.path, chunks: x.chunks })),
            }
          : {}),
        phase: spec.op === 'remove' ? 'indexing' : 'checking',
        cancelling: false,
        startedAt: Date.now(),
      };
      s.job = job;
      if (job.phase === 'checking') h.push({ kind: 'scan' });
      h.loop?.reset();
      h.render();
      const started = await h.op(undefined, async () => {
        handle = await h.services.startJob(spec, {
          onProgress: (p) => {
            if (s.job !== job) return;
            job.progress = p;
            h.renderProgress();
          },
          ...(spec.op === 'remove'
            ? {}
            : {
                onReview: (reviews: Map<string, Review>) => {
                  const t0 = performance.now();
                  onReview(reviews);
                  h.loop?.work('review', performance.now() - t0);
                },
              }),
        });
        if (cancelEarly) handle.cancel();
        return handle;
      });
      if (!started) {
        s.job = undefined;
        h.removeDialogs((d) => d.kind === 'scan');
        return;
      }
      started.done.then(
        (result) => finish(job, { ok: true, result }),
        (err) => finish(job, { ok: false, err }),
      );
    },
    confirmReview(ok) {
      const job = s.job;
      if (!job || !handle) return;
      handle.confirm(ok);
      h.removeDialogs((d) => d.kind === 'review');
      if (ok) job.phase = 'indexing';
      else job.cancelling = true;
    },
    cancel() {
      if (!s.job) return;
      s.job.cancelling = true;
      if (handle) handle.cancel();
      else cancelEarly = true;
    },
    cancelBlocked() {
      const j = s.job;
      if (!j) return 'no check or indexing is running';
      if (j.cancelling) return 'already cancelling';
      if (j.progress && (j.progress.state === 'activating' || j.progress.state === 'done'))
        return 'the new snapshot is being activated; the job completes';
      return undefined;
    },
    ownPids: () => (handle?.pid ? [handle.pid] : []),
  };
}

/** The status line after a job: what changed, in words that fit the operation. */
export function doneMessage(
  job: Pick<JobState, 'op' | 'storeName'>,
  sum: JobSummary,
  gone: readonly Pick<SourceRecord, 'path' | 'chunks'>[],
): string {
  const n = (x: number, one: string, many = `${one}s`) =>
    `${x.toLocaleString('en-US')} ${x === 1 ? one : many}`;
  if (job.op === 'remove') {
    const what = gone.length === 1 ? gone[0]!.path : n(gone.length || 1, 'source');
    const chunks = gone.reduce((a, x) => a + x.chunks, 0);
    return sum.removed > 0 || chunks > 0
      ? `Removed ${what} from "${job.storeName}": ${n(sum.removed, 'document')} (${n(chunks, 'chunk')}) left the index; the files are untouched.`
      : `Removed ${what} from "${job.storeName}"; nothing of it was indexed. The files are untouched.`;
  }
  const parts = [
    `${n(sum.indexed, 'document')} indexed`,
    ...(sum.unchanged ? [`${sum.unchanged.toLocaleString('en-US')} unchanged`] : []),
    ...(sum.removed ? [`${sum.removed.toLocaleString('en-US')} removed`] : []),
    ...(sum.skipped ? [`${sum.skipped.toLocaleString('en-US')} skipped`] : []),
    ...(sum.problems ? [n(sum.problems, 'problem')] : []),
  ];
  return `"${job.storeName}": ${parts.join(', ')}.`;
}
