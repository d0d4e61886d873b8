import {
  addLocalModel,
  ensureStarterModel,
  installModel,
  registerModelFile,
  STARTER_MODEL_ID,
} from '../app/model-install.js';
import { getInstalled } from '../app/models.js';
import { isKorttyError } from '../errors.js';
import type { ModelTaskFromChild, ModelTaskSpec } from './model-task.js';

// Model work off the pane's process: downloads, hashing gigabytes and generating the lexical
// starter (~10 s the first time) never stall the UI's event loop.

const send = (m: ModelTaskFromChild) => process.send?.(m);
// The outcome must be written before the channel closes.
const sendLast = (m: ModelTaskFromChild) =>
  new Promise<void>((resolve) => {
    if (!process.send || !process.connected) resolve();
    else process.send(m, undefined, {}, () => resolve());
  });
const ac = new AbortController();

process.on('message', (m: { type: 'start'; spec: ModelTaskSpec; home: string } | { type: 'cancel' }) => {
  if (m.type === 'start') void start(m.spec, m.home);
  else {
    ac.abort();
    // Generation and hashing have no cancel points; their writes are atomic, so stopping is safe.
    setTimeout(() => process.exit(130), 200).unref();
  }
});
process.on('disconnect', () => ac.abort());

async function start(spec: ModelTaskSpec, home: string) {
  try {
    const record = await run(spec, home);
    await sendLast({ type: 'done', id: record.id });
  } catch (err) {
    await sendLast({
      type: 'error',
      code: isKorttyError(err) ? err.code : undefined,
      message: ac.signal.aborted ? 'cancelled' : ((err as Error)?.message ?? String(err)),
      cancelled: ac.signal.aborted || isKorttyError(err, 'DOWNLOAD_CANCELLED'),
    });
  } finally {
    process.disconnect?.();
  }
}

async function run(spec: ModelTaskSpec, home: string) {
  switch (spec.op) {
    case 'starter': {
      // Generated on this computer (no network); ensureStarterModel records it in the registry.
      const { path, sha256 } = await ensureStarterModel(home);
      return (
        (await getInstalled(STARTER_MODEL_ID, home)) ??
        registerModelFile(path, { id: STARTER_MODEL_ID, source: 'generated', sha256, home })
      );
    }
    case 'install': {
      const res = await installModel(spec.id, {
        home,
        signal: ac.signal,
        onProgress: (progress) => send({ type: 'progress', progress }),
      });
      return res.record;
    }
    case 'local':
      return addLocalModel(spec.path, { home });
  }
}
