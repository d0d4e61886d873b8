// Child process for cancel.test.ts. As the CLI does, it installs its SIGINT handling first, then
// loads the real embedding model (node-llama-cpp, whose dependencies install signal-exit's SIGINT
// listener after ours), then receives SIGINT: with the CLI's interrupt (`cli`) or with a one-shot
// `process.once` listener (`once`).
//   node interrupt-child.js cli|once STORE_ID      (KORTTY_HOME set)
import { createInterrupt } from '../../src/cli/interrupt.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { loadStore } from '../../src/store/store-config.js';

const [mode, storeId] = process.argv.slice(2);
let signal: AbortSignal;
if (mode === 'once') {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  signal = ac.signal;
} else {
  signal = createInterrupt().signal;
}
const cfg = await loadStore(storeId!);
const embedder = await createDefaultPorts().openEmbedder(cfg.fingerprint, cfg.modelId);
await embedder.embedDocuments(['the model is loaded']);
process.kill(process.pid, 'SIGINT');
const deadline = Date.now() + 20_000;
while (!signal.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
await embedder.close();
process.stdout.write(`survived aborted=${signal.aborted}\n`);
process.exit(0);
