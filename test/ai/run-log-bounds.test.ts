import { execFile } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import {
  createRunRecord,
  RUN_LOG_KEEP_FILES,
  RUN_LOG_MAX_BYTES,
  type RunRecord,
  serializeRun,
} from '../../src/ai/runs.js';
import { appendRun, readRuns } from '../../src/ai/runs-file.js';
import { runsDir } from '../../src/storage/paths.js';
import { runCli } from '../helpers/run-cli.js';
import { freshHome } from '../helpers/store-env.js';

// Run logs are bounded: listed by streaming (a 600 MiB log in flat memory), rotated by size without
// renames (concurrent writers lose nothing across a rotation), and pruned by a documented retention.

const run = promisify(execFile);
const MiB = 1024 * 1024;

function record(time: string, query: string, answer?: string): RunRecord {
  return createRunRecord({
    id: `${query}-id`,
    time: new Date(time),
    action: 'ask',
    profile: 'p',
    stores: [{ id: 's', name: 'S' }],
    query,
    excerpts: [],
    cited: [],
    status: answer === undefined ? 'ok' : 'rejected',
    ...(answer === undefined ? {} : { reason: { code: 'CITATION_MISSING', message: 'm' }, answer }),
  });
}

/** Appends `bytes` of whole, valid record lines to `path` in 1 MiB writes. */
function fillWithRecords(path: string, bytes: number, time: string): number {
  const line = serializeRun(record(time, 'filler', 'x'.repeat(900)));
  const block = Buffer.from(line.repeat(Math.floor(MiB / line.length)));
  const fd = openSync(path, 'a', 0o600);
  let written = 0;
  try {
    while (written + block.length <= bytes) written += writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
  return written;
}

test('runs lists the newest records of a 600 MiB log in flat memory', async (t) => {
  const home = await freshHome();
  const dir = runsDir(home);
  await appendRun(record('2026-01-10T00:00:00Z', 'first'), dir);
  // One day's log as a version without rotation grew it: 64 MiB of records, the rest up to 600 MiB
  // a hole (a 536 MiB line of NUL bytes, as a crash on some filesystems leaves), then ten records.
  const path = join(dir, '2026-01-10.jsonl');
  fillWithRecords(path, 64 * MiB, '2026-01-10T01:00:00Z');
  const fd = openSync(path, 'r+');
  ftruncateSync(fd, 600 * MiB);
  let tail = '\n';
  for (let i = 0; i < 10; i++) tail += serializeRun(record(`2026-01-10T02:00:0${i}Z`, `wanted-${i}`));
  writeSync(fd, tail, 600 * MiB);
  closeSync(fd);
  t.true(statSync(path).size > 600 * MiB);

  const cli = await runCli(['runs', '--last', '10', '--json'], {
    env: { KORTTY_HOME: home },
    timeoutMs: 120_000,
  });
  t.is(cli.code, 0, cli.stderr);
  const out = JSON.parse(cli.stdout) as { runs: RunRecord[]; damaged: unknown[] };
  t.deepEqual(
    out.runs.map((r) => r.query),
    Array.from({ length: 10 }, (_, i) => `wanted-${i}`),
  );
  t.true(cli.peakRssMiB < 200, `peak RSS ${cli.peakRssMiB.toFixed(0)} MiB`);
  t.log(`runs --last 10: ${cli.ms.toFixed(0)} ms, peak RSS ${cli.peakRssMiB.toFixed(0)} MiB`);

  // Reading further back crosses the giant line: reported by its number, never held.
  const rssBefore = process.memoryUsage().rss;
  const { records, damaged } = await readRuns({ dir, last: 12 });
  t.true(process.memoryUsage().rss - rssBefore < 100 * MiB);
  t.is(records.length, 11);
  t.is(records[0]!.query, 'filler');
  t.deepEqual(
    damaged.map((d) => d.reason),
    ['line longer than 8388608 bytes'],
  );
});

test('a full log file is followed by the next part; reads span the parts in order', async (t) => {
  const home = await freshHome();
  const dir = runsDir(home);
  await appendRun(record('2025-06-01T00:00:00Z', 'before'), dir);
  fillWithRecords(join(dir, '2025-06-01.jsonl'), RUN_LOG_MAX_BYTES + 2 * MiB, '2025-06-01T00:00:01Z');
  await appendRun(record('2025-06-01T00:00:02Z', 'last-of-part-0'), dir);
  t.true(statSync(join(dir, '2025-06-01.jsonl')).size >= RUN_LOG_MAX_BYTES);
  const p1 = await appendRun(record('2025-06-01T00:00:03Z', 'part-1-a'), dir);
  const p2 = await appendRun(record('2025-06-01T00:00:04Z', 'part-1-b'), dir);
  t.is(p1, join(dir, '2025-06-01.1.jsonl'));
  t.is(p2, p1);
  const { records, damaged } = await readRuns({ dir, last: 3 });
  t.deepEqual(damaged, []);
  t.deepEqual(
    records.map((r) => r.query),
    ['last-of-part-0', 'part-1-a', 'part-1-b'],
  );
});

test('retention keeps the newest 32 files, none 90 days older than the newest', async (t) => {
  const home = await freshHome();
  const dir = runsDir(home);
  await appendRun(record('2024-06-01T00:00:00Z', 'ancient'), dir);
  const start = Date.parse('2025-01-01T00:00:00Z');
  for (let d = 0; d < 40; d++)
    await appendRun(record(new Date(start + d * 86_400_000).toISOString(), `day-${d}`), dir);
  // Each new day's file pruned as it was created: the ancient one went at once (more than 90 days
  // older), then the oldest beyond 32 files.
  const names = readdirSync(dir).sort();
  t.is(names.length, RUN_LOG_KEEP_FILES);
  t.is(names[0], '2025-01-09.jsonl');
  t.is(names.at(-1), '2025-02-09.jsonl');
  const { records } = await readRuns({ dir });
  t.is(records[0]!.query, 'day-8');
});

test('concurrent writers (ask and MCP paths) lose no line across a rotation', async (t) => {
  const home = await freshHome();
  const dir = runsDir(home);
  await appendRun(record('2025-05-05T00:00:00Z', 'seed'), dir);
  // 512 KiB below the cap: the writers' 20 KB records cross it together.
  fillWithRecords(join(dir, '2025-05-05.jsonl'), RUN_LOG_MAX_BYTES - 512 * 1024, '2025-05-05T00:00:01Z');
  const mod = new URL('../../src/ai/runs-file.js', import.meta.url).href;
  const runsMod = new URL('../../src/ai/runs.js', import.meta.url).href;
  const script = `
    import { appendRun, appendRunUnsynced } from ${JSON.stringify(mod)};
    import { createRunRecord } from ${JSON.stringify(runsMod)};
    const [w, how] = process.argv.slice(1);
    for (let i = 0; i < 40; i++) {
      const r = createRunRecord({ id: w + '-' + i, time: new Date('2025-05-05T12:00:00Z'), action: 'ask', profile: 'p',
        stores: [], query: 'q', excerpts: [], cited: [], status: 'rejected',
        reason: { code: 'CITATION_MISSING', message: 'm' }, answer: w.repeat(20000 + i) });
      if (how === 'sync') appendRunUnsynced(r, ${JSON.stringify(dir)});
      else await appendRun(r, ${JSON.stringify(dir)});
    }`;
  await Promise.all(
    [
      ['A', 'async'],
      ['B', 'async'],
      ['C', 'sync'],
      ['D', 'sync'],
    ].map(([w, how]) => run(process.execPath, ['--input-type=module', '-e', script, w!, how!])),
  );
  t.deepEqual(readdirSync(dir).sort(), ['2025-05-05.1.jsonl', '2025-05-05.jsonl']);
  const { records, damaged } = await readRuns({ dir, last: 160 });
  t.deepEqual(damaged, []);
  t.is(new Set(records.map((r) => r.id)).size, 160);
  for (const r of records) {
    const [w, i] = r.id.split('-');
    t.is(r.answer, w!.repeat(20000 + Number(i)));
  }
});
