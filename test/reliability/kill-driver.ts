// Child process of the kill-point suite: runs the real CLI (`kortty-rag source update STORE --yes`)
// in this process when the parent says "go", so the parent can SIGKILL it at a labelled step
// (KORTTY_KILL_AT, read by src/util/kill-points.ts) or at a random moment of the job.
//
// Environment: KORTTY_HOME; KORTTY_KILL_AT (optional); REL_STORE (store name); REL_WARM=1 loads
// the embedding model before "ready", so the job the parent times starts with the process warm
// (node-llama-cpp takes seconds to start; without this almost every random kill would land in
// its start-up, where nothing is written).
//
// Protocol (IPC): child → {t:'ready'}; parent → 'go'; child → {t:'start'} → … → {t:'done', code}.

import { main } from '../../src/cli/main.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import type { ModelFingerprint } from '../../src/types.js';

const send = (msg: unknown) =>
  new Promise<void>((resolve) => {
    if (!process.send) process.exit(3);
    process.send(msg, undefined, {}, () => resolve());
  });

async function warm(): Promise<void> {
  if (process.env.REL_WARM !== '1') return;
  // From the environment, not store.json: the parent may be resetting the store right now.
  const fingerprint = JSON.parse(process.env.REL_FINGERPRINT!) as ModelFingerprint;
  // Never closed: the lease keeps the model loaded, and the job's own embedder shares it.
  await createDefaultPorts(process.env.KORTTY_HOME!).openEmbedder(fingerprint, fingerprint.modelId);
}

process.once('message', async () => {
  await send({ t: 'start' });
  let code: number;
  try {
    code = await main(['source', 'update', process.env.REL_STORE ?? 'Docs', '--yes']);
  } catch (err) {
    process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    code = 99;
  }
  await send({ t: 'done', code });
  process.exit(code);
});

warm().then(
  () => send({ t: 'ready' }),
  (err) => {
    process.stderr.write(`warm-up failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(4);
  },
);
