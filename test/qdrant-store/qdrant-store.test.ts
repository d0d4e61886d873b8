import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { search } from '../../src/retrieve/search.js';
import { vaultPath } from '../../src/storage/paths.js';
import {
  addSources,
  createStore,
  deleteStore,
  findStore,
  removeSource,
  setSourceEnabled,
} from '../../src/store/engine.js';
import { openVault } from '../../src/vault/vault.js';
import { startFakeQdrant } from '../helpers/fake-qdrant.js';
import { stopQueryService } from '../helpers/query-service.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// A Qdrant store through the engine and the CLI, against the Qdrant-compatible loopback server
// and the real client: same chunk metadata, per-source generations, filters inside the query,
// lifecycle that never touches other data, and an API key that never leaks.

process.env.KORTTY_VAULT_PASSPHRASE = 'correct horse battery staple';

async function tree(topic: string) {
  const root = await mkdtemp(join(tmpdir(), `kortty-q-${topic}-`));
  await writeTree(root, { [`${topic}.md`]: prose(topic, 25, topic.length) });
  return root;
}

test.serial(
  'Qdrant store lifecycle: sources, disabled source, other stores in the same collection',
  async (t) => {
    const home = await homeWithStarter();
    const q = await startFakeQdrant({ apiKey: 'k-test' });
    try {
      const vault = await openVault(process.env.KORTTY_VAULT_PASSPHRASE!, {
        path: vaultPath(home),
        kdfParams: { log2N: 10, r: 8, p: 1 } as never,
      });
      const mk = (name: string) =>
        createStore(
          {
            name,
            modelId: 'kortty-lexical-starter',
            type: 'qdrant',
            qdrant: { url: q.url, collection: 'shared' },
            qdrantApiKey: 'k-test',
            vault,
          },
          home,
        );
      await mk('Q1');
      await mk('Q2');
      const [a, b, c] = [await tree('glaciers'), await tree('deserts'), await tree('glaciers')];
      const ports = countingPorts(home);
      await addSources(
        'Q1',
        [
          { kind: 'folder', path: a },
          { kind: 'folder', path: b },
        ],
        { ports },
        home,
      );
      await addSources('Q2', [{ kind: 'folder', path: c }], { ports }, home);
      const coll = q.collections.get('shared')!;
      t.true(coll.points.size > 0);
      const payloadPaths = [...coll.points.values()].map((p) =>
        String((p.payload as Record<string, unknown>).path),
      );
      t.true(payloadPaths.some((p) => p.startsWith(a)));

      const deps = createSearchDeps(home);
      try {
        let q1 = await findStore('Q1', home);
        let res = await search({ stores: [q1], query: 'glaciers' }, deps);
        t.true(res.excerpts.length > 0);
        t.true(res.excerpts[0]!.path.startsWith(a));
        t.false(
          res.excerpts.some((e) => e.path.startsWith(c)),
          "another store's points in the same collection never come back",
        );
        t.true(
          res.excerpts.every((e) => e.vectorRank !== undefined && e.lexicalRank === undefined),
          'Qdrant stores are vector-only',
        );

        await setSourceEnabled('Q1', q1.sources.find((s) => s.path === a)!.id, false, home);
        q1 = await findStore('Q1', home);
        res = await search({ stores: [q1], query: 'glaciers' }, deps);
        t.false(
          res.excerpts.some((e) => e.path.startsWith(a)),
          'a disabled source never comes back',
        );
        t.false(res.excerpts.some((e) => e.path.startsWith(c)));

        const before = coll.points.size;
        const srcB = q1.sources.find((s) => s.path === b)!.id;
        const bPoints = [...coll.points.values()].filter(
          (p) => (p.payload as Record<string, unknown>).source_id === srcB,
        ).length;
        t.true(bPoints > 0);
        await removeSource('Q1', srcB, { ports }, home);
        t.is(coll.points.size, before - bPoints, 'removing a source deletes only its points');

        await deleteStore('Q1', { detach: true }, home);
        t.true(q.collections.has('shared'), 'the collection itself is never deleted');
        const left = [...coll.points.values()].map((p) =>
          String((p.payload as Record<string, unknown>).path),
        );
        t.true(left.length > 0 && left.every((p) => p.startsWith(c)), "only Q2's points remain");
      } finally {
        await deps.close();
      }
    } finally {
      await q.close();
    }
  },
);

test.serial('a collection with the wrong dimension is refused before the store exists', async (t) => {
  const home = await homeWithStarter();
  const q = await startFakeQdrant();
  try {
    await createStore(
      {
        name: 'First',
        modelId: 'kortty-lexical-starter',
        type: 'qdrant',
        qdrant: { url: q.url, collection: 'c' },
      },
      home,
    );
    const coll = q.collections.get('c')!;
    coll.vectors = { ...coll.vectors, size: 7 };
    const err = await t.throwsAsync(
      createStore(
        {
          name: 'Second',
          modelId: 'kortty-lexical-starter',
          type: 'qdrant',
          qdrant: { url: q.url, collection: 'c' },
        },
        home,
      ),
    );
    t.is((err as { code?: string }).code, 'QDRANT_COLLECTION_MISMATCH');
    await t.throwsAsync(findStore('Second', home));
  } finally {
    await q.close();
  }
});

function io(stdin = ''): CliIO & { out: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (d) => (text += d));
  stderr.on('data', (d) => (text += d));
  return {
    stdout,
    stderr,
    stdin: Readable.from([stdin]),
    env: process.env,
    cwd: process.cwd(),
    out: () => text,
  };
}

async function walkBytes(dir: string, out: Buffer[] = []): Promise<Buffer[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walkBytes(p, out);
    else if ((await stat(p)).isFile()) out.push(Buffer.concat([Buffer.from(p), await readFile(p)]));
  }
  return out;
}

test.serial(
  'a canary API key run through every CLI flow is found nowhere on disk or in output',
  async (t) => {
    const home = await homeWithStarter();
    const canary = `kq-CANARY-${Math.random().toString(36).slice(2)}`;
    const q = await startFakeQdrant({ apiKey: canary });
    const docs = await tree('canaries');
    let all = '';
    const cli = async (argv: string[], stdin = '') => {
      const c = io(stdin);
      const code = await main(argv, c);
      all += c.out();
      return code;
    };
    try {
      t.is(
        await cli(
          [
            'store',
            'create',
            'Canary',
            '--type',
            'qdrant',
            '--qdrant-url',
            q.url,
            '--qdrant-collection',
            'cc',
            '--api-key-stdin',
          ],
          `${canary}\n`,
        ),
        0,
      );
      t.is(await cli(['source', 'add', 'Canary', docs, '--yes']), 0);
      t.is(await cli(['source', 'update', 'Canary', '--yes']), 0);
      t.is(await cli(['search', '--store', 'Canary', 'canaries']), 0);
      t.is(await cli(['store', 'show', 'Canary', '--json']), 0);
      t.is(await cli(['store', 'list']), 0);
      t.is(await cli(['status', '--format', 'json']), 0);
      q.failNext(50, { status: 500 });
      // A failing server is left out of the search with a warning (and remembered for status):
      // neither may leak the key.
      t.is(await cli(['search', '--store', 'Canary', 'canaries']), 0);
      t.regex(all, /store "Canary" is unreachable/);
      q.clearFaults();
      t.is(await cli(['store', 'delete', 'Canary', '--json']), 0);
      t.false(all.includes(canary), 'not in any output');
      t.true(
        q.requests.some((r) => r.hadApiKey),
        'the key was really used',
      );
      for (const bytes of await walkBytes(home))
        t.false(bytes.includes(canary), 'not in any file under KORTTY_HOME');
    } finally {
      await q.close();
      await stopQueryService(home);
    }
  },
);
