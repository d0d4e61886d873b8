import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { answeredBy, kill, cli as run, servicePid, writeConfig } from '../service/helpers.js';

// `kortty-rag search --candidates N`: the fused ranking beyond the bounded block, for diagnostics,
// through the real CLI, in-process and from the query service.

let env: NodeJS.ProcessEnv = process.env;
const cli = (argv: string[]) => run(env, argv).then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));
let home = '';
test.after.always(async () => {
  if (home) await kill(await servicePid(home));
});

interface Row {
  rank: number;
  marker: string | null;
  store: string;
  storeId: string;
  sourceId: string;
  path: string;
  location: string | null;
  chunkId: string;
  vectorRank: number | null;
  vectorScore: number | null;
  lexicalRank: number | null;
  lexicalScore: number | null;
  lexicalMatch: number | null;
  fusedScore: number;
}

test.serial(
  '--json --candidates N: the first N of the fused ranking, with markers, scores and locations',
  async (t) => {
    home = await homeWithStarter();
    env = { ...process.env, KORTTY_HOME: home };
    // Generous timeouts: a loaded machine must not turn "answered by the service" into a fallback.
    await writeConfig(home, { answerTimeoutMs: 60_000, startTimeoutMs: 120_000 });
    const root = await mkdtemp(join(tmpdir(), 'kortty-cli-src-'));
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`orchard-${i}.md`] = prose(i % 3 ? 'orchard' : 'harvest', 6 + i, i);
    await writeTree(root, files);
    await createStore({ name: 'Docs', modelId: STARTER_MODEL_ID }, home);
    await addSources('Docs', [{ kind: 'folder', path: root }], { ports: createDefaultPorts(home) }, home);

    const plain = await cli(['search', '--no-service', '--store', 'Docs', '--json', 'orchard harvest']);
    t.is(plain.code, 0, plain.err);
    const base = JSON.parse(plain.out);
    t.deepEqual(
      Object.keys(base),
      ['block', 'excerpts', 'timings', 'shapedQuery', 'failedStores'],
      'without --candidates: the block, its excerpts, timings, the query searched and the stores left out',
    );

    const res = await cli([
      'search',
      '--no-service',
      '--store',
      'Docs',
      '--json',
      '--candidates',
      '10',
      'orchard harvest',
    ]);
    t.is(res.code, 0, res.err);
    const json = JSON.parse(res.out) as {
      block: string;
      excerpts: { marker: string; key: string; path: string }[];
      candidates: Row[];
    };
    t.is(json.block, base.block, 'the bounded block is the same');
    t.deepEqual(json.excerpts, base.excerpts);
    const rows = json.candidates;
    t.is(rows.length, 10);
    t.true(rows.length > json.excerpts.length, 'the ranking goes beyond the block');
    t.deepEqual(
      rows.map((r) => r.rank),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    for (let i = 1; i < rows.length; i++) t.true(rows[i - 1]!.fusedScore >= rows[i]!.fusedScore);
    for (const r of rows) {
      t.deepEqual(Object.keys(r), [
        'rank',
        'marker',
        'store',
        'storeId',
        'sourceId',
        'path',
        'location',
        'chunkId',
        'vectorRank',
        'vectorScore',
        'lexicalRank',
        'lexicalScore',
        'lexicalMatch',
        'fusedScore',
      ]);
      t.is(r.store, 'Docs');
      t.true(r.path.startsWith(root));
      t.regex(r.location ?? '', /^lines? \d+(-\d+)?$/);
      t.true(r.vectorRank !== null || r.lexicalRank !== null);
      t.is(r.vectorRank === null, r.vectorScore === null);
      t.is(r.lexicalRank === null, r.lexicalScore === null);
    }
    // Every excerpt is one of the ranked candidates, carrying its marker; the others carry none.
    for (const e of json.excerpts) {
      const row = rows.find((r) => r.marker === e.marker);
      t.truthy(row, e.marker);
      t.is(row!.path, e.path);
    }
    t.is(rows.filter((r) => r.marker !== null).length, json.excerpts.length);

    const all = JSON.parse(
      (
        await cli([
          'search',
          '--no-service',
          '--store',
          'Docs',
          '--json',
          '--candidates',
          '500',
          'orchard harvest',
        ])
      ).out,
    );
    t.true(all.candidates.length > 10 && all.candidates.length < 500, 'at most the whole ranking');

    // The query service gives the same ranking.
    const warm = await cli([
      'search',
      '--verbose',
      '--store',
      'Docs',
      '--json',
      '--candidates',
      '10',
      'orchard harvest',
    ]);
    t.is(warm.code, 0, warm.err);
    t.truthy(answeredBy(warm.err), warm.err);
    t.deepEqual(JSON.parse(warm.out).candidates, rows);

    const text = await cli(['search', '--store', 'Docs', '--candidates', '3', 'orchard harvest']);
    t.is(text.code, 0);
    t.regex(
      text.out,
      /\nfused ranking \(first 3\):\n {2}1 \[R1\] .+ {2}fused \d\.\d{4} {2}store Docs\n {2}2 /,
    );

    const bad = await cli(['search', '--store', 'Docs', '--candidates', 'ten', 'orchard']);
    t.not(bad.code, 0);
    t.regex(bad.err, /--candidates/);
  },
);
