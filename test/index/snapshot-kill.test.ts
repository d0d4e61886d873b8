import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { buildSnapshot } from '../../src/index/snapshot-build.js';
import { encodeSnapshot } from '../../src/index/snapshot-format.js';
import { openSnapshot, writeSnapshot } from '../../src/index/snapshot-io.js';
import { freshSnapshotPath, makeData, rng, useTempHome } from './fixtures.js';

useTempHome();

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'kill-writer.js');
const dataFor = (seed: number) => makeData({ sources: 2, docsPerSource: 20, chunksPerDoc: 5, dim: 32, seed });

test('a writer SIGKILLed at random moments leaves wholly snapshot A or wholly B; open cleans its temp files', async (t) => {
  const path = freshSnapshotPath();
  const dir = dirname(path);
  const bytesA = encodeSnapshot(await buildSnapshot(dataFor(1), { scratchDir: dir }));
  const bytesB = encodeSnapshot(await buildSnapshot(dataFor(2), { scratchDir: dir }));
  await writeSnapshot(path, dataFor(1));
  t.true(readFileSync(path).equals(bytesA));
  const r = rng(17);
  const seen = { a: 0, b: 0, temps: 0 };
  for (let trial = 0; trial < 10; trial++) {
    const child = spawn(process.execPath, [CHILD, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
    });
    await new Promise((res) => setTimeout(res, Math.floor(r() * 250)));
    const exited = new Promise((res) => child.once('exit', res));
    child.kill('SIGKILL');
    await exited;
    const live = readFileSync(path);
    const isA = live.equals(bytesA);
    const isB = live.equals(bytesB);
    t.true(isA || isB, `trial ${trial}: the live file is exactly A or exactly B`);
    if (isA) seen.a++;
    if (isB) seen.b++;
    seen.temps += readdirSync(dir).filter((n) => n.startsWith('.tmp-')).length;
    const snap = (await openSnapshot(path))!;
    t.is(snap.chunkCount, 200);
    t.deepEqual(
      readdirSync(dir).filter((n) => n.startsWith('.tmp-')),
      [],
      `trial ${trial}: temp files of the dead writer removed`,
    );
    snap.close();
  }
  t.log(`live A ${seen.a}, live B ${seen.b}, temp files left by kills ${seen.temps}`);
});
