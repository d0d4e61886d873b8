import { mkdtemp, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath, storeConfigPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import { startWatchService, type WatchEvent } from '../../src/watch/watch-service.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { waitFor } from '../plugin/tmux-harness.js';

// A source must neither contain the data directory ($KORTTY_HOME) nor lie inside it: it would
// index store.json, job files and run logs, and a watcher would re-sync itself for ever. Refused
// when added (also through a symbolic link to either side), and at sync time for a source that
// reached store.json another way (a hand edit).

/** A data directory inside a folder of documents (as ~/.kortty inside ~/). */
async function setup() {
  const base = await mkdtemp(join(tmpdir(), 'kortty-datadir-'));
  const home = join(base, 'data');
  await rename(await homeWithStarter(), home);
  process.env.KORTTY_HOME = home;
  await writeTree(base, { 'docs/a.md': prose('apples', 20, 1) });
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  return { base, home };
}

const codeOf = (err: unknown) => (err as { code?: string } | undefined)?.code;

test('adding a source that contains or lies inside the data directory is refused with the reason', async (t) => {
  const { base, home } = await setup();
  const cfgBefore = await readFile(storeConfigPath((await findStore('Docs', home)).id, home));

  const contains = await t.throwsAsync(addSources('Docs', [{ kind: 'folder', path: base }], {}, home));
  t.is(codeOf(contains), 'SOURCE_DATA_DIR');
  t.is(contains!.message.split(';')[0], `${base} contains the kortty data directory ${home}`);

  await writeTree(home, { 'inside/x.md': 'x\n' });
  const inside = await t.throwsAsync(
    addSources('Docs', [{ kind: 'folder', path: join(home, 'inside') }], {}, home),
  );
  t.is(codeOf(inside), 'SOURCE_DATA_DIR');
  t.regex(inside!.message, /lies inside the kortty data directory/);
  const file = await t.throwsAsync(
    addSources(
      'Docs',
      [{ kind: 'file', path: storeConfigPath((await findStore('Docs', home)).id, home) }],
      {},
      home,
    ),
  );
  t.is(codeOf(file), 'SOURCE_DATA_DIR');

  // Through symbolic links, on the source's side and on the data directory's: realpath on both.
  const outside = await mkdtemp(join(tmpdir(), 'kortty-links-'));
  await symlink(base, join(outside, 'link-to-base'));
  const viaLink = await t.throwsAsync(
    addSources('Docs', [{ kind: 'folder', path: join(outside, 'link-to-base') }], {}, home),
  );
  t.is(codeOf(viaLink), 'SOURCE_DATA_DIR');
  await symlink(home, join(outside, 'home-link'));
  const linkedHome = await t.throwsAsync(
    addSources('Docs', [{ kind: 'folder', path: base }], {}, join(outside, 'home-link')),
  );
  t.is(codeOf(linkedHome), 'SOURCE_DATA_DIR');

  t.deepEqual(
    await readFile(storeConfigPath((await findStore('Docs', home)).id, home)),
    cfgBefore,
    'nothing was added',
  );
  // An unrelated folder next to it is fine.
  const res = await addSources('Docs', [{ kind: 'folder', path: join(base, 'docs') }], {}, home);
  t.is(res.summary.indexed, 1);
});

test('a source holding the data directory that reached store.json by hand is refused at sync time', async (t) => {
  const { base, home } = await setup();
  await addSources('Docs', [{ kind: 'folder', path: join(base, 'docs') }], {}, home);
  const cfg = JSON.parse(
    await readFile(storeConfigPath((await findStore('Docs', home)).id, home), 'utf8'),
  ) as StoreConfig;
  cfg.sources[0]!.path = base; // now it contains the data directory
  await writeFile(storeConfigPath((await findStore('Docs', home)).id, home), JSON.stringify(cfg));
  const res = await updateSources('Docs', 'all', {}, home);
  t.is(res.statuses[cfg.sources[0]!.id], 'ERROR');
  const src = (await findStore('Docs', home)).sources[0]!;
  t.regex(src.statusReason ?? '', /contains the kortty data directory/);
  const snap = await openSnapshot(snapshotPath((await findStore('Docs', home)).id, home));
  t.false(
    snap?.data.docs.some((d) => d.path.startsWith(home)) ?? false,
    'nothing of the data directory was indexed',
  );
  snap?.close();
});

test('the watcher does not watch such a source, so its own writes never start another sync', async (t) => {
  const { base, home } = await setup();
  await addSources('Docs', [{ kind: 'folder', path: join(base, 'docs') }], {}, home);
  const cfg = JSON.parse(
    await readFile(storeConfigPath((await findStore('Docs', home)).id, home), 'utf8'),
  ) as StoreConfig;
  cfg.sources[0]!.path = base;
  cfg.sources[0]!.sync = 'automatic';
  await writeFile(storeConfigPath((await findStore('Docs', home)).id, home), JSON.stringify(cfg));
  const events: WatchEvent[] = [];
  // Every reconcile rescans (a sync) by design; the count of syncs may follow the reconciles,
  // never run ahead of them as a loop of the watcher's own writes would.
  const svc = await startWatchService({
    home,
    pollMs: 100,
    reconcileMs: 4000,
    schedule: { quietMs: 100 },
    log: (e) => events.push(e),
  });
  try {
    await waitFor(
      () => (events.filter((e) => e.type === 'reconcile').length >= 2 ? true : undefined),
      'two reconciles',
      60_000,
      100,
    );
    const syncs = events.filter((e) => e.type === 'sync-start').length;
    t.true(syncs <= 3, `${syncs} syncs over 2 reconciles: ${JSON.stringify(events.map((e) => e.type))}`);
    t.true(events.some((e) => e.type === 'refused'));
    t.false(events.some((e) => e.type === 'watching'));
    const src = (await findStore('Docs', home)).sources[0]!;
    t.is(src.status, 'ERROR');
    t.regex(src.statusReason ?? '', /contains the kortty data directory/);
  } finally {
    await svc.stop();
  }
});
