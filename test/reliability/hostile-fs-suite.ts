import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { search } from '../../src/retrieve/search.js';
import { snapshotPath, storeConfigPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import type { SyncResult } from '../../src/store/index-job.js';
import { homeWithStarter, prose } from '../helpers/store-env.js';
import { deadline } from '../helpers/wait.js';
import { check, createRow, type SuiteRow, scratchDirSync } from './common.js';

// A hostile folder: a separate process (swapper.ts) swaps directories and files of a source for
// symbolic links (to a private folder outside the source, to /dev/zero) and for a FIFO, in a tight
// loop with random sub-millisecond pauses, while syncs run one after the other. Each sync must
// end in bounded time and memory; no text, file name or file of the private folder may ever reach
// a snapshot, store.json, a review or a search result; a swapped file is indexed only with its
// own content or skipped with a reason; good files keep being indexed, and once the swapping
// stops an update indexes them all.

const SWAPPER = fileURLToPath(new URL('./swapper.js', import.meta.url));
const SECRET = 'qzxvjkfrobnitzsecret';
const SECRET_NAME = 'only-in-the-private-folder';

export interface HostileFsOptions {
  /** Syncs while directories are swapped. */
  dirSyncs: number;
  /** Syncs while a file is swapped for links to /dev/zero, to the private folder and a FIFO. */
  fileSyncs: number;
  /** Longest a single sync may take (default 120 s). */
  syncDeadlineMs?: number;
  log?: (line: string) => void;
}

interface Swapper {
  stop(): Promise<{ swaps: number; errors: number }>;
}

function startSwapper(spec: object, seed: number): Swapper {
  const child: ChildProcess = fork(SWAPPER, [JSON.stringify({ ...spec, seed })], { stdio: 'inherit' });
  const result = new Promise<{ swaps: number; errors: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { swaps: number; errors: number }));
    child.once('exit', (code) => reject(new Error(`the swapper exited (${code}) without a report`)));
  });
  return {
    async stop() {
      child.send('stop');
      const r = await result;
      await new Promise((res) => (child.exitCode === null ? child.once('exit', res) : res(null)));
      return r;
    },
  };
}

/** Texts of every chunk and every path in the store's snapshot, and the chunk texts by path. */
async function snapshotTexts(
  home: string,
  storeId: string,
): Promise<{ texts: string[]; paths: string[]; byPath: Map<string, string[]> }> {
  const snap = await openSnapshot(snapshotPath(storeId, home));
  if (!snap) return { texts: [], paths: [], byPath: new Map() };
  try {
    return {
      texts: snap.data.docs.flatMap((d) => d.chunks.map((c) => c.text)),
      paths: snap.data.docs.map((d) => d.path),
      byPath: new Map(snap.data.docs.map((d) => [d.path, d.chunks.map((c) => c.text)])),
    };
  } finally {
    snap.close();
  }
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

export async function runHostileFsSuite(opts: HostileFsOptions): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const rows: SuiteRow[] = [];
  if (opts.dirSyncs > 0) rows.push(await directorySwaps(opts, log));
  if (opts.fileSyncs > 0) rows.push(await fileSwaps(opts, log));
  return rows;
}

/** Folders (and a file in one) swapped for links into a private folder during syncs. */
async function directorySwaps(opts: HostileFsOptions, log: (l: string) => void): Promise<SuiteRow> {
  const row = createRow(
    `directory swap race: folders and files ↔ links to a private folder during ${opts.dirSyncs} syncs`,
  );
  const root = scratchDirSync('kortty-rel-swapdir-');
  const secret = scratchDirSync('kortty-rel-private-');
  // Twelve folders of eight files: the walk spends long enough in each folder that a folder
  // listed as a directory is often a link by the time the walk reaches it.
  const good: Record<string, string> = { 'top.md': prose('harbor', 12, 1) };
  const names = Array.from({ length: 8 }, (_, f) => `f${f}.md`);
  for (let d = 0; d < 12; d++)
    names.forEach((n, f) => {
      good[`d${String(d).padStart(2, '0')}/${n}`] = prose(`lantern${d}x${f}`, 6, d * 8 + f);
    });
  for (const [rel, text] of Object.entries(good)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  // Same names as the good files, so a redirected open finds something to read.
  for (const name of [...names, `${SECRET_NAME}.md`])
    writeFileSync(join(secret, name), `${SECRET} ${prose(SECRET, 6, 9)}`);
  // Backdated access times: reading a file or listing the folder would move them (relatime).
  const untouched = new Date(Date.now() - 3 * 24 * 3600_000);
  for (const name of ['.', ...names, `${SECRET_NAME}.md`]) {
    const p = join(secret, name);
    utimesSync(p, untouched, statSync(p).mtime);
  }
  const accessTimes = () => [secret, ...names.map((n) => join(secret, n))].map((p) => statSync(p).atimeMs);
  const atime0 = accessTimes();
  const home = await homeWithStarter();
  const { id: storeId } = await createStore({ name: 'Swap', modelId: 'kortty-lexical-starter' }, home);
  const ports = createDefaultPorts(home);
  await addSources('Swap', [{ kind: 'folder', path: root }], { ports }, home);
  const dirLink = (d: string) => ({
    kind: 'dir-link',
    path: join(root, d),
    target: secret,
    park: join(root, `.park-${d}`),
  });
  const flip = (rel: string) => ({
    kind: 'flip',
    path: join(root, rel),
    versions: [good[rel]!, prose('lantern', 7, rel.length)],
  });
  const swapper = startSwapper(
    {
      swaps: [
        dirLink('d03'),
        dirLink('d06'),
        dirLink('d09'),
        dirLink('d11'),
        {
          kind: 'file-link',
          path: join(root, 'd06/f3.md'),
          target: join(secret, 'f3.md'),
          park: join(root, 'd06/.park'),
        },
        // Changing content keeps extraction busy too (unchanged files are reused, not reread).
        flip('d03/f1.md'),
        flip('d06/f3.md'),
        flip('d09/f2.md'),
        flip('d11/f7.md'),
      ],
    },
    0x5eed,
  );
  let allGood = 0;
  let lateSkips = 0;
  const deadlineMs = opts.syncDeadlineMs ?? 120_000;
  const leaks = (what: string, text: string) => {
    check(!text.includes(SECRET), `${what} holds text of the private folder`);
    check(!text.includes(SECRET_NAME), `${what} names a file of the private folder`);
  };
  try {
    for (let i = 0; i < opts.dirSyncs; i++) {
      await row.trial(async () => {
        const res: SyncResult = await deadline(
          updateSources('Swap', 'all', { ports }, home),
          deadlineMs,
          `sync ${i}`,
        );
        leaks('a review', JSON.stringify([...res.reviews.values()]));
        leaks('store.json', readFileSync(storeConfigPath(storeId, home), 'utf8'));
        const snap = await snapshotTexts(home, storeId);
        leaks('the snapshot', snap.texts.join('\n'));
        check(
          accessTimes().every((a, j) => a === atime0[j]),
          'the private folder was listed or one of its files read (its access times moved)',
        );
        check(
          snap.paths.every((p) => p.startsWith(`${root}/`)),
          'the snapshot holds a path outside the source',
        );
        if (Object.keys(good).every((rel) => snap.paths.includes(join(root, rel)))) allGood++;
        const cfg = await findStore('Swap', home);
        lateSkips += cfg.sources[0]!.problemList.filter((p) =>
          /since the scan/.test(p.explanation ?? ''),
        ).length;
      }, `sync ${i}`);
    }
  } finally {
    const r = await swapper.stop();
    row.note(
      `${r.swaps} swaps during the syncs; all good files indexed after ${allGood} of them; ${lateSkips} files skipped at extraction as changed since the scan`,
    );
    if (r.errors > 0) row.fail(`the swapper failed ${r.errors} times`);
  }
  log(`hostile-fs: directory swaps done (${allGood}/${opts.dirSyncs} syncs with every good file)`);
  await row.trial(async () => {
    await updateSources('Swap', 'all', { ports }, home);
    const snap = await snapshotTexts(home, storeId);
    const want = Object.keys(good).map((rel) => join(root, rel));
    check(
      want.every((p) => snap.paths.includes(p)),
      () => `after the swaps stopped, not every good file is indexed: ${snap.paths.join(', ')}`,
    );
    leaks('the snapshot', snap.texts.join('\n'));
    const deps = createSearchDeps(home);
    try {
      const cfg = await findStore('Swap', home);
      const hit = await search({ stores: [cfg], query: `${SECRET} lantern3x5` }, deps);
      leaks('a search result', hit.block);
      check(
        hit.excerpts.some((e) => e.path === join(root, 'd03/f5.md')),
        'search does not find a good file',
      );
    } finally {
      await deps.close();
    }
    const atime = accessTimes();
    check(
      atime.every((a, i) => a === atime0[i]),
      'the private folder was listed or one of its files read (its access times moved)',
    );
  }, 'after the swaps');
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  await rm(secret, { recursive: true, force: true });
  return row;
}

/** One file swapped for a link to /dev/zero, a link into a private folder, and a FIFO. */
async function fileSwaps(opts: HostileFsOptions, log: (l: string) => void): Promise<SuiteRow> {
  const row = createRow(
    `file swap race: a file ↔ link to /dev/zero, link to a private file, FIFO during ${opts.fileSyncs} syncs`,
  );
  const root = scratchDirSync('kortty-rel-swapfile-');
  const secret = scratchDirSync('kortty-rel-private-');
  const versions = [prose('victim', 10, 5), prose('victim', 11, 8)];
  writeFileSync(join(root, 'victim.md'), versions[0]!);
  writeFileSync(join(root, 'good.md'), prose('quartz', 10, 6));
  writeFileSync(join(secret, 'private.md'), `${SECRET} ${prose(SECRET, 6, 9)}`);
  execFileSync('mkfifo', [join(root, '.fifo')]);
  const home = await homeWithStarter();
  const { id: storeId } = await createStore({ name: 'Swapf', modelId: 'kortty-lexical-starter' }, home);
  const ports = createDefaultPorts(home);
  await addSources('Swapf', [{ kind: 'folder', path: root }], { ports }, home);
  const victim = join(root, 'victim.md');
  const park = join(root, '.park-victim');
  const swapper = startSwapper(
    {
      swaps: [
        { kind: 'file-link', path: victim, target: '/dev/zero', park },
        { kind: 'file-link', path: victim, target: join(secret, 'private.md'), park },
        { kind: 'fifo', path: victim, park, fifo: join(root, '.fifo') },
        { kind: 'flip', path: victim, versions },
      ],
    },
    0xf11e,
  );
  const peak0 = peakRssMb();
  const deadlineMs = opts.syncDeadlineMs ?? 120_000;
  const outcomes = new Map<string, number>();
  let lateSkips = 0;
  try {
    for (let i = 0; i < opts.fileSyncs; i++) {
      await row.trial(async () => {
        await deadline(updateSources('Swapf', 'all', { ports }, home), deadlineMs, `sync ${i}`);
        const snap = await snapshotTexts(home, storeId);
        const text = snap.texts.join('\n');
        check(!text.includes(SECRET), 'the snapshot holds text of the private file');
        check(!text.includes('\u0000'), 'the snapshot holds bytes of /dev/zero');
        const cfg = await findStore('Swapf', home);
        const p = cfg.sources[0]!.problemList.find((x) => x.path === victim);
        let outcome: string;
        if (p) {
          check(
            ['symlink', 'special-file', 'read-error'].includes(p.reason) && p.explanation,
            `victim.md skipped as ${p.reason}: ${p.explanation}`,
          );
          outcome = `skipped (${p.reason})`;
          if (/since the scan/.test(p.explanation ?? '')) lateSkips++;
        } else if (snap.paths.includes(victim)) {
          // Rewritten in place, it may have been caught empty or half-written: then the scan and
          // extraction saw those same bytes (the hash says so). Never anything else.
          const own = snap.byPath.get(victim) ?? [];
          check(
            own.every((c) => versions.some((v) => v.includes(c.trim()))),
            () => `victim.md is indexed with text that is not its own: ${JSON.stringify(own)}`,
          );
          outcome = 'indexed';
        } else outcome = 'absent (parked during the scan)';
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        const grown = peakRssMb() - peak0;
        check(grown < 512, `this process grew by ${grown.toFixed(0)} MiB`);
      }, `sync ${i}`);
    }
  } finally {
    const r = await swapper.stop();
    row.note(
      `${r.swaps} swaps; ${lateSkips} skips at extraction (changed since the scan); victim: ${[...outcomes]
        .sort()
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}; peak RSS grew ${(peakRssMb() - peak0).toFixed(0)} MiB`,
    );
    if (r.errors > 0) row.fail(`the swapper failed ${r.errors} times`);
  }
  await row.trial(async () => {
    await updateSources('Swapf', 'all', { ports }, home);
    const snap = await snapshotTexts(home, storeId);
    check(snap.paths.includes(victim), 'after the swaps stopped, victim.md is not indexed');
    check(snap.texts.join('\n').includes('victim'), 'victim.md is indexed without its own text');
  }, 'after the swaps');
  log('hostile-fs: file swaps done');
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  await rm(secret, { recursive: true, force: true });
  return row;
}
