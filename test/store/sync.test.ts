import { mkdtemp, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { createSearchDeps, search } from '../../src/retrieve/search.js';
import { snapshotPath, storeConfigPath } from '../../src/storage/paths.js';
import {
  addSources,
  createStore,
  findStore,
  removeSource,
  setSourceEnabled,
  updateSources,
} from '../../src/store/engine.js';
import { storeIdFor } from '../../src/store/store-config.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

const DOCS_ID = storeIdFor('Docs');

async function setup(files: Record<string, string>) {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-src-'));
  await writeTree(root, files);
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
  return { home, root };
}

const baseTree = {
  'a.md': prose('apples', 30, 1),
  'b.txt': prose('bicycles', 30, 2),
  'sub/c.py': `# carrots\n${prose('carrots', 20, 3)}`,
};

test('add → index → edit/add/delete/rename: only new and changed files are embedded', async (t) => {
  const { home, root } = await setup(baseTree);
  const ports = countingPorts(home);
  const first = await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  t.is(first.summary.indexed, 3);
  const chunks0 = first.summary.chunksEmbedded;
  t.true(chunks0 >= 3);
  t.is(ports.embedded, chunks0);

  // no change: zero embedding calls, zero model loads
  ports.embedded = 0;
  const same = await updateSources('Docs', 'all', { ports }, home);
  t.is(ports.embedded, 0);
  t.is(ports.opens, 1);
  t.is(same.summary.unchanged, 3);
  t.false(same.wroteSnapshot);

  // edit one, add one, delete one, rename one
  await writeFile(join(root, 'a.md'), prose('apples', 31, 9));
  await writeFile(join(root, 'd.md'), prose('dolphins', 10, 4));
  await unlink(join(root, 'b.txt'));
  await rename(join(root, 'sub/c.py'), join(root, 'sub/c2.py'));
  ports.embedded = 0;
  const upd = await updateSources('Docs', 'all', { ports }, home);
  t.is(upd.summary.indexed, 3); // a (changed), d (new), c2 (rename = addition)
  t.is(upd.summary.removed, 2); // b (deleted), c.py (rename = deletion)
  t.is(upd.summary.unchanged, 0);
  const snap = await openSnapshot(snapshotPath(DOCS_ID, home));
  t.deepEqual(
    snap!.data.docs.map((d) => d.path.slice(root.length + 1)),
    ['a.md', 'd.md', 'sub/c2.py'],
  );
  t.is(ports.embedded, upd.summary.chunksEmbedded);
  snap!.close();

  const cfg = await findStore('Docs', home);
  t.is(cfg.sources[0]!.files, 3);
  t.is(cfg.sources[0]!.status, 'READY');
  t.truthy(cfg.sources[0]!.lastIndexedAt);
  t.deepEqual(Object.keys(cfg.sources[0]!.hashes).sort(), snap!.data.docs.map((d) => d.path).sort());
});

test('search finds the matching document and never returns a disabled source', async (t) => {
  const { home, root } = await setup({ 'x/apples.md': prose('apples', 20, 1) });
  const other = await mkdtemp(join(tmpdir(), 'kortty-src2-'));
  await writeTree(other, { 'bikes.md': prose('bicycles', 20, 2) });
  const ports = countingPorts(home);
  await addSources(
    'Docs',
    [
      { kind: 'folder', path: root },
      { kind: 'folder', path: other },
    ],
    { ports },
    home,
  );
  const deps = createSearchDeps(home);
  try {
    let cfg = await findStore('Docs', home);
    let res = await search({ stores: [cfg], query: 'bicycles' }, deps);
    t.true(res.excerpts.length > 0);
    t.true(res.excerpts[0]!.path.endsWith('bikes.md'));
    t.true(res.block.includes('[R1]'));

    const bikes = cfg.sources.find((s) => s.path === other)!;
    await setSourceEnabled('Docs', bikes.id, false, home);
    cfg = await findStore('Docs', home);
    res = await search({ stores: [cfg], query: 'bicycles' }, deps);
    t.false(res.excerpts.some((e) => e.path.startsWith(other)));
    t.false(res.block.includes('bikes.md'));

    await setSourceEnabled('Docs', bikes.id, true, home);
    cfg = await findStore('Docs', home);
    res = await search({ stores: [cfg], query: 'bicycles' }, deps);
    t.true(res.excerpts[0]!.path.endsWith('bikes.md'));

    const removed = await removeSource('Docs', bikes.id, { ports }, home);
    t.is(removed.summary.removed, 1);
    cfg = await findStore('Docs', home);
    t.is(cfg.sources.length, 1);
    res = await search({ stores: [cfg], query: 'bicycles' }, deps);
    t.false(res.excerpts.some((e) => e.path.startsWith(other)));
    // the original files are untouched
    t.is(await readFile(join(other, 'bikes.md'), 'utf8'), prose('bicycles', 20, 2));
  } finally {
    await deps.close();
  }
});

test('a deleted root is an incremental deletion: MISSING with no chunks', async (t) => {
  const { home, root } = await setup(baseTree);
  const ports = countingPorts(home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  await rm(root, { recursive: true });
  const res = await updateSources('Docs', 'all', { ports }, home);
  t.is(res.summary.removed, 3);
  const cfg = await findStore('Docs', home);
  t.is(cfg.sources[0]!.status, 'MISSING');
  t.is(cfg.sources[0]!.chunks, 0);
  t.deepEqual(cfg.sources[0]!.hashes, {});
  const snap = await openSnapshot(snapshotPath(DOCS_ID, home));
  t.is(snap!.data.docs.length, 0);
  snap!.close();
});

test('a symlink root is an ERROR and keeps the previous snapshot byte-identical', async (t) => {
  const { home, root } = await setup(baseTree);
  const ports = countingPorts(home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  const before = await readFile(snapshotPath(DOCS_ID, home));
  const moved = `${root}-moved`;
  await rename(root, moved);
  await symlink(moved, root);
  await updateSources('Docs', 'all', { ports }, home);
  const cfg = await findStore('Docs', home);
  t.is(cfg.sources[0]!.status, 'ERROR');
  t.regex(cfg.sources[0]!.statusReason ?? '', /symbolic link/);
  t.is(cfg.sources[0]!.files, 3);
  t.deepEqual(await readFile(snapshotPath(DOCS_ID, home)), before);
});

test('overlapping and duplicate sources are rejected naming the existing source', async (t) => {
  const { home, root } = await setup(baseTree);
  const ports = countingPorts(home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  const cfgBefore = await readFile(storeConfigPath(DOCS_ID, home));
  const e1 = await t.throwsAsync(addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home));
  t.is((e1 as { code?: string }).code, 'SOURCE_EXISTS');
  const e2 = await t.throwsAsync(
    addSources('Docs', [{ kind: 'folder', path: join(root, 'sub') }], { ports }, home),
  );
  t.is((e2 as { code?: string }).code, 'SOURCE_OVERLAP');
  t.true(e2!.message.includes(root));
  const e3 = await t.throwsAsync(
    addSources('Docs', [{ kind: 'file', path: join(root, 'a.md') }], { ports }, home),
  );
  t.is((e3 as { code?: string }).code, 'SOURCE_EXISTS');
  t.deepEqual(await readFile(storeConfigPath(DOCS_ID, home)), cfgBefore);
});

for (const state of ['scanning', 'extracting', 'embedding', 'writing'] as const) {
  test(`cancel while ${state} leaves snapshot and source table byte-identical`, async (t) => {
    const { home, root } = await setup(baseTree);
    const ports = countingPorts(home);
    await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
    const snapBefore = await readFile(snapshotPath(DOCS_ID, home));
    const cfgBefore = await readFile(storeConfigPath(DOCS_ID, home));
    await writeFile(join(root, 'a.md'), prose('apricots', 40, 7));
    await writeFile(join(root, 'e.md'), prose('eagles', 40, 8));
    const ac = new AbortController();
    const err = await t.throwsAsync(
      updateSources(
        'Docs',
        'all',
        {
          ports,
          signal: ac.signal,
          onProgress: (p) => {
            if (p.state === state) ac.abort();
          },
        },
        home,
      ),
    );
    t.is((err as { code?: string }).code, 'JOB_CANCELLED');
    t.deepEqual(await readFile(snapshotPath(DOCS_ID, home)), snapBefore);
    t.deepEqual(await readFile(storeConfigPath(DOCS_ID, home)), cfgBefore);
  });
}

test('declining the review changes nothing', async (t) => {
  const { home, root } = await setup(baseTree);
  const ports = countingPorts(home);
  const err = await t.throwsAsync(
    addSources('Docs', [{ kind: 'folder', path: root }], { ports, confirm: async () => false }, home),
  );
  t.is((err as { code?: string }).code, 'JOB_CANCELLED');
  t.is(ports.embedded, 0);
  t.is((await findStore('Docs', home)).sources.length, 0);
  t.is(await openSnapshot(snapshotPath(DOCS_ID, home)), null);
});

test('two builds of the same tree give identical chunk ids and identical index bytes', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'kortty-det-'));
  await writeTree(root, { ...baseTree, 'big.md': prose('zebras', 400, 5) });
  const bytes: Buffer[] = [];
  for (let i = 0; i < 2; i++) {
    const home = await homeWithStarter();
    await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
    await addSources('Docs', [{ kind: 'folder', path: root }], { ports: countingPorts(home) }, home);
    bytes.push(await readFile(snapshotPath(DOCS_ID, home)));
  }
  t.true(bytes[0]!.equals(bytes[1]!));
});
