import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { isKorttyError } from '../../src/errors.js';
import { type ExtractOptions, extractDocument } from '../../src/extract/extract.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { detectFormat } from '../../src/scan/formats.js';
import { snapshotPath, storeConfigPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import { startWatchService, type WatchEvent } from '../../src/watch/watch-service.js';
import { buildDocx } from '../extract/docx-fixture.js';
import { deepHtml, docxBomb } from '../helpers/hostile-docs.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { check, createRow, type SuiteRow, scratchDirSync } from './common.js';

// A hostile document and a hostile configuration. (1) HTML nested thousands of levels deep and
// .docx zip bombs (1 MB on disk, over 1 GiB inflated; one declares its size, one lies) among good
// files, rewritten every round so they are extracted again: the good files are indexed, each bad
// one is skipped with its reason, the extraction child stays under its memory cap and this process
// does not grow. (2) A source that contains the data directory: refused when added (directly and
// through a link), refused at every sync when it got into store.json by hand, and a watcher on it
// does not re-sync itself.

const MiB = 1024 * 1024;

export interface HostileDocsOptions {
  rounds: number;
  /** Reconcile intervals (4 s each) the watcher is observed for (0: skip that part). */
  watchReconciles: number;
  log?: (line: string) => void;
}

export async function runHostileDocsSuite(opts: HostileDocsOptions): Promise<SuiteRow[]> {
  const rows = [await hostileDocuments(opts)];
  rows.push(await dataDirSources(opts));
  return rows;
}

async function hostileDocuments(opts: HostileDocsOptions): Promise<SuiteRow> {
  const row = createRow(
    `deep HTML and .docx bombs (1 GiB, honest and lying) among good files, ${opts.rounds} rounds`,
  );
  const root = scratchDirSync('kortty-rel-docs-');
  await writeTree(root, {
    'notes.md': prose('apples', 20, 1),
    'page.html': `<h1>Bicycles</h1><p>${prose('bicycles', 10, 2)}</p>`,
  });
  await writeFile(join(root, 'report.docx'), buildDocx([prose('carrots', 10, 3)]));
  const home = await homeWithStarter();
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  const peaks: number[] = [];
  const base = createDefaultPorts(home);
  const ports: PipelinePorts = {
    ...base,
    extract(path, _format, signal, expectSha256, scanned) {
      const o: ExtractOptions = {
        signal,
        expectSha256,
        scanned,
        onConversion: (c) => peaks.push(c.peakRssMb),
      };
      return extractDocument(path, detectFormat(basename(path))?.extract ?? 'text', o);
    },
  };
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  const rss0 = process.resourceUsage().maxRSS / 1024;
  const want: Record<string, [string, RegExp]> = {
    'deep.html': ['html-invalid', /HTML nested too deeply/],
    'bomb.docx': ['docx-too-large', /expand to 1\.0 GiB, over the 64 MiB cap/],
    'liar.docx': ['docx-too-large', /inflates beyond the 4 KiB its directory declares/],
  };
  for (let i = 0; i < opts.rounds; i++) {
    await row.trial(async () => {
      // New bytes every round, so each bad file is extracted again rather than reused.
      await writeFile(join(root, 'deep.html'), deepHtml(6000 + i));
      await writeFile(join(root, 'bomb.docx'), docxBomb(1024 * MiB + (i % 2) * 4 * MiB, true));
      await writeFile(join(root, 'liar.docx'), docxBomb(1024 * MiB + (i % 2) * 4 * MiB, false));
      await writeFile(join(root, 'notes.md'), prose('apples', 20 + (i % 3), i));
      peaks.length = 0;
      const res = await updateSources('Docs', 'all', { ports }, home);
      const src = (await findStore('Docs', home)).sources[0]!;
      check(src.status === 'READY', `status ${src.status}: ${src.statusReason}`);
      const why = new Map(src.problemList.map((p) => [basename(p.path), p]));
      for (const [name, [reason, text]] of Object.entries(want)) {
        const p = why.get(name);
        check(p?.reason === reason && text.test(p.explanation ?? ''), `${name}: ${JSON.stringify(p)}`);
      }
      check(res.summary.indexed >= 1, 'the changed good file was not indexed');
      const snap = await openSnapshot(snapshotPath((await findStore('Docs', home)).id, home));
      const names = snap?.data.docs.map((d) => basename(d.path)).sort();
      snap?.close();
      check(
        JSON.stringify(names) === JSON.stringify(['notes.md', 'page.html', 'report.docx']),
        `indexed: ${names}`,
      );
      const peak = Math.max(...peaks);
      check(peak < 768, `the extraction child peaked at ${peak} MiB (cap 768)`);
      const grown = process.resourceUsage().maxRSS / 1024 - rss0;
      check(grown < 256, `this process grew by ${grown.toFixed(0)} MiB`);
      if (i === 0) row.note(`extraction child peak ${peak} MiB; this process grew ${grown.toFixed(0)} MiB`);
    }, `round ${i}`);
  }
  opts.log?.('hostile-docs: hostile documents done');
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  return row;
}

async function dataDirSources(opts: HostileDocsOptions): Promise<SuiteRow> {
  const row = createRow(
    'a source holding KORTTY_HOME: refused at add (directly, through links) and at sync; watcher without a resync loop',
  );
  const base = await mkdtemp(join(tmpdir(), 'kortty-rel-datadir-'));
  const home = join(base, 'data');
  await rename(await homeWithStarter(), home);
  await writeTree(base, { 'docs/a.md': prose('apples', 20, 1) });
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  await addSources('Docs', [{ kind: 'folder', path: join(base, 'docs') }], {}, home);
  const refusedAt = async (path: string, kind: 'file' | 'folder' = 'folder') => {
    const err = await addSources('Docs', [{ kind, path }], {}, home).then(
      () => undefined,
      (e) => e,
    );
    check(isKorttyError(err, 'SOURCE_DATA_DIR'), `${path}: ${err}`);
  };
  await row.trial(() => refusedAt(base), 'contains');
  await row.trial(() => refusedAt(join(home, 'rag')), 'inside');
  const storeId = (await findStore('Docs', home)).id;
  await row.trial(() => refusedAt(storeConfigPath(storeId, home), 'file'), 'a file inside');
  await row.trial(async () => {
    const { symlink } = await import('node:fs/promises');
    const link = join(tmpdir(), `kortty-rel-link-${process.pid}-${Date.now()}`);
    await symlink(base, link);
    try {
      await refusedAt(link);
    } finally {
      await rm(link, { force: true });
    }
  }, 'through a link');
  // By hand into store.json, in automatic mode.
  const cfg = JSON.parse(
    await readFile(storeConfigPath((await findStore('Docs', home)).id, home), 'utf8'),
  ) as StoreConfig;
  cfg.sources[0]!.path = base;
  cfg.sources[0]!.sync = 'automatic';
  await writeFile(storeConfigPath((await findStore('Docs', home)).id, home), JSON.stringify(cfg));
  await row.trial(async () => {
    const res = await updateSources('Docs', 'all', {}, home);
    check(res.statuses[cfg.sources[0]!.id] === 'ERROR', 'the sync did not refuse it');
    const snap = await openSnapshot(snapshotPath((await findStore('Docs', home)).id, home));
    const inside = snap?.data.docs.filter((d) => d.path.startsWith(home)).length ?? 0;
    snap?.close();
    check(inside === 0, `${inside} files of the data directory indexed`);
  }, 'refused at sync');
  if (opts.watchReconciles > 0) {
    await row.trial(async () => {
      const events: WatchEvent[] = [];
      const svc = await startWatchService({
        home,
        pollMs: 100,
        reconcileMs: 4000,
        schedule: { quietMs: 100 },
        log: (e) => events.push(e),
      });
      try {
        const { waitFor } = await import('../plugin/tmux-harness.js');
        await waitFor(
          () =>
            events.filter((e) => e.type === 'reconcile').length >= opts.watchReconciles ? true : undefined,
          'reconciles',
          10 * 60_000,
          100,
        );
      } finally {
        await svc.stop();
      }
      const syncs = events.filter((e) => e.type === 'sync-start').length;
      check(
        syncs <= opts.watchReconciles + 1,
        `${syncs} syncs over ${opts.watchReconciles} reconciles (a sync per reconcile is by design)`,
      );
      check(
        events.some((e) => e.type === 'refused') && !events.some((e) => e.type === 'watching'),
        'watched',
      );
      row.note(`${syncs} syncs over ${opts.watchReconciles} reconciles of 4 s`);
    }, 'watcher');
  }
  opts.log?.('hostile-docs: data directory done');
  await rm(base, { recursive: true, force: true });
  return row;
}
