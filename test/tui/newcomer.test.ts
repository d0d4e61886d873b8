import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import test from 'ava';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { createStore, findStore } from '../../src/store/engine.js';
import { keyLabel } from '../../src/tui/keymap.js';
import { bigTree, homeWithModel, homeWithStore, prose, removeTempDirs, sourceTree } from './env.js';
import { choosePath, focusField, highlighted, selectRow } from './flows.js';
import { startTui } from './harness.js';

test.after.always(removeTempDirs);

// What a newcomer meets in the first hour, in the real pane at 80×24.

const flat = (s: string) => s.replace(/[│┌┐└┘─\s]+/g, ' ');
const hintBar = (s: string) => s.split('\n').at(-1)!;
const binaries = () =>
  Object.fromEntries(
    ['a.bin', 'b.bin', 'photo.png', 'tool.exe'].map((n, i) => [n, Buffer.from([0, 1, 2, i, 0, 255])]),
  );

test('first screen: the keys the empty sources pane names work from the stores pane', async (t) => {
  const home = await homeWithModel();
  await createStore({ name: 'Docs', modelId: STARTER_MODEL_ID }, home);
  const root = await sourceTree({ 'a.md': prose('apples', 5, 1) });
  const tui = await startTui({ home });
  try {
    let s = await tui.screen();
    t.regex(highlighted(s), /Docs/, 'the stores pane has the focus');
    const folderKey = keyLabel(tui.keymap.keys['sources.addFolder'][0]!);
    t.true(s.includes(`No sources. Press ${folderKey} to add a folder`), s);
    t.deepEqual(tui.keymap.keys['stores.addFolder'], tui.keymap.keys['sources.addFolder']);
    t.deepEqual(tui.keymap.keys['stores.addFiles'], tui.keymap.keys['sources.addFiles']);
    s = await tui.press('stores.addFolder');
    t.true(s.includes('Add folder · choose a folder'), s);
    s = await choosePath(tui, root);
    t.true(s.includes('Add folder to "Docs"'), s);
    await tui.press('universal.back');
    s = await tui.press('stores.addFiles');
    t.true(s.includes('Add files · mark files'), s);
    s = await tui.press('universal.back');
    t.true(s.includes('No sources.'), s);
  } finally {
    await tui.quit();
  }
});

test('creating a store selects it, from the review on', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 5, 1) }, 'Zulu');
  const root = await sourceTree({ 'b.md': prose('bikes', 5, 2) });
  // Wide: the panes stay visible beside the review.
  const tui = await startTui({ home, cols: 200, rows: 30 });
  try {
    await tui.press('stores.create');
    await tui.type('Alpha');
    await focusField(tui, 'Add folder…');
    await tui.press('form.activate');
    await choosePath(tui, root);
    await focusField(tui, 'Create');
    await tui.press('form.activate');
    let s = await tui.waitFor('Review ·');
    t.true(s.includes('Sources · Alpha'), `the new store is selected under the review\n${s}`);
    await tui.press('review.confirm');
    await tui.waitFor('Store created · Alpha');
    s = await tui.press('summary.close');
    t.true(s.includes('Sources · Alpha'), s);
    await tui.press('sources.back');
    s = await tui.screen();
    t.regex(highlighted(s), /Alpha/);
  } finally {
    await tui.quit();
  }
});

test('a folder of binaries: skipped, not problems; the summary counts only its own chunks', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 200, 1) });
  const before = (await findStore('Docs', home)).sources[0]!.chunks;
  t.true(before > 1);
  const bins = await sourceTree(binaries());
  const tui = await startTui({ home });
  try {
    await tui.press('stores.open');
    await tui.press('sources.addFolder');
    await choosePath(tui, bins);
    await tui.press('form.activate');
    let s = await tui.waitFor('Review ·');
    t.regex(flat(s), /skipped: (binary|unsupported-format)/);
    t.false(flat(s).includes('problems:'), s);
    await tui.press('review.confirm');
    s = await tui.waitFor('Indexing finished · Docs');
    t.regex(flat(s), /skipped 4/);
    t.regex(
      flat(s),
      /chunks embedded 0 · reused 0 · problems 0/,
      'the other source’s chunks are not "reused"',
    );
    t.true(s.includes('"Docs": 0 documents indexed, 4 skipped.'), s);
    s = await tui.press('summary.close');
    t.false(/problem\(s\)/.test(s.split('\n').at(-2)!), s);
    t.true(s.includes('4 skipped'), s);
    s = await selectRow(tui, basename(bins));
    t.regex(highlighted(s), /READY\s+0\/0\s+0/, 'PROB is 0');
    t.regex(flat(s), /4 skipped by design: (binary|unsupported-format)/);
    const src = (await findStore('Docs', home)).sources.find((x) => x.path === bins)!;
    t.is(src.problems, 0);
    t.is(src.skipped, 4);
  } finally {
    await tui.quit();
  }
});

test('removing a source says what left the index', async (t) => {
  const { home, root } = await homeWithStore({ 'a.md': prose('apples', 30, 1), 'b.md': prose('b', 9, 2) });
  const chunks = (await findStore('Docs', home)).sources[0]!.chunks;
  // Wide enough for the whole message with its temporary path.
  const tui = await startTui({ home, cols: 200, rows: 30 });
  try {
    await tui.press('stores.open');
    await tui.press('sources.remove');
    await tui.press('confirm.yes');
    const s = await tui.waitFor('Source removed · Docs');
    t.true(
      flat(s).includes(
        `Removed ${root} from "Docs": 2 documents (${chunks} chunk${chunks === 1 ? '' : 's'}) left the index; the files are untouched.`,
      ),
      s,
    );
    t.false(s.includes('0 new/changed'), s);
  } finally {
    await tui.quit();
  }
});

test('hints show only keys that work now; dialogs and the hint bar name the same close key', async (t) => {
  const { home, id } = await homeWithStore({ 'a.md': prose('apples', 5, 1) });
  const big = await bigTree(3000);
  const tui = await startTui({ home });
  const quit = `${keyLabel(tui.keymap.keys['universal.quit'][0]!)} quit`;
  try {
    let s = await tui.screen();
    t.true(hintBar(s).includes(quit), hintBar(s));
    await tui.press('stores.open');
    await tui.press('sources.addFolder');
    await choosePath(tui, big);
    s = await tui.press('form.activate');
    // A job is running: quitting is blocked, so q is not offered.
    t.false(hintBar(s).includes(quit), hintBar(s));
    t.true(
      hintBar(s).includes(`${keyLabel(tui.keymap.keys['universal.back'][0]!)} cancel check`),
      hintBar(s),
    );
    s = await tui.press('universal.quit');
    t.true(s.includes('Quit: a job is running'), s);
    await tui.press('job.cancel');
    await tui.waitFor('Cancelled');
    s = await tui.press('sources.back');
    t.true(hintBar(s).includes(quit), hintBar(s));
    await tui.press('stores.open');

    // A failure dialog (a damaged snapshot): its footer and the hint bar say the same key.
    await writeFile(snapshotPath(id, home), 'not a snapshot');
    await tui.press('sources.updateNow');
    s = await tui.waitFor((x) => x.includes('Indexing failed'));
    const close = `${keyLabel(tui.keymap.keys['summary.close'][0]!)} close`;
    t.true(flat(s).includes(close), s);
    t.true(hintBar(s).includes(close), hintBar(s));
    t.false(flat(s).includes(`${keyLabel(tui.keymap.keys['universal.back'][0]!)} close`), s);
  } finally {
    await tui.quit();
  }
});

test('texts at 80 columns: the roles dialog wraps its long label; the runs help has no pane switch', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 5, 1) });
  const tui = await startTui({ home });
  try {
    let s = await tui.press('stores.roles');
    t.true(
      flat(s).includes('Autonomous workflows (agent, planning, swarm, scheduled) may retrieve from it'),
      s,
    );
    await tui.press('universal.back');
    await tui.press('universal.tabRuns');
    await tui.waitFor('Runs (0)');
    s = await tui.press('universal.help');
    t.true(s.includes('Keys · keymap'), s);
    t.false(s.includes('Switch between the stores and sources panes'), s);
  } finally {
    await tui.quit();
  }
});

test('Test search shows the block exactly: runs of spaces and tabs are kept', async (t) => {
  const code = 'def  double(x):\n    return  x  *  2\t# twice\n';
  const { home } = await homeWithStore({ 'code.py': code, 'notes.md': prose('double', 5, 3) });
  const tui = await startTui({ home, cols: 100, rows: 40 });
  try {
    await tui.press('stores.testSearch');
    await tui.type('double return');
    await tui.press('search.run');
    const s = await tui.waitFor('block given to the model');
    t.true(s.includes('    return  x  *  2     # twice'), s);
    t.true(s.includes('def  double(x):'), s);
  } finally {
    await tui.quit();
  }
});
