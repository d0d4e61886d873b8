import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { search } from '../../src/retrieve/search.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { answeredBy, kill, cli as run, servicePid, writeConfig } from '../service/helpers.js';

// Query shaping wired into search: search() uses the shaped selection (or the raw text with
// shape: false, or the trimmed original when shaping leaves nothing), `search --explain` shows it
// (table and JSON, here through the query service) with each excerpt's matched terms and field
// shares, and the service answers exactly what the in-process search does.

const SELECTION = [
  '\x1b[32muser@buildhost\x1b[0m:\x1b[34m~/src\x1b[0m$ tar -xf backup.tar',
  '2026-12-04T05:20:56.123Z tar: backup.tar: Cannot open: No such file or directory',
  '2026-12-04T05:20:56.124Z tar: Error is not recoverable: exiting now',
  '2026-12-04T05:20:56.124Z tar: Error is not recoverable: exiting now',
].join('\n');
const SHAPED = [
  'tar -xf backup.tar',
  'tar: backup.tar: Cannot open: No such file or directory',
  'tar: Error is not recoverable: exiting now',
].join('\n');

let env: NodeJS.ProcessEnv = process.env;
let home = '';
const cli = (argv: string[]) => run(env, argv).then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));
test.after.always(async () => {
  if (home) await kill(await servicePid(home));
});

test.before(async () => {
  home = await homeWithStarter();
  env = { ...process.env, KORTTY_HOME: home };
  await writeConfig(home, { answerTimeoutMs: 60_000, startTimeoutMs: 120_000 });
  const root = await mkdtemp(join(tmpdir(), 'kortty-shape-src-'));
  await writeTree(root, {
    'tar.md': `# tar\n\ntar: Cannot open: the archive file does not exist. An error that is not recoverable ends tar.\n${prose('tar archive extract', 6, 5)}`,
    // The words a raw selection carries besides its message: prompt user and host, timestamps.
    'session.md': `# Session\n\n${Array.from({ length: 12 }, () => 'user buildhost src 2026 12 04 05 20 56 123z 124z').join('\n')}\n`,
    'bikes.md': `# Bicycles\n\n${prose('bicycle chain lubrication', 8, 7)}`,
  });
  await createStore({ name: 'Docs', modelId: STARTER_MODEL_ID }, home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports: createDefaultPorts(home) }, home);
});

test.serial(
  'search() uses the shaped selection; shape: false the raw text; noise alone the original',
  async (t) => {
    const store = await findStore('Docs', home);
    const deps = createSearchDeps(home);
    try {
      const shaped = await search({ stores: [store], query: `  ${SELECTION}\n`, mode: 'lexical' }, deps);
      t.is(shaped.shapedQuery, SHAPED);
      t.true(shaped.excerpts[0]!.path.endsWith('tar.md'), shaped.excerpts[0]!.path);
      t.false(
        shaped.excerpts.some((e) => e.path.endsWith('session.md')),
        'nothing of the prompt or the timestamps is searched',
      );

      const raw = await search(
        { stores: [store], query: `  ${SELECTION}\n`, mode: 'lexical', shape: false },
        deps,
      );
      t.is(raw.shapedQuery, SELECTION, 'the raw text, trimmed');
      t.true(
        raw.excerpts.some((e) => e.path.endsWith('session.md')),
        'unshaped, the prompt and timestamps find the session log',
      );

      const noise = await search({ stores: [store], query: ' 2026-12-04T05:20:56Z ', mode: 'lexical' }, deps);
      t.is(noise.shapedQuery, '2026-12-04T05:20:56Z', 'shaping left nothing: the original is searched');

      // A question is searched without its question words.
      const question = 'how do I list a tar archive?';
      t.is((await search({ stores: [store], query: question }, deps)).shapedQuery, 'list a tar archive?');
    } finally {
      await deps.close();
    }
  },
);

interface ExplainJson {
  block: string;
  excerpts: { marker: string; path: string; lexicalRank?: number }[];
  shapedQuery: string;
  shaping: {
    lines: number;
    keptLines: number;
    words: number;
    commands: string[];
    programs: string[];
    prose: boolean;
    dropped: Record<string, number>;
  } | null;
  explain: { marker: string; matched: string[] | null; shares: Record<string, number> | null }[];
}

function checkExplain(t: import('ava').ExecutionContext, json: ExplainJson) {
  t.deepEqual(
    json.explain.map((x) => x.marker),
    json.excerpts.map((e) => e.marker),
  );
  for (const [i, x] of json.explain.entries()) {
    t.deepEqual(Object.keys(x), ['marker', 'matched', 'shares']);
    if (x.matched === null) {
      t.is(x.shares, null);
      continue;
    }
    t.true(json.excerpts[i]!.lexicalRank !== undefined, 'only lexical hits are explained');
    t.true(x.matched.every((m) => typeof m === 'string' && m.length > 0));
    const sum = Object.values(x.shares!).reduce((a, b) => a + b, 0);
    t.true(Math.abs(sum - 1) < 1e-6 || sum === 0, `shares sum to ${sum}`);
  }
}

test.serial(
  'search --explain: the shaped query, what shaping dropped, each excerpt explained (table and JSON)',
  async (t) => {
    const table = await cli(['search', '--store', 'Docs', '--explain', SELECTION]);
    t.is(table.code, 0, table.err);
    t.true(
      table.out.startsWith(
        `shaped query (19 words, 3 of 4 lines kept; dropped 4 escapes, 1 prompt, 3 timestamps, 1 repeated line):\n  ${SHAPED.split('\n').join('\n  ')}\nprograms (documents named after them rank higher): tar\n\n<retrieved_context>`,
      ),
      table.out,
    );
    t.false(table.out.includes('\x1b'), 'escapes never reach the terminal');
    // Each excerpt's score line is followed by its explanation.
    const outLines = table.out.split('\n');
    const scored = outLines.flatMap((l, i) => (/^\[R\d+\] .* {2}fused \d/.test(l) ? [i] : []));
    t.true(scored.length >= 2, table.out);
    for (const i of scored) {
      t.regex(
        outLines[i + 1]!,
        /^ {5}(matched .+ {2}· {2}title \d+% headings \d+% body \d+% proximity \d+% passage \d+% name \d+%|lexical: (not matched|no explanation))$/,
      );
    }

    const res = await cli(['search', '--store', 'Docs', '--json', '--explain', SELECTION]);
    t.is(res.code, 0, res.err);
    const json = JSON.parse(res.out) as ExplainJson;
    t.deepEqual(Object.keys(json), [
      'block',
      'excerpts',
      'timings',
      'shapedQuery',
      'failedStores',
      'shaping',
      'explain',
    ]);
    t.is(json.shapedQuery, SHAPED);
    t.deepEqual(json.shaping, {
      lines: 4,
      keptLines: 3,
      words: 19,
      commands: ['tar -xf backup.tar'],
      programs: ['tar'],
      prose: false,
      dropped: {
        escapes: 4,
        prompts: 1,
        timestamps: 3,
        hex: 0,
        uuids: 0,
        numbers: 0,
        gutters: 0,
        listings: 0,
        repeats: 1,
        question: 0,
        budget: 0,
      },
    });
    checkExplain(t, json);

    const raw = await cli(['search', '--store', 'Docs', '--json', '--explain', '--no-shape', SELECTION]);
    t.is(raw.code, 0, raw.err);
    const rawJson = JSON.parse(raw.out) as ExplainJson;
    t.is(rawJson.shapedQuery, SELECTION);
    t.is(rawJson.shaping, null);
    const rawTable = await cli(['search', '--store', 'Docs', '--explain', '--no-shape', SELECTION]);
    t.true(rawTable.out.startsWith('query (not shaped):\n  \\x1b[32muser@buildhost\\x1b[0m:'), rawTable.out);

    // A question names its program in prose: the table says so, the JSON marks it.
    const asked = await cli(['search', '--store', 'Docs', '--explain', 'in tar, how do I list an archive?']);
    t.is(asked.code, 0, asked.err);
    t.regex(asked.out, /^programs named in prose \(.+\): tar$/m);
    const askedJson = JSON.parse(
      (await cli(['search', '--store', 'Docs', '--json', '--explain', 'in tar, how do I list an archive?']))
        .out,
    ) as ExplainJson;
    t.like(askedJson.shaping, { programs: ['tar'], prose: true });

    const help = await cli(['search', '--help']);
    t.regex(help.out, /--explain/);
    t.regex(help.out, /--no-shape/);
  },
);

test.serial('the query service answers exactly what the in-process search does, shaped or not', async (t) => {
  const strip = (out: string) => {
    const { timings: _t, ...rest } = JSON.parse(out) as Record<string, unknown>;
    return rest;
  };
  for (const extra of [[], ['--no-shape']]) {
    const args = [
      'search',
      '--store',
      'Docs',
      '--json',
      '--explain',
      '--candidates',
      '5',
      ...extra,
      SELECTION,
    ];
    const inProcess = await cli([args[0]!, '--no-service', ...args.slice(1)]);
    t.is(inProcess.code, 0, inProcess.err);
    const warm = await cli([args[0]!, '--verbose', ...args.slice(1)]);
    t.is(warm.code, 0, warm.err);
    t.truthy(answeredBy(warm.err), warm.err);
    t.deepEqual(strip(warm.out), strip(inProcess.out), extra.join(' '));
    t.is((strip(warm.out) as { shapedQuery: string }).shapedQuery, extra.length ? SELECTION : SHAPED);
  }
});
