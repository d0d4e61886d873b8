import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { readStatus } from '../../src/status/status-file.js';
import { formatStatus } from '../../src/status/status-model.js';
import { snapshotPath, watcherLockPath } from '../../src/storage/paths.js';
import {
  addSources,
  createStore,
  findStore,
  setSourceOptions,
  setSourceSync,
  updateSources,
} from '../../src/store/engine.js';
import { startWatchService, type WatchEvent, type WatchOptions } from '../../src/watch/watch-service.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { BIN, waitFor } from '../plugin/tmux-harness.js';

// The watcher on real files with the real engine and the generated starter model. Every change
// must end in a snapshot byte-identical to a from-scratch index of the same tree (builds are
// deterministic: same store name and source path give the same ids). Tests wait on conditions
// (the store, the snapshot) with a timeout; nothing sleeps to assert.

const FAST: Partial<WatchOptions> = { pollMs: 150, reconcileMs: 600_000, schedule: { quietMs: 300 } };

async function setup(files: Record<string, string>, name = 'Docs') {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-watch-src-'));
  await writeTree(root, files);
  await createStore({ name, modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
  await addSources(name, [{ kind: 'folder', path: root, sync: 'automatic' }], {}, home);
  const store = await findStore(name, home);
  return { home, root, storeId: store.id, sourceId: store.sources[0]!.id };
}

/** A user's edit, retried while the watcher's own sync holds the store lock (STORE_BUSY). */
function whenFree<T>(edit: () => Promise<T>, what: string): Promise<T> {
  return waitFor(
    () => edit().catch((err) => (isKorttyError(err, 'STORE_BUSY') ? undefined : Promise.reject(err))),
    what,
  );
}

async function start(home: string, opts: Partial<WatchOptions> = {}) {
  const events: WatchEvent[] = [];
  const svc = await startWatchService({ ...FAST, ...opts, home, log: (e) => events.push(e) });
  return { svc, events };
}

async function digest(home: string, storeId: string): Promise<string | undefined> {
  try {
    return createHash('sha256')
      .update(await readFile(snapshotPath(storeId, home)))
      .digest('hex');
  } catch {
    return undefined;
  }
}

async function docsOf(home: string, storeId: string) {
  const snap = await openSnapshot(snapshotPath(storeId, home));
  const docs = (snap?.data.docs ?? []).map(
    (d) => `${d.path} ${d.sha256.slice(0, 8)} ${d.chunks.map((c) => c.id).join(',')}`,
  );
  snap?.close();
  return docs;
}

/** A from-scratch index of `root` as it is now, in a fresh home, under the same store name. */
async function fromScratch(root: string, name = 'Docs') {
  const saved = process.env.KORTTY_HOME;
  const home = await homeWithStarter();
  process.env.KORTTY_HOME = saved;
  await createStore({ name, modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
  await addSources(name, [{ kind: 'folder', path: root, sync: 'automatic' }], {}, home);
  const store = await findStore(name, home);
  return {
    digest: (await digest(home, store.id))!,
    docs: await docsOf(home, store.id),
    record: recordOf(store.sources[0]!),
  };
}

/** What store.json says about a source after a sync; the snapshot is activated before it is written. */
function recordOf(s: { status: string; files: number; hashes?: Record<string, string> }) {
  return JSON.stringify({ status: s.status, files: s.files, hashes: s.hashes ?? {} });
}

async function converges(
  t: { is: (a: unknown, b: unknown, m?: string) => void },
  home: string,
  storeId: string,
  root: string,
  what: string,
) {
  const want = await fromScratch(root);
  // Both halves of a sync's commit: the snapshot, then the source's record in store.json.
  const got = await waitFor(
    async () =>
      (await digest(home, storeId)) === want.digest &&
      recordOf((await findStore(storeId, home)).sources[0]!) === want.record
        ? true
        : undefined,
    `${what}: snapshot and store.json = from-scratch index`,
    60_000,
    100,
  ).catch(async (err) => {
    t.is((await docsOf(home, storeId)).join('\n'), want.docs.join('\n'), what);
    t.is(recordOf((await findStore(storeId, home)).sources[0]!), want.record, what);
    throw err;
  });
  t.is(got, true, what);
}

test.serial(
  'create, modify, delete, rename and a burst of 1,000 writes each converge to a from-scratch index',
  async (t) => {
    const { home, root, storeId } = await setup({
      'a.md': prose('apples', 20, 1),
      'sub/b.txt': prose('bicycles', 20, 2),
      'c.py': `# carrots\n${prose('carrots', 10, 3)}`,
    });
    const { svc, events } = await start(home);
    try {
      await writeFile(join(root, 'd.md'), prose('dolphins', 15, 4));
      await converges(t, home, storeId, root, 'create');
      await writeFile(join(root, 'a.md'), prose('apples', 25, 9));
      await converges(t, home, storeId, root, 'modify');
      await unlink(join(root, 'sub/b.txt'));
      await converges(t, home, storeId, root, 'delete');
      await rename(join(root, 'c.py'), join(root, 'sub/c2.py'));
      await converges(t, home, storeId, root, 'rename');

      const syncsBefore = events.filter((e) => e.type === 'sync-start').length;
      await mkdir(join(root, 'burst'));
      for (let i = 0; i < 1000; i++)
        await writeFile(join(root, 'burst', `b${i % 40}.md`), prose(`burst${i % 40}`, 3, i));
      await converges(t, home, storeId, root, 'burst');
      const syncs = events.filter((e) => e.type === 'sync-start').length - syncsBefore;
      t.true(syncs >= 1 && syncs <= 10, `1,000 writes coalesced into ${syncs} sync(s)`);
      t.false(
        events.some((e) => e.type === 'limited'),
        'no limited monitoring along the way',
      );
      t.false(events.some((e) => e.type === 'sync-failed'));
    } finally {
      await svc.stop();
    }
  },
);

test.serial(
  'a forced watcher error flips the source to limited monitoring; manual updates and rescans still work',
  async (t) => {
    const { home, root, storeId, sourceId } = await setup({ 'a.md': prose('apples', 20, 1) });
    process.env.KORTTY_WATCH_FAIL = sourceId;
    const { svc } = await start(home, { reconcileMs: 1500 });
    try {
      const src = await waitFor(async () => {
        const s = (await findStore(storeId, home)).sources[0]!;
        return s.limitedMonitoring ? s : undefined;
      }, 'limited monitoring in store.json');
      t.is(
        src.limitedMonitoring,
        'watcher error (EFORCED): forced watcher error (KORTTY_WATCH_FAIL); relying on periodic rescans',
      );
      // status.json is refreshed right after the edit releases the store lock.
      const line = await waitFor(async () => {
        const l = formatStatus(await readStatus(home), 'tmux');
        return /limited monitoring/.test(l) ? l : undefined;
      }, 'the status line');
      t.regex(line, /^#\[fg=colour208\]RAG .*limited monitoring/);

      // "Update now" by hand (retried while the watcher's own rescan holds the store lock).
      await writeFile(join(root, 'manual.md'), prose('manual', 10, 5));
      const res = await waitFor(
        () =>
          updateSources(storeId, 'all', {}, home).catch((err) =>
            isKorttyError(err, 'STORE_BUSY') ? undefined : Promise.reject(err),
          ),
        'a manual update',
      );
      t.is(res.statuses[sourceId], 'READY');
      t.true((await docsOf(home, storeId)).some((d) => d.includes('manual.md')));

      // Without a working watcher, the periodic rescan still converges.
      await writeFile(join(root, 'later.md'), prose('later', 10, 6));
      await converges(t, home, storeId, root, 'rescan after the watcher failed');
      t.truthy(
        (await findStore(storeId, home)).sources[0]!.limitedMonitoring,
        'still limited while the watcher keeps failing',
      );
    } finally {
      delete process.env.KORTTY_WATCH_FAIL;
      await svc.stop();
    }
    t.is(
      (await findStore(storeId, home)).sources[0]!.limitedMonitoring,
      undefined,
      'cleared when the watcher stops',
    );
  },
);

test.serial('root removed → MISSING → root back → re-indexed', async (t) => {
  const files = { 'a.md': prose('apples', 20, 1), 'sub/b.md': prose('bees', 20, 2) };
  const { home, root, storeId, sourceId } = await setup(files);
  const { svc, events } = await start(home);
  try {
    await rm(root, { recursive: true });
    const missing = await waitFor(async () => {
      const s = (await findStore(storeId, home)).sources[0]!;
      return s.status === 'MISSING' ? s : undefined;
    }, 'status MISSING');
    t.is(missing.files, 0);
    t.deepEqual(await docsOf(home, storeId), []);
    // status.json follows once the job that recorded MISSING (and any queued behind it) is over.
    const line = await waitFor(async () => {
      const l = formatStatus(await readStatus(home), 'plain');
      return /error 1/.test(l) ? l : undefined;
    }, 'the status line to show the error');
    t.regex(line, /error 1/);
    await waitFor(
      () => events.find((e) => e.type === 'root-missing' && e.source === sourceId),
      'the watcher to notice the missing root',
    );

    await writeTree(root, { ...files, 'c.md': prose('cats', 10, 3) });
    await converges(t, home, storeId, root, 'root back');
    const back = (await findStore(storeId, home)).sources[0]!;
    t.is(back.status, 'READY');
    t.is(back.files, 3);
    t.true(
      events.some((e) => e.type === 'root-back' && e.source === sourceId),
      JSON.stringify(events.map((e) => e.type)),
    );
    // And it is watched again: a later edit is picked up by the watcher.
    await writeFile(join(root, 'd.md'), prose('dogs', 10, 4));
    await converges(t, home, storeId, root, 'edit after the root came back');
  } finally {
    await svc.stop();
  }
});

test.serial('new sources, manual mode and option changes are picked up from store.json', async (t) => {
  const { home, storeId } = await setup({ 'a.md': prose('apples', 10, 1) });
  const { svc, events } = await start(home);
  try {
    await waitFor(() => events.find((e) => e.type === 'watching'), 'the first source to be watched');
    const second = await mkdtemp(join(tmpdir(), 'kortty-watch-src2-'));
    await writeTree(second, { 'x.md': prose('xylophones', 10, 2) });
    await whenFree(
      () => addSources('Docs', [{ kind: 'folder', path: second, sync: 'automatic' }], {}, home),
      'adding the second source',
    );
    const id2 = (await findStore(storeId, home)).sources[1]!.id;
    await waitFor(
      () => events.find((e) => e.type === 'watching' && e.source === id2),
      'the new source to be watched',
    );
    await writeFile(join(second, 'y.md'), prose('yaks', 10, 3));
    await waitFor(
      async () => ((await docsOf(home, storeId)).some((d) => d.includes('y.md')) ? true : undefined),
      'y.md indexed',
    );

    // An option change restarts the source's watch and rescans it with the new rules.
    const id1 = (await findStore(storeId, home)).sources[0]!.id;
    const watchedBefore = events.filter((e) => e.type === 'watching' && e.source === id1).length;
    await whenFree(() => setSourceOptions('Docs', id1, { exclude: ['a.md'] }, home), 'the option change');
    await waitFor(
      async () => ((await docsOf(home, storeId)).some((d) => d.includes('/a.md ')) ? undefined : true),
      'a.md dropped by the new exclude glob',
    );
    t.true(events.filter((e) => e.type === 'watching' && e.source === id1).length > watchedBefore);

    await whenFree(() => setSourceSync('Docs', id2, 'manual', home), 'switching to manual');
    const gone = await waitFor(
      () => events.find((e) => e.type === 'unwatched' && e.source === id2),
      'the manual source to be unwatched',
    );
    t.is('path' in gone ? gone.path : '', second);
  } finally {
    await svc.stop();
  }
});

test.serial(
  'an event flood marks limited monitoring (event overflow) until it calms down; the index still converges',
  async (t) => {
    const { home, root, storeId, sourceId } = await setup({ 'a.md': prose('apples', 10, 1) });
    const { svc, events } = await start(home, {
      schedule: { quietMs: 300, overflowEvents: 30, overflowWindowMs: 5000 },
    });
    try {
      await waitFor(() => events.find((e) => e.type === 'watching'), 'watching');
      for (let i = 0; i < 120; i++) await writeFile(join(root, `f${i % 60}.md`), prose(`flood${i}`, 2, i));
      await waitFor(
        () => events.find((e) => e.type === 'limited' && e.source === sourceId),
        'event overflow',
      );
      await converges(t, home, storeId, root, 'after the flood');
      await waitFor(
        async () =>
          (await findStore(storeId, home)).sources[0]!.limitedMonitoring === undefined ? true : undefined,
        'limited monitoring lifted',
      );
      const limited = events.find((e) => e.type === 'limited');
      t.regex(
        limited && 'reason' in limited ? limited.reason : '',
        /^event overflow \(more than 30 changes within 5 s/,
      );
    } finally {
      await svc.stop();
    }
  },
);

test.serial(
  'a network filesystem gets limited monitoring with the reason; one watcher per KORTTY_HOME',
  async (t) => {
    const { home, storeId } = await setup({ 'a.md': prose('apples', 10, 1) });
    const { svc } = await start(home, { detectNetworkFs: async () => 'nfs4' });
    try {
      const src = await waitFor(async () => {
        const s = (await findStore(storeId, home)).sources[0]!;
        return s.limitedMonitoring ? s : undefined;
      }, 'limited monitoring');
      t.is(
        src.limitedMonitoring,
        'network filesystem (nfs4): changes made elsewhere are not reported; relying on periodic rescans',
      );
      const err = await t.throwsAsync(startWatchService({ home }));
      t.true(isKorttyError(err, 'WATCHER_RUNNING'));
      t.regex(err!.message, new RegExp(`a watcher is already running for ${home} \\(pid ${process.pid}\\)`));
    } finally {
      await svc.stop();
    }
    // The lock is released: a new watcher starts.
    const again = await startWatchService({ home, ...FAST });
    await again.stop();
  },
);

test.serial(
  'kortty-rag watch: SIGTERM during a sync stops cleanly (old or complete new snapshot), lock released',
  async (t) => {
    const { home, root, storeId } = await setup({ 'a.md': prose('apples', 10, 1) });
    const before = await digest(home, storeId);
    const more: Record<string, string> = {};
    for (let i = 0; i < 40; i++) more[`m${i}.md`] = prose(`more${i}`, 30, i);
    await writeTree(root, more); // changed while no watcher ran: the start-up rescan indexes them
    const child = spawn(process.execPath, [BIN, 'watch', '--json', '--poll-ms', '150'], {
      env: { ...process.env, KORTTY_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitFor(
      () => (out.includes('"type":"sync-start"') ? true : undefined),
      'the start-up sync to begin',
    );
    // A second watcher for the same home is refused while this one runs.
    const second = await promisify(execFile)(process.execPath, [BIN, 'watch'], {
      env: { ...process.env, KORTTY_HOME: home },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    t.is(second.code, 1);
    t.regex(second.stderr, /a watcher is already running for .* \(pid \d+\)/);
    child.kill('SIGTERM');
    t.is(await exited, 0, err);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as WatchEvent);
    t.is(lines.at(-1)!.type, 'stop');
    t.true(lines.some((e) => e.type === 'sync-done' || e.type === 'sync-cancelled'));
    await t.throwsAsync(stat(watcherLockPath(home)), { code: 'ENOENT' });
    const after = await digest(home, storeId);
    const complete = (await fromScratch(root)).digest;
    t.true(after === before || after === complete, 'the snapshot is the old one or the complete new one');
    // store.json agrees with the snapshot either way.
    const src = (await findStore(storeId, home)).sources[0]!;
    t.is(src.files, (await docsOf(home, storeId)).length);
  },
);
