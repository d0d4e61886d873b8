import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { readStatus } from '../../src/app/status.js';
import { type ExtractOptions, extractDocument } from '../../src/extract/extract.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { detectFormat } from '../../src/scan/formats.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore, rebuildStore, updateSources } from '../../src/store/engine.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { initialState } from '../../src/tui/state.js';
import { lineText } from '../../src/tui/styled.js';
import { renderApp } from '../../src/tui/views/layout.js';
import { buildDocx } from '../extract/docx-fixture.js';
import { deepHtml, docxBomb } from '../helpers/hostile-docs.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// One hostile document must cost that document, not the job: HTML nested thousands of levels
// deep, and .docx zip bombs (1 MB on disk, 1 GiB inflated; one declares it, one lies), sit among
// good files. The good files are indexed, each bad one is skipped with its reason, and neither
// this process nor the extraction child grows past its memory cap. A sync that does fail as a
// whole shows ERROR with its reason wherever sources are shown.

const CLI = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const run = promisify(execFile);
const MiB = 1024 * 1024;

/** The real pipeline, noting each extraction child's peak memory. */
function measuredPorts(home: string, peaks: number[]): PipelinePorts {
  const base = createDefaultPorts(home);
  return {
    ...base,
    extract(path, _format, signal, expectSha256, scanned) {
      const opts: ExtractOptions = {
        signal,
        expectSha256,
        scanned,
        onConversion: (c) => peaks.push(c.peakRssMb),
      };
      return extractDocument(path, detectFormat(basename(path))?.extract ?? 'text', opts);
    },
  };
}

test('deep HTML and .docx bombs among good files: good ones indexed, bad ones skipped, memory capped', async (t) => {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-hostile-docs-'));
  await writeTree(root, {
    'notes.md': prose('apples', 20, 1),
    'page.html': `<h1>Bicycles</h1><p>${prose('bicycles', 10, 2)}</p>`,
    'deep.html': deepHtml(6000),
  });
  await writeFile(join(root, 'report.docx'), buildDocx([prose('carrots', 10, 3)]));
  await writeFile(join(root, 'bomb.docx'), docxBomb(1024 * MiB, true));
  await writeFile(join(root, 'liar.docx'), docxBomb(1024 * MiB, false));
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  const peaks: number[] = [];
  const rss0 = process.resourceUsage().maxRSS * 1024;
  const res = await addSources(
    'Docs',
    [{ kind: 'folder', path: root }],
    { ports: measuredPorts(home, peaks) },
    home,
  );
  const grown = process.resourceUsage().maxRSS * 1024 - rss0;
  t.true(grown < 256 * MiB, `this process grew by ${(grown / MiB).toFixed(0)} MiB`);
  t.true(peaks.length >= 5, `${peaks.length} conversions measured`);
  // The cap is 512 MiB of heap + 256 MiB; a bomb that were inflated would need over 1 GiB.
  t.true(Math.max(...peaks) < 768, `extraction child peaked at ${Math.max(...peaks)} MiB`);
  t.log(`extraction child peak ${Math.max(...peaks)} MiB; this process grew ${(grown / MiB).toFixed(0)} MiB`);
  t.is(res.summary.indexed, 3);
  const src = (await findStore('Docs', home)).sources[0]!;
  t.is(src.status, 'READY');
  const why = new Map(src.problemList.map((p) => [basename(p.path), p]));
  t.is(why.get('deep.html')?.reason, 'html-invalid');
  t.regex(why.get('deep.html')?.explanation ?? '', /deep\.html: HTML nested too deeply/);
  t.is(why.get('bomb.docx')?.reason, 'docx-too-large');
  t.regex(why.get('bomb.docx')?.explanation ?? '', /expand to 1\.0 GiB, over the 64 MiB cap/);
  t.is(why.get('liar.docx')?.reason, 'docx-too-large');
  t.regex(why.get('liar.docx')?.explanation ?? '', /inflates beyond the 4 KiB its directory declares/);
  const snap = await openSnapshot(snapshotPath((await findStore('Docs', home)).id, home));
  t.deepEqual(snap?.data.docs.map((d) => basename(d.path)).sort(), ['notes.md', 'page.html', 'report.docx']);
  snap?.close();
});

test('a sync that fails as a whole shows ERROR with the reason: source list, status, TUI', async (t) => {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-failing-'));
  await writeTree(root, { 'a.md': prose('apples', 20, 1) });
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  await addSources('Docs', [{ kind: 'folder', path: root }], {}, home);
  // A damaged snapshot: every sync refuses to build on it.
  const snapFile = snapshotPath((await findStore('Docs', home)).id, home);
  const bytes = await readFile(snapFile);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = bytes[at]! ^ 0xff;
  await writeFile(snapFile, bytes);
  const err = await t.throwsAsync(updateSources('Docs', 'all', {}, home));
  t.is((err as { code?: string }).code, 'SNAPSHOT_NEEDS_REBUILD');
  const src = (await findStore('Docs', home)).sources[0]!;
  t.is(src.status, 'ERROR');
  t.is(src.statusReason, `sync failed: ${err!.message}`);
  t.is(src.files, 1, 'the data of the source is kept');

  const env = { ...process.env, KORTTY_HOME: home };
  const list = await run(process.execPath, [CLI, 'source', 'list', 'Docs'], { env });
  t.regex(list.stdout, /ERROR/);
  t.true(list.stdout.includes(`${src.id} ERROR: sync failed: `), list.stdout);

  const status = await readStatus(home);
  t.is(status.state, 'error');
  // The source's failed sync is an error; the damaged snapshot that caused it is named as well.
  t.true(
    status.errors.some((e) => e.reason === src.statusReason),
    JSON.stringify(status.errors),
  );

  const cfg = await findStore('Docs', home);
  const frame = renderApp(
    {
      state: { ...initialState({ width: 140, height: 40 }, 'default', 'dark'), stores: [cfg], loaded: true },
      hints: [],
      key: (a) => a,
      now: 0,
    },
    { disabledFields: {} },
  );
  const screen = frame.map(lineText).join('\n');
  t.regex(screen, /ERROR: sync failed: /);

  // Rebuilt, the source is READY again.
  await rebuildStore('Docs', undefined, {}, home);
  t.is((await findStore('Docs', home)).sources[0]!.status, 'READY');
});
