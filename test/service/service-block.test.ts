import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { readServiceConfig } from '../../src/service/service-config.js';
import { readServiceSettings } from '../../src/service/service-config-file.js';
import { serviceBlockSchema } from '../../src/storage/config-json.js';
import { configPath } from '../../src/storage/paths.js';
import { acceptServiceBlock, SERVICE_RANGES } from '../../src/storage/service-block.js';
import { freshHome } from '../helpers/store-env.js';

// The warm path takes a plainly valid "service" block without zod (storage/service-block.ts):
// it must accept exactly what the schema accepts, give the same settings as the full reader, leave
// every doubtful block to the schema's message, and really not load zod for a valid one.

const { idleMinutes, answerTimeoutMs } = SERVICE_RANGES;
const BLOCKS: unknown[] = [
  {},
  { enabled: false },
  { idleMinutes: 2, enabled: true, answerTimeoutMs: 60_000, startTimeoutMs: 50 },
  { idleMinutes: idleMinutes.min },
  { idleMinutes: idleMinutes.max },
  { idleMinutes: idleMinutes.min / 2 },
  { idleMinutes: idleMinutes.max + 1 },
  { answerTimeoutMs: answerTimeoutMs.max + 0.5 },
  { answerTimeoutMs: Number.MAX_VALUE },
  { answerTimeoutMs: '1500' },
  { enabled: 'yes' },
  { enabled: null },
  { idleMinutes: null },
  { startTimeout: 5 },
  { idleMinutes: 5, extra: 1 },
  [],
  null,
  'service',
  7,
];

test('acceptServiceBlock accepts exactly what the schema accepts, and nothing it refuses', (t) => {
  for (const b of BLOCKS) {
    const schema = serviceBlockSchema.safeParse(b);
    const fast = acceptServiceBlock(b);
    t.is(fast !== undefined, schema.success, JSON.stringify(b));
    if (fast) t.deepEqual(fast, schema.data, JSON.stringify(b));
  }
});

test('the warm path and the full reader give the same settings, or the same error naming file and field', async (t) => {
  const home = await freshHome();
  const path = configPath(home);
  await mkdir(dirname(path), { recursive: true });
  for (const b of BLOCKS) {
    await writeFile(path, JSON.stringify({ tui: { keymap: 'vim' }, service: b }));
    const full = await readServiceConfig(home).then(
      (v) => ({ v }),
      (e: Error) => ({ e: e.message }),
    );
    const warm = await readServiceSettings(home).then(
      (v) => ({ v }),
      (e: Error) => ({ e: e.message }),
    );
    t.deepEqual(warm, full, JSON.stringify(b));
    if ('e' in full) t.true(full.e.startsWith(`${path}: damaged configuration: service`), full.e);
  }
});

const HOOK = `export async function resolve(s, c, n) {
  const r = await n(s, c);
  if (/\\/node_modules\\/zod\\//.test(r.url)) process._rawDebug('zod loaded');
  return r;
}`;

test('a valid service block is read without loading zod; a damaged one loads it to name the field', async (t) => {
  const home = await freshHome();
  const path = configPath(home);
  await mkdir(dirname(path), { recursive: true });
  const reader = fileURLToPath(new URL('../../src/service/service-config-file.js', import.meta.url));
  const run = async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      '--import',
      `data:text/javascript,${encodeURIComponent(
        `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`,
      )}`,
      '--input-type=module',
      '-e',
      `import { readServiceSettings } from ${JSON.stringify(reader)};
       const r = await readServiceSettings(${JSON.stringify(home)}).catch((e) => e.message);
       console.log(JSON.stringify(r));`,
    ]);
    return { result: JSON.parse(stdout) as unknown, zod: stderr.includes('zod loaded') };
  };
  await writeFile(path, JSON.stringify({ service: { idleMinutes: 5, answerTimeoutMs: 60_000 } }));
  const valid = await run();
  t.deepEqual(valid.result, { enabled: true, idleMinutes: 5, answerTimeoutMs: 60_000, startTimeoutMs: 3000 });
  t.false(valid.zod);
  await writeFile(path, JSON.stringify({ service: { idleMinutes: '5' } }));
  const damaged = await run();
  t.regex(String(damaged.result), /service\.idleMinutes: expected a number/);
  t.true(damaged.zod, 'the hook sees zod when the schema does load (the check can fail)');
});
