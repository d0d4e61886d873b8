import { isKorttyError } from '../errors.js';
import type { Review } from '../types.js';
import { onInterrupt } from '../util/interrupt.js';
import { addSources, rebuildStore, removeSource, updateSources } from './engine.js';
import type { FromChild, JobSpec, ToChild } from './job-protocol.js';
import type { JobProgress } from './store-types.js';

// Runs one job off the UI process: CPU work (hashing, chunking) and native embedding calls can
// never stall the pane's event loop, and a crash here cannot take the UI down.

const send = (m: FromChild) => process.send?.(m);
// The last message can be large (the reviews travel back with the result): disconnecting before
// it is written would lose it, and the UI would see the job exit without an outcome.
const sendLast = (m: FromChild) =>
  new Promise<void>((resolve) => {
    if (!process.send || !process.connected) resolve();
    else process.send(m, undefined, {}, () => resolve());
  });
const ac = new AbortController();
let pendingConfirm: ((ok: boolean) => void) | undefined;

const cancel = () => {
  ac.abort();
  pendingConfirm?.(false);
};

process.on('message', (m: ToChild) => {
  if (m.type === 'start') void start(m.spec, m.home, m.review);
  else if (m.type === 'confirm') pendingConfirm?.(m.ok);
  else if (m.type === 'cancel') cancel();
});
process.on('disconnect', cancel);
// This process shares the pane's process group, so a terminal's SIGINT or SIGHUP reaches it too.
onInterrupt(cancel);

async function start(spec: JobSpec, home: string, review: boolean) {
  const hooks = {
    signal: ac.signal,
    onProgress: (progress: JobProgress) => send({ type: 'progress', progress }),
    confirm: review
      ? (reviews: ReadonlyMap<string, Review>) =>
          new Promise<boolean>((resolve) => {
            pendingConfirm = resolve;
            send({ type: 'review', reviews: [...reviews.entries()] });
          })
      : undefined,
  };
  try {
    const result = await run(spec, hooks, home);
    await sendLast({ type: 'done', result: { ...result, reviews: [...result.reviews.entries()] } });
  } catch (err) {
    await sendLast({
      type: 'error',
      code: isKorttyError(err) ? err.code : undefined,
      message: (err as Error)?.message ?? String(err),
    });
  } finally {
    process.disconnect?.();
  }
}

function run(spec: JobSpec, hooks: Parameters<typeof addSources>[2], home: string) {
  switch (spec.op) {
    case 'add':
      return addSources(spec.store, spec.inputs, hooks, home);
    case 'update':
      return updateSources(spec.store, spec.sources, { ...hooks, retryFailed: spec.retryFailed }, home);
    case 'remove':
      return removeSource(spec.store, spec.source, hooks, home);
    case 'rebuild':
      return rebuildStore(spec.store, spec.model, hooks, home);
  }
}
