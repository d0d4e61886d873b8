import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { readModelInfo } from '../../src/embed/model-info.js';
import { addLocalModel } from '../../src/embed/model-registry.js';
import type { KorttyError } from '../../src/errors.js';
import { hostileGguf } from '../helpers/hostile-gguf.js';
import { runCli } from '../helpers/run-cli.js';
import { freshHome, tempDir } from '../helpers/store-env.js';
import { deadline } from '../helpers/wait.js';

// A GGUF header's counts are checked against the bytes left in the file before any array is read:
// a tiny file claiming billions of vocabulary entries is refused at once, naming the field, at
// `models add` and before every load (node-llama-cpp's own reader would trust the count).

test('a 177-byte GGUF claiming 2^62 vocabulary entries is refused at models add, naming the field', async (t) => {
  const home = await freshHome();
  const dir = await tempDir('kortty-gguf-');
  const path = join(dir, 'hostile.gguf');
  const bytes = hostileGguf(2n ** 62n);
  t.is(bytes.length, 177);
  await writeFile(path, bytes);
  const t0 = performance.now();
  const err = await deadline(
    t.throwsAsync<KorttyError>(addLocalModel(path, { home })),
    10_000,
    'models add on a hostile GGUF',
  );
  t.log(`refused in ${(performance.now() - t0).toFixed(0)} ms`);
  t.is(err?.code, 'GGUF_INVALID');
  t.regex(
    err!.message,
    /key tokenizer\.ggml\.tokens: array length 4611686018427387904 cannot fit in the remaining 63 bytes/,
  );
  // The same through the CLI, in its own process.
  const run = await runCli(['models', 'add', path], { env: { KORTTY_HOME: home }, timeoutMs: 20_000 });
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, /hostile\.gguf: not a valid GGUF file \(key tokenizer\.ggml\.tokens: array length/);
  t.log(`CLI: exit after ${run.ms.toFixed(0)} ms, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
});

test('a count below 2^53 that the rest of the file cannot hold is refused too, before every load', async (t) => {
  await freshHome();
  const dir = await tempDir('kortty-gguf-');
  const path = join(dir, 'big-count.gguf');
  await writeFile(path, hostileGguf(2n ** 40n, 4096));
  const err = await deadline(t.throwsAsync<KorttyError>(readModelInfo(path)), 10_000, 'readModelInfo');
  t.is(err?.code, 'GGUF_INVALID');
  t.regex(err!.message, /array length 1099511627776 cannot fit in the remaining 3982 bytes of the file/);
  // A count that fits the file is read as before (the array's two strings, then the padding fails
  // elsewhere: no tensors).
  await writeFile(path, hostileGguf(2n, 4096));
  const ok = await t.throwsAsync<KorttyError>(readModelInfo(path));
  t.is(ok?.code, 'MODEL_INVALID');
  t.regex(ok!.message, /no tensors/);
});
