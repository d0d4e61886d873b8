import { lstat, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { search } from '../../src/retrieve/search.js';
import { acquireLock } from '../../src/storage/lock.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { startFakeQdrant } from '../helpers/fake-qdrant.js';
import { countingPorts, homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';
import { check, createRow, rng, type SuiteRow } from './common.js';

// One broken store never breaks the others, and the data stays private:
// - a snapshot damaged at a random place (a flipped byte, or torn at a random length): search
//   answers from the healthy store and names the damaged one with its fix;
// - a Qdrant store whose server refuses the connection, or holds it past the per-store deadline:
//   the local store answers, within the deadline plus a margin, and the Qdrant store is named;
// - private modes under random umasks (000..077): every path a create/add/search/status cycle
//   writes is 0700 (directories) or 0600 (files);
// - a lock with a heartbeat in the future and a damaged or other-host owner is taken over, and a
//   live holder whose heartbeat was pushed into the future keeps its lock.

export interface IsolationSuiteOptions {
  log?: (line: string) => void;
  damaged: number;
  unreachable: number;
  umasks: number;
  locks: number;
}

async function storeOf(home: string, name: string, topic: string, opts: Record<string, unknown> = {}) {
  const docs = await tempDir(`kortty-rel-iso-${name}-`);
  await writeTree(docs, {
    [`${topic.replace(/ /g, '-')}.md`]: `# ${topic}\n\n${prose(topic, 12, name.length)}`,
  });
  await createStore({ name, modelId: 'kortty-lexical-starter', roles: ['text'], ...opts }, home);
  await addSources(name, [{ kind: 'folder', path: docs }], { ports: countingPorts(home) }, home);
  return findStore(name, home);
}

export async function runIsolationSuite(opts: IsolationSuiteOptions): Promise<SuiteRow[]> {
  const rows: SuiteRow[] = [];
  const rand = rng(0x150_1a7e);

  // Damaged snapshots.
  const damaged = createRow('a damaged snapshot (random byte flip or tear) is left out; the others answer');
  {
    const home = await homeWithStarter();
    const good = await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
    const bad = await storeOf(home, 'Glaciers', 'kiwi glacier moraine');
    const path = snapshotPath(bad.id, home);
    const original = await readFile(path);
    for (let i = 0; i < opts.damaged; i++) {
      const tear = rand() < 0.25;
      const at = Math.floor(rand() * original.length);
      await damaged.trial(
        async () => {
          const bytes = Buffer.from(original);
          if (!tear) bytes[at] = bytes[at]! ^ (1 << Math.floor(rand() * 8));
          await writeFile(path, tear ? bytes.subarray(0, at) : bytes);
          const deps = createSearchDeps(home);
          try {
            const res = await search({ stores: [good, bad], query: 'kiwi' }, deps);
            check(res.excerpts.length > 0, 'the healthy store answered');
            check(
              res.excerpts.every((e) => e.storeId === good.id),
              'only the healthy store',
            );
            check(
              res.failedStores.length === 1 &&
                res.failedStores[0]!.storeId === bad.id &&
                res.failedStores[0]!.kind === 'damaged' &&
                res.failedStores[0]!.fix === 'kortty-rag store rebuild Glaciers',
              () => `failedStores: ${JSON.stringify(res.failedStores)}`,
            );
          } finally {
            await deps.close();
          }
        },
        `${tear ? 'torn at' : 'flip at'} ${at}`,
      );
    }
    await writeFile(path, original);
  }
  rows.push(damaged);
  opts.log?.(`isolation: damaged ${damaged.trials} trials, ${damaged.failures} failures`);

  // Unreachable Qdrant.
  const unreachable = createRow(
    'an unreachable Qdrant store (refused or held past 300 ms) is left out in time',
  );
  {
    const home = await homeWithStarter();
    const local = await storeOf(home, 'Orchard', 'kiwi orchard irrigation');
    const q = await startFakeQdrant();
    const remote = await storeOf(home, 'Remote', 'kiwi remote cluster', {
      type: 'qdrant',
      qdrant: { url: q.url, collection: 'remote' },
    });
    const deadlineMs = 300;
    for (let i = 0; i < opts.unreachable; i++) {
      const held = i % 2 === 0;
      if (held) q.holdNext(1000);
      const deps = createSearchDeps(home, { KORTTY_STORE_DEADLINE_MS: String(deadlineMs) });
      const stores = held
        ? [local, remote]
        : [local, { ...remote, qdrant: { ...remote.qdrant!, url: 'http://127.0.0.1:9/' } }];
      await unreachable.trial(
        async () => {
          const t0 = performance.now();
          const res = await search({ stores, query: 'kiwi' }, deps);
          const ms = performance.now() - t0;
          check(
            res.excerpts.length > 0 && res.excerpts.every((e) => e.storeId === local.id),
            'local answered alone',
          );
          check(
            res.failedStores.length === 1 && res.failedStores[0]!.kind === 'unreachable',
            () => `failedStores: ${JSON.stringify(res.failedStores)}`,
          );
          // Deadline plus a generous margin for the local search on a loaded machine.
          check(ms < deadlineMs + 5000, `took ${ms.toFixed(0)} ms`);
        },
        held ? 'held' : 'refused',
      );
      q.clearFaults();
      await deps.close();
    }
    await q.close();
  }
  rows.push(unreachable);
  opts.log?.(`isolation: unreachable ${unreachable.trials} trials, ${unreachable.failures} failures`);

  // Private modes under random umasks (this process's own umask, restored after).
  const modes = createRow('private modes under random umasks (create, add, search, status)');
  const saved = process.umask();
  try {
    for (let i = 0; i < opts.umasks; i++) {
      const mask = i === 0 ? 0o000 : i === 1 ? 0o022 : Math.floor(rand() * 0o100);
      await modes.trial(
        async () => {
          // The starter model is placed by the test helper (not the product) before the umask is set.
          const starter = await homeWithStarter();
          process.umask(mask);
          const s = await storeOf(starter, 'Notes', 'kiwi orchard irrigation');
          const deps = createSearchDeps(starter);
          await search({ stores: [s], query: 'kiwi' }, deps).finally(() => deps.close());
          const { refreshStatus } = await import('../../src/app/status.js');
          await refreshStatus(starter);
          process.umask(saved);
          const open: string[] = [];
          const walk = async (p: string, top: boolean) => {
            const st = await lstat(p);
            if (st.isSymbolicLink()) return;
            if (!top && (st.mode & 0o077) !== 0) open.push(`${(st.mode & 0o777).toString(8)} ${p}`);
            if (st.isDirectory()) for (const n of await readdir(p)) await walk(join(p, n), false);
          };
          await walk(join(starter, 'rag', 'stores'), false);
          for (const f of ['status.json', 'status.txt', 'status.tmux', 'store-health.json'])
            await lstat(join(starter, 'rag', f)).then(
              (st) => (st.mode & 0o077) !== 0 && open.push(`${(st.mode & 0o777).toString(8)} rag/${f}`),
              () => {},
            );
          check(open.length === 0, () => `umask ${mask.toString(8)}: ${open.join(', ')}`);
        },
        `umask ${mask.toString(8)}`,
      );
      process.umask(saved);
    }
  } finally {
    process.umask(saved);
  }
  rows.push(modes);
  opts.log?.(`isolation: modes ${modes.trials} trials, ${modes.failures} failures`);

  // Locks with a future heartbeat.
  const locks = createRow('a lock with a future heartbeat: taken over when still, kept while alive');
  for (let i = 0; i < opts.locks; i++) {
    const kind = (['damaged', 'other-host', 'live'] as const)[i % 3]!;
    await locks.trial(async () => {
      const lock = join(await tempDir('kortty-rel-lock-'), 'lock');
      const future = new Date(Date.now() + (1 + rand() * 1000) * 3600_000);
      if (kind === 'live') {
        const holder = await acquireLock(lock, 'Docs', { staleMs: 400, heartbeatMs: 50, job: 'update' });
        try {
          await utimes(lock, future, future);
          const err = await acquireLock(lock, 'Docs', { staleMs: 400 }).then(
            async (l) => {
              await l.release();
              return undefined;
            },
            (e: Error) => e,
          );
          check(err && /an update is already running/.test(err.message), `live holder lost its lock: ${err}`);
          await holder.assertHeld();
        } finally {
          await holder.release();
        }
        return;
      }
      await mkdir(lock);
      await writeFile(
        join(lock, 'owner.json'),
        kind === 'damaged'
          ? '{"pid": 1, "host'
          : JSON.stringify({
              pid: process.pid,
              host: 'elsewhere.example',
              nonce: 'n',
              job: 'sync',
              startedAt: '',
            }),
      );
      await utimes(lock, future, future);
      const l = await acquireLock(lock, 'Docs', { staleMs: 400 });
      await l.release();
    }, kind);
  }
  rows.push(locks);
  return rows;
}
