import { execFile } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import {
  createRunRecord,
  flagStale,
  RUN_LINE_PREFIX,
  type RunRecord,
  runOrigin,
  serializeRun,
} from '../../src/ai/runs.js';
import { appendRun, newRunId, readRuns } from '../../src/ai/runs-file.js';
import { runsDir } from '../../src/storage/paths.js';
import type { Excerpt } from '../../src/types.js';
import { cand, useTempHome } from '../retrieve/helpers.js';

const home = useTempHome();
const run = promisify(execFile);

function excerpt(marker: string, sourceId: string, sha: string, extra: Partial<Excerpt> = {}): Excerpt {
  const c = cand({
    sourceId,
    chunk: 0,
    fusedScore: 0.03,
    vectorRank: 1,
    lexicalRank: 2,
    vectorScore: 0.81,
    lexicalScore: 7.5,
    contentSha256: sha,
  });
  return { ...c, marker, rank: Number(marker.slice(1)), trimmed: false, originalTokens: c.tokens, ...extra };
}

function record(time: string, over: Partial<Parameters<typeof createRunRecord>[0]> = {}): RunRecord {
  return createRunRecord({
    id: newRunId(new Date(time)),
    time: new Date(time),
    action: 'ask',
    profile: 'local',
    backend: 'llama',
    model: 'qwen.gguf',
    retrievalMode: 'before',
    stores: [{ id: 'st1', name: 'Docs' }],
    query: 'when does the backup run?',
    excerpts: [
      excerpt('R1', 'a', '1'.repeat(64)),
      excerpt('R2', 'b', '2'.repeat(64), {
        pageStart: 3,
        pageEnd: 3,
        lineStart: undefined,
        lineEnd: undefined,
      }),
    ],
    cited: ['R1'],
    status: 'ok',
    answer: 'Nightly [R1].',
    ...over,
  });
}

test('the record holds what the model was given and cited, not the excerpt text; raw answer only when rejected', (t) => {
  const ok = record('2025-03-01T10:00:00Z');
  t.is(ok.time, '2025-03-01T10:00:00.000Z');
  t.deepEqual(ok.excerpts[0], {
    marker: 'R1',
    storeId: 'st1',
    storeName: 'Store st1',
    sourceId: 'a',
    path: '/docs/a.md',
    lineStart: 1,
    lineEnd: 5,
    chunkId: 'a-c0',
    contentSha256: '1'.repeat(64),
    vectorRank: 1,
    lexicalRank: 2,
    vectorScore: 0.81,
    lexicalScore: 7.5,
    fusedScore: 0.03,
    tokens: ok.excerpts[0]!.tokens,
    trimmed: false,
  });
  t.is(ok.excerpts[1]!.pageStart, 3);
  t.false('text' in ok.excerpts[0]!);
  t.is(ok.answer, undefined);
  const rejected = record('2025-03-01T10:00:00Z', {
    status: 'rejected',
    cited: ['R9'],
    reason: { code: 'CITATION_UNKNOWN', message: 'the answer cites [R9], which was not retrieved' },
    answer: 'See [R9].',
  });
  t.is(rejected.answer, 'See [R9].');
  t.deepEqual(rejected.reason, {
    code: 'CITATION_UNKNOWN',
    message: 'the answer cites [R9], which was not retrieved',
  });
  const line = serializeRun(rejected);
  t.true(line.startsWith(RUN_LINE_PREFIX));
  t.is(line.indexOf('\n'), line.length - 1);
});

test('append and read: one private file per UTC day, --last N gives the newest N oldest-first', async (t) => {
  const dir = join(home, 'runs-a');
  await appendRun(record('2025-03-01T23:59:59Z', { query: 'q1' }), dir);
  await appendRun(record('2025-03-02T00:00:01Z', { query: 'q2' }), dir);
  const path = await appendRun(record('2025-03-02T08:00:00Z', { query: 'q3\nwith newline' }), dir);
  t.deepEqual(readdirSync(dir).sort(), ['2025-03-01.jsonl', '2025-03-02.jsonl']);
  t.is(path, join(dir, '2025-03-02.jsonl'));
  t.is(statSync(path).mode & 0o777, 0o600);
  t.deepEqual(
    (await readRuns({ dir })).records.map((r) => r.query),
    ['q1', 'q2', 'q3\nwith newline'],
  );
  t.deepEqual(
    (await readRuns({ dir, last: 2 })).records.map((r) => r.query),
    ['q2', 'q3\nwith newline'],
  );
  t.deepEqual((await readRuns({ dir, last: 0 })).records, []);
  t.deepEqual(await readRuns({ dir: join(home, 'nothing-here') }), { records: [], damaged: [] });
  // Default location is rag/runs under KORTTY_HOME.
  await appendRun(record('2025-03-03T00:00:00Z'));
  t.true(runsDir().startsWith(home));
  t.is((await readRuns()).records.length, 1);
});

test('a line torn by a crash is reported and the next record is still read', async (t) => {
  const dir = join(home, 'runs-torn');
  await appendRun(record('2025-04-01T01:00:00Z', { query: 'before' }), dir);
  appendFileSync(join(dir, '2025-04-01.jsonl'), '{"v":1,"id":"torn","time":"2025-04-01T01:0');
  await appendRun(record('2025-04-01T02:00:00Z', { query: 'after' }), dir);
  appendFileSync(join(dir, '2025-04-01.jsonl'), 'garbage line\n');
  const { records, damaged } = await readRuns({ dir });
  t.deepEqual(
    records.map((r) => r.query),
    ['before', 'after'],
  );
  t.deepEqual(
    damaged.map((d) => [d.line, d.reason]),
    [
      [2, 'torn record before a recovered one'],
      [3, 'not a run record'],
    ],
  );
});

test('concurrent appenders in separate processes never interleave, even with records far above PIPE_BUF', async (t) => {
  const dir = join(home, 'runs-concurrent');
  const mod = new URL('../../src/ai/runs-file.js', import.meta.url).href;
  const runsMod = new URL('../../src/ai/runs.js', import.meta.url).href;
  const script = `
    import { appendRun } from ${JSON.stringify(mod)};
    import { createRunRecord } from ${JSON.stringify(runsMod)};
    const w = process.argv[1];
    for (let i = 0; i < 40; i++) {
      const r = createRunRecord({ id: w + '-' + i, time: new Date('2025-05-05T12:00:00Z'), action: 'ask', profile: 'p',
        stores: [], query: 'q', excerpts: [], cited: [], status: 'rejected',
        reason: { code: 'CITATION_MISSING', message: 'm' }, answer: w.repeat(20000 + i) });
      await appendRun(r, ${JSON.stringify(dir)});
    }`;
  await Promise.all(
    ['A', 'B', 'C', 'D'].map((w) => run(process.execPath, ['--input-type=module', '-e', script, w])),
  );
  const { records, damaged } = await readRuns({ dir });
  t.deepEqual(damaged, []);
  t.is(records.length, 160);
  t.is(new Set(records.map((r) => r.id)).size, 160);
  for (const r of records) {
    const [w, i] = r.id.split('-');
    t.is(r.answer, w!.repeat(20000 + Number(i)));
  }
  t.is(readFileSync(join(dir, '2025-05-05.jsonl'), 'utf8').split('\n').length, 161);
});

test('a citation whose source changed since the run is flagged stale', (t) => {
  const r = record('2025-03-01T10:00:00Z', { cited: ['R1', 'R2'] });
  const current = new Map([['a', '1'.repeat(64)]]);
  const same = flagStale(r, (e) => current.get(e.sourceId));
  t.deepEqual(
    same.excerpts.map((e) => [e.marker, e.stale, e.missing]),
    [
      ['R1', false, false],
      ['R2', true, true],
    ],
  );
  t.deepEqual(same.staleCited, ['R2']);
  current.set('a', 'f'.repeat(64));
  current.set('b', '2'.repeat(64));
  const changed = flagStale(r, (e) => current.get(e.sourceId));
  t.deepEqual(
    changed.excerpts.map((e) => [e.marker, e.stale, e.missing]),
    [
      ['R1', true, false],
      ['R2', false, false],
    ],
  );
  t.deepEqual(changed.staleCited, ['R1']);
  t.deepEqual(flagStale({ ...r, cited: [] }, () => undefined).staleCited, []);
});

test('MCP records carry via; records without it (older ones) still read', async (t) => {
  const dir = join(home, 'runs-via');
  const base = {
    time: new Date('2026-05-01T10:00:00Z'),
    action: 'agent' as const,
    profile: '',
    stores: [{ id: 's', name: 'S' }],
    query: 'q',
    excerpts: [excerpt('R1', 'src', 'a'.repeat(64))],
    cited: [],
    status: 'ok' as const,
  };
  const mcp = createRunRecord({
    ...base,
    id: newRunId(),
    via: { kind: 'mcp', tool: 'search_knowledge', client: 'x 1' },
  });
  t.true(serializeRun(mcp).startsWith(RUN_LINE_PREFIX));
  await appendRun(mcp, dir);
  // A record as the previous version wrote it: no `via`.
  const old = createRunRecord({ ...base, id: newRunId(), action: 'ask', profile: 'writer' });
  t.false('via' in old);
  appendFileSync(join(dir, '2026-05-01.jsonl'), serializeRun(old));
  const { records, damaged } = await readRuns({ dir });
  t.deepEqual(damaged, []);
  t.deepEqual(records[0]!.via, { kind: 'mcp', tool: 'search_knowledge', client: 'x 1' });
  t.is(runOrigin(records[0]!), 'MCP search_knowledge (x 1)');
  t.is(records[1]!.via, undefined);
  t.is(runOrigin(records[1]!), 'profile writer');
});
