import { open, stat } from 'node:fs/promises';
import test from 'ava';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { search } from '../../src/retrieve/search.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore, listStores } from '../../src/store/engine.js';
import { createServices } from '../../src/tui/services.js';
import { storeStatus } from '../../src/tui/state.js';
import { countingPorts, homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';

// The TUI's stores table shows a store the last search could not use as DAMAGED, from the same
// record `status` and `store list` read; the healthy store keeps its own status.

test('a store whose snapshot a search found damaged shows as DAMAGED in the stores table', async (t) => {
  const home = await homeWithStarter();
  for (const [name, topic] of [
    ['Orchard', 'kiwi orchard irrigation'],
    ['Glaciers', 'kiwi glacier moraine'],
  ] as const) {
    const docs = await tempDir(`kortty-tui-health-${name}-`);
    await writeTree(docs, { 'a.md': `# ${topic}\n\n${prose(topic, 8, 2)}` });
    await createStore({ name, modelId: 'kortty-lexical-starter' }, home);
    await addSources(name, [{ kind: 'folder', path: docs }], { ports: countingPorts(home) }, home);
  }
  const broken = await findStore('Glaciers', home);
  const path = snapshotPath(broken.id, home);
  const fh = await open(path, 'r+');
  await fh.write(Buffer.from([0x5a]), 0, 1, Math.floor((await stat(path)).size / 2));
  await fh.close();

  const services = createServices(home);
  const before = await services.loadStores();
  t.deepEqual(services.storeHealth?.(), {}, 'nothing is known before a search');
  t.deepEqual(
    before.map((s) => storeStatus(s, undefined, [], services.storeHealth?.())),
    ['READY', 'READY'],
  );

  const deps = createSearchDeps(home);
  await search({ stores: await listStores(home), query: 'kiwi' }, deps).finally(() => deps.close());
  const stores = await services.loadStores();
  const health = services.storeHealth?.() ?? {};
  t.deepEqual(health, { [broken.id]: 'DAMAGED' });
  t.deepEqual(Object.fromEntries(stores.map((s) => [s.name, storeStatus(s, undefined, [], health)])), {
    Glaciers: 'DAMAGED',
    Orchard: 'READY',
  });
});
