import { readFile, writeFile } from 'node:fs/promises';
import test from 'ava';
import { answerQuery } from '../../src/app/query.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { main } from '../../src/cli/main.js';
import { createQueryHandler } from '../../src/service/query-service.js';
import { storeConfigPath } from '../../src/storage/paths.js';
import { findStore } from '../../src/store/engine.js';
import { captureIO } from '../cli/capture.js';
import { homeWithStarter } from '../helpers/store-env.js';
import { connect, makeStore } from '../mcp/harness.js';

// Answering from every store while one store.json is damaged: the answer comes from the good
// stores, and the damaged one is named (file and field) on stderr, in the query service's answer
// and in the MCP tools' results; never dropped silently.

const FIELD = /sources\[0\]\.files: expected a number, found the string "3"/;

async function twoStores() {
  const home = await homeWithStarter();
  await makeStore(
    home,
    'Good',
    { 'tides.md': 'The harbour tides turn at noon near the lighthouse.\n' },
    {
      autonomous: true,
    },
  );
  await makeStore(
    home,
    'Broken',
    { 'moss.md': 'Moss grows on the harbour lighthouse walls.\n' },
    {
      autonomous: true,
    },
  );
  const broken = await findStore('Broken', home);
  const path = storeConfigPath(broken.id, home);
  const j = JSON.parse(await readFile(path, 'utf8'));
  j.sources[0].files = '3';
  // A terminal escape in the name: it must reach the terminal inert.
  j.name = 'Broken\u001b[31m';
  await writeFile(path, JSON.stringify(j, null, 2));
  return { home, path };
}

async function run(argv: string[]) {
  const c = captureIO();
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

test.serial(
  'search over every store answers from the good one and names the damaged file and field',
  async (t) => {
    const { path } = await twoStores();
    const r = await run(['search', '--no-service', 'harbour', 'lighthouse']);
    t.is(r.code, 0, r.err);
    t.regex(r.out, /tides\.md/);
    t.notRegex(r.out, /moss\.md/);
    t.true(r.err.includes(`kortty-rag search: store Broken`), r.err);
    t.true(r.err.includes(`${path}: damaged store configuration: `), r.err);
    t.regex(r.err, FIELD);
    t.false(r.err.includes('\u001b'), 'the name went through the sanitizer');

    const j = await run(['search', '--no-service', '--json', 'harbour', 'lighthouse']);
    t.is(j.code, 0, j.err);
    const parsed = JSON.parse(j.out) as { excerpts: { path: string; storeName: string }[] };
    t.true(parsed.excerpts.length > 0);
    t.true(parsed.excerpts.every((e) => e.storeName === 'Good'));
    t.regex(j.err, FIELD);
    t.true(j.err.includes(path), j.err);
  },
);

test.serial('the query service carries the warning in its answer', async (t) => {
  const { home, path } = await twoStores();
  const handler = createQueryHandler({
    home,
    build: 'test',
    host: 'standalone',
    idleMinutes: 5,
    depsFactory: createSearchDeps,
    answer: answerQuery,
  });
  try {
    const res = await handler.search({ query: 'harbour lighthouse' });
    t.true(res.excerpts.length > 0);
    t.true(res.excerpts.every((e) => e.storeName === 'Good'));
    t.is(res.warnings?.length, 1);
    t.true(res.warnings![0]!.includes(path), res.warnings![0]);
    t.regex(res.warnings![0]!, FIELD);
    // A search naming only good stores has nothing to warn about.
    const named = await handler.search({ query: 'harbour', stores: ['Good'] });
    t.is(named.warnings, undefined);
  } finally {
    await handler.close();
  }
});

test.serial('MCP list_stores and search_knowledge report the damaged store as a warning', async (t) => {
  const { home, path } = await twoStores();
  const server = await connect(home);
  try {
    type Out = { content: { text: string }[]; structuredContent?: Record<string, unknown> };
    const list = (await server.client.callTool({ name: 'list_stores', arguments: {} })) as Out;
    const rows = list.structuredContent!.stores as { name: string }[];
    t.deepEqual(
      rows.map((s) => s.name),
      ['Good'],
    );
    const lw = list.structuredContent!.warnings as string[];
    t.is(lw.length, 1);
    t.true(lw[0]!.includes(path), lw[0]);
    t.regex(lw[0]!, FIELD);
    t.regex(list.content[0]!.text, /warning: store Broken.* skipped: .*sources\[0\]\.files/);
    t.false(list.content[0]!.text.includes('\u001b'));

    const found = (await server.client.callTool({
      name: 'search_knowledge',
      arguments: { query: 'harbour lighthouse' },
    })) as Out;
    t.deepEqual(found.structuredContent!.stores, ['Good']);
    const sw = found.structuredContent!.warnings as string[];
    t.is(sw.length, 1);
    t.regex(sw[0]!, FIELD);
    t.regex(found.content[0]!.text, /tides\.md/);
    t.regex(found.content[0]!.text, /warning: store Broken.* skipped: /);
    t.deepEqual(server.wireErrors, []);
  } finally {
    await server.close();
  }
});
