import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { main } from '../../src/cli/main.js';
import { search } from '../../src/retrieve/search.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { captureIO } from '../cli/capture.js';
import { createFakeOpenAI } from '../helpers/fake-openai.js';
import { startFakeQdrant } from '../helpers/fake-qdrant.js';
import { quietPort } from '../helpers/ports.js';
import { stopQueryService } from '../helpers/query-service.js';
import { countingPorts, homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';
import { connect, textOf } from '../mcp/harness.js';
import { answeredBy, cli, writeConfig } from '../service/helpers.js';

// One store that cannot be searched (a damaged snapshot, a Qdrant server that refuses or holds
// the connection) is left out and named with its fix; the other stores still answer, in this
// process, through the query service and within the per-store deadline.

async function storeOf(home: string, name: string, topic: string, opts: Record<string, unknown> = {}) {
  const docs = await tempDir(`kortty-iso-${name}-`);
  await writeTree(docs, {
    [`${topic.replace(/ /g, '-')}.md`]: `# ${topic}\n\n${prose(topic, 12, name.length)}`,
  });
  await createStore({ name, modelId: 'kortty-lexical-starter', roles: ['text'], ...opts }, home);
  await addSources(name, [{ kind: 'folder', path: docs }], { ports: countingPorts(home) }, home);
  return (await findStore(name, home)).id;
}

/** Flips one byte in the middle of a file (bit rot): the size and name stay the same. */
async function flipByte(path: string): Promise<void> {
  const { size } = await stat(path);
  const fh = await open(path, 'r+');
  try {
    const at = Math.floor(size / 2);
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, at);
    b[0] = b[0]! ^ 0x40;
    await fh.write(b, 0, 1, at);
  } finally {
    await fh.close();
  }
}

async function run(home: string, argv: string[]) {
  const c = captureIO({ env: { ...process.env, KORTTY_HOME: home } });
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

test.serial(
  'a flipped byte in one snapshot: search answers from the other stores and names the fix',
  async (t) => {
    const home = await homeWithStarter();
    await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
    const broken = await storeOf(home, 'Glaciers', 'kiwi glacier moraine');
    await flipByte(snapshotPath(broken, home));

    const r = await run(home, ['search', '--no-service', 'kiwi', 'orchard']);
    t.is(r.code, 0, r.err);
    t.regex(r.out, /kiwi-orchard-irrigation\.md/);
    t.notRegex(r.out, /glacier/);
    t.regex(r.err, /store "Glaciers" is damaged and was left out of this search: .*snapshot is damaged/);
    t.regex(r.err, /fix: kortty-rag store rebuild Glaciers/);

    const j = await run(home, ['search', '--no-service', '--json', 'kiwi']);
    t.is(j.code, 0, j.err);
    const parsed = JSON.parse(j.out) as { excerpts: { storeName: string }[]; warnings?: string[] };
    t.true(parsed.excerpts.length > 0);
    t.true(parsed.excerpts.every((e) => e.storeName === 'Orchard'));
    t.is(parsed.warnings?.length, 1);
    t.regex(parsed.warnings![0]!, /Glaciers.*store rebuild Glaciers/);

    // A search naming only the damaged store answers nothing, with the same warning (not a crash).
    const only = await run(home, ['search', '--no-service', '--store', 'Glaciers', 'kiwi']);
    t.is(only.code, 0, only.err);
    t.regex(only.out, /no excerpts found/);
    t.regex(only.err, /store rebuild Glaciers/);

    // status, store list (and the TUI, through the same scan) show the store as DAMAGED.
    const list = await run(home, ['store', 'list']);
    t.is(list.code, 0, list.err);
    t.regex(list.out, /Glaciers .*DAMAGED/);
    t.regex(list.out, /Orchard .*READY/);
    t.regex(list.out, /damaged: store "Glaciers": .*\(fix: kortty-rag store rebuild Glaciers\)/);
    const listJson = JSON.parse((await run(home, ['store', 'list', '--json'])).out) as {
      name: string;
      health?: { status: string };
    }[];
    t.is(listJson.find((s) => s.name === 'Glaciers')?.health?.status, 'DAMAGED');
    const status = await run(home, ['status']);
    t.regex(status.out, /RAG error 1/);
    t.regex(status.err, /store "Glaciers" DAMAGED: .*fix: kortty-rag store rebuild Glaciers/);

    // An update cannot build on the damaged snapshot and says what to do instead, every time.
    for (let i = 0; i < 2; i++) {
      const upd = await run(home, ['source', 'update', 'Glaciers', '--yes']);
      t.not(upd.code, 0);
      t.regex(
        upd.err,
        /snapshot is damaged .*Rebuild the store from its sources: kortty-rag store rebuild Glaciers/,
      );
    }
    // The rebuild repairs it: the store answers again and is no longer shown as damaged.
    const rebuilt = await run(home, ['store', 'rebuild', 'Glaciers']);
    t.is(rebuilt.code, 0, rebuilt.err);
    const again = await run(home, ['search', '--no-service', '--json', 'glacier', 'moraine']);
    t.is(again.code, 0, again.err);
    const after = JSON.parse(again.out) as { excerpts: { storeName: string }[]; warnings?: string[] };
    t.is(after.warnings, undefined);
    t.true(after.excerpts.some((e) => e.storeName === 'Glaciers'));
    t.regex((await run(home, ['store', 'list'])).out, /Glaciers .*READY/);
    t.notRegex((await run(home, ['status'])).out, /error/);
  },
);

test.serial(
  'a flipped byte in one snapshot: the query service answers from the others with the warning',
  async (t) => {
    const home = await homeWithStarter();
    await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
    const broken = await storeOf(home, 'Glaciers', 'kiwi glacier moraine');
    await writeConfig(home, { answerTimeoutMs: 60_000, startTimeoutMs: 120_000 });
    const env = { ...process.env, KORTTY_HOME: home };
    try {
      // Warm the service on the healthy snapshot first, then damage the other one under it.
      const first = await cli(env, ['search', '--verbose', 'kiwi']);
      t.is(first.code, 0, first.stderr);
      t.truthy(answeredBy(first.stderr), first.stderr);
      await flipByte(snapshotPath(broken, home));
      const r = await cli(env, ['search', '--verbose', '--json', 'kiwi']);
      t.is(r.code, 0, r.stderr);
      t.truthy(answeredBy(r.stderr), r.stderr);
      const parsed = JSON.parse(r.stdout) as { excerpts: { storeName: string }[]; warnings?: string[] };
      t.true(parsed.excerpts.length > 0);
      t.true(parsed.excerpts.every((e) => e.storeName === 'Orchard'));
      t.regex(r.stderr, /store "Glaciers" is damaged .*fix: kortty-rag store rebuild Glaciers/);
      t.regex(parsed.warnings?.join('\n') ?? '', /store rebuild Glaciers/);
    } finally {
      await stopQueryService(home);
    }
  },
);

test.serial('a refused loopback Qdrant port: the local store answers within the deadline', async (t) => {
  const home = await homeWithStarter();
  await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
  // A port no other test's listen(0) can be given once this server closes it.
  const q = await startFakeQdrant({ port: await quietPort() });
  await storeOf(home, 'Remote', 'kiwi remote cluster', {
    type: 'qdrant',
    qdrant: { url: q.url, collection: 'remote' },
  });
  t.true(q.collections.get('remote')!.points.size > 0);
  await q.close(); // nothing listens on the port now: every connection is refused

  const started = performance.now();
  const r = await run(home, ['search', '--no-service', 'kiwi']);
  const elapsed = performance.now() - started;
  t.is(r.code, 0, r.err);
  t.regex(r.out, /kiwi-orchard-irrigation\.md/);
  t.regex(r.err, /store "Remote" is unreachable and was left out of this search/);
  t.regex(r.err, /fix: check that its Qdrant server answers/);
  t.notRegex(r.err, /did not answer within/, 'a refusal is reported as itself, not as a timeout');
  t.regex((await run(home, ['store', 'list'])).out, /Remote .*UNREACHABLE/);
  t.regex((await run(home, ['status'])).err, /store "Remote" UNREACHABLE: .*ECONNREFUSED/);
  // The refusal is immediate; what is checked is that the search did not wait for a retry loop.
  t.log(`search with a refused Qdrant store took ${elapsed.toFixed(0)} ms`);
});

test.serial(
  'a Qdrant server that holds the connection is left out after the per-store deadline',
  async (t) => {
    const home = await homeWithStarter();
    await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
    const q = await startFakeQdrant();
    try {
      await storeOf(home, 'Remote', 'kiwi remote cluster', {
        type: 'qdrant',
        qdrant: { url: q.url, collection: 'remote' },
      });
      q.holdNext(100);
      const deps = createSearchDeps(home, { KORTTY_STORE_DEADLINE_MS: '300' });
      try {
        t.is(deps.storeDeadlineMs, 300);
        const stores = [await findStore('Orchard', home), await findStore('Remote', home)];
        const res = await search({ stores, query: 'kiwi' }, deps);
        t.true(res.excerpts.length > 0);
        t.true(res.excerpts.every((e) => e.storeName === 'Orchard'));
        t.deepEqual(
          res.failedStores.map((f) => [f.storeName, f.kind]),
          [['Remote', 'unreachable']],
        );
        t.regex(res.failedStores[0]!.reason, /did not answer within 300 ms/);
      } finally {
        await deps.close();
      }
    } finally {
      q.clearFaults();
      await q.close();
    }
  },
);

test('KORTTY_STORE_DEADLINE_MS: a bad value falls back to the default', (t) => {
  const deps = createSearchDeps(join('/nonexistent', 'home'), { KORTTY_STORE_DEADLINE_MS: 'soon' });
  t.is(deps.storeDeadlineMs, 2000);
});

test.serial(
  'a damaged snapshot: ask and MCP search_knowledge answer from the others with the warning',
  async (t) => {
    const home = await homeWithStarter();
    await storeOf(home, 'Orchard', 'kiwi orchard irrigation', { autonomous: true });
    const broken = await storeOf(home, 'Glaciers', 'kiwi glacier moraine', { autonomous: true });
    await flipByte(snapshotPath(broken, home));
    const chat = await createFakeOpenAI();
    try {
      t.is(
        (
          await run(home, [
            'profile',
            'add',
            'writer',
            '--base-url',
            chat.url,
            '--model',
            'm',
            '--role',
            'text',
          ])
        ).code,
        0,
      );
      const asked = await run(home, ['ask', '--no-service', 'what about the kiwi orchard?']);
      t.is(asked.code, 0, asked.err);
      t.regex(
        asked.err,
        /store "Glaciers" is damaged and was left out of this search: .*store rebuild Glaciers/,
      );
      t.regex(asked.err, /kiwi-orchard-irrigation\.md/);
      t.notRegex(asked.err, /glacier-moraine/);
    } finally {
      await chat.close();
    }
    const mcp = await connect(home);
    try {
      const res = (await mcp.client.callTool({ name: 'search_knowledge', arguments: { query: 'kiwi' } })) as {
        isError?: boolean;
        structuredContent?: { excerpts: { store: string }[]; warnings?: string[] };
      };
      t.falsy(res.isError, textOf(res));
      t.regex(textOf(res), /warning: store "Glaciers" is damaged .*store rebuild Glaciers/);
      t.true(res.structuredContent!.excerpts.length > 0);
      t.true(res.structuredContent!.excerpts.every((e) => e.store === 'Orchard'));
      t.regex(res.structuredContent!.warnings?.join('\n') ?? '', /Glaciers/);
    } finally {
      await mcp.close();
    }
  },
);
