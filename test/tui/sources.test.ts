import { existsSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { storeDir } from '../../src/storage/paths.js';
import { findStore } from '../../src/store/engine.js';
import { homeWithStore, prose, removeTempDirs, sourceTree } from './env.js';
import { choosePath, focusField, highlighted, selectRow } from './flows.js';
import { PATH_COLS, startTui } from './harness.js';

test.after.always(removeTempDirs);

// The sources table's actions on a real store: Update now after edits (review of changed, new and
// removed files), Disable/Enable, Remove, then Delete store. Source files are never touched.

test('Update now after edits, disable/enable, remove the source, delete the store', async (t) => {
  const { home, root, id } = await homeWithStore({
    'apples.md': prose('apples', 30, 1),
    'bikes.txt': prose('bikes', 20, 2),
  });
  const tui = await startTui({ home, cols: PATH_COLS });
  try {
    let s = await tui.press('stores.open');
    t.regex(highlighted(s), /folder manual READY\s+2\/2/);

    // The same folder again is refused before any scan, naming the existing source.
    await tui.press('sources.addFolder');
    await choosePath(tui, root);
    s = await tui.press('form.activate');
    t.regex(s.replace(/[│\s]+/g, ' '), /(is already covered by|overlaps the existing) source/);
    s = await tui.press('universal.back');
    t.false(s.includes('Add folder to'));

    await writeFile(join(root, 'apples.md'), prose('apples', 35, 9));
    await writeFile(join(root, 'cherries.md'), prose('cherries', 12, 4));
    await unlink(join(root, 'bikes.txt'));
    s = await tui.press('sources.updateNow');
    t.true(s.includes('Checking selected files and folders…') || s.includes('Review ·'), s);
    s = await tui.waitFor('Review ·');
    t.regex(s, /new 1 · changed 1 · unchanged 0 · removed 1 · skipped 0/);
    t.regex(s, /apples\.md\s+markdown\s+.*changed/);
    t.regex(s, /cherries\.md\s+markdown\s+.*new/);
    t.regex(s, /bikes\.txt\s+-\s+-\s+removed/);
    await tui.press('review.confirm');
    s = await tui.waitFor('Indexing finished · Docs');
    t.regex(s, /newly indexed 2 · unchanged 0 · removed 1 · skipped 0/);
    s = await tui.press('summary.close');
    t.regex(highlighted(s), /READY\s+2\/2/);

    s = await tui.press('sources.toggleEnabled');
    t.regex(highlighted(s), /DISABLED\s+2\/2/);
    t.true(s.includes('chunks are kept, retrieval skips it'), s);
    t.false((await findStore('Docs', home)).sources[0]!.enabled);
    s = await tui.press('sources.toggleEnabled');
    t.regex(highlighted(s), /READY\s+2\/2/);
    t.true((await findStore('Docs', home)).sources[0]!.enabled);

    s = await tui.press('sources.remove');
    t.true(s.includes('Remove source'), s);
    t.true(s.includes(root), s);
    t.true(s.includes('never deleted'), s);
    await tui.press('confirm.yes');
    s = await tui.waitFor('Source removed · Docs');
    t.regex(s, /removed 2/);
    s = await tui.press('summary.close');
    t.true(s.includes('No sources.'), s);
    t.is((await findStore('Docs', home)).sources.length, 0);
    t.is(await readFile(join(root, 'apples.md'), 'utf8'), prose('apples', 35, 9));

    await tui.press('universal.back');
    s = await tui.press('stores.delete');
    const dir = storeDir(id, home);
    t.true(s.replace(/[│\s]+/g, ' ').includes(dir), s);
    t.true(s.includes('Source files are kept'), s);
    s = await tui.press('confirm.yes');
    s = await tui.waitFor('Deleted store');
    t.regex(s, /Stores \(0\)/);
    t.false(existsSync(dir));
    t.true(existsSync(join(root, 'cherries.md')));
  } finally {
    await tui.quit();
  }
});

test('Add files (marked in the browser), per-source options and store roles are saved', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 10, 1) });
  const loose = await sourceTree({
    'one.md': prose('one', 10, 2),
    'two.txt': prose('two', 10, 3),
    'three.md': 'x',
  });
  const tui = await startTui({ home });
  try {
    await tui.press('stores.open');
    let s = await tui.press('sources.addFiles');
    t.true(s.includes('Add files · mark files'), s);
    await tui.press('browser.goto');
    await tui.type(loose);
    await tui.press('browser.open');
    await selectRow(tui, 'one.md');
    await tui.press('browser.mark');
    await selectRow(tui, 'two.txt');
    s = await tui.press('browser.mark');
    t.true(s.includes('2 file(s) marked'), s);
    s = await tui.press('browser.choose');
    t.true(s.includes('Add 2 files to "Docs"'), s);
    await tui.press('form.activate');
    s = await tui.waitFor('Review ·');
    t.regex(s, /source 1\/2/);
    s = await tui.press('review.nextSource');
    t.regex(s, /source 2\/2/);
    await tui.press('review.confirm');
    await tui.waitFor('Indexing finished');
    s = await tui.press('summary.close');
    const files = (await findStore('Docs', home)).sources.filter((x) => x.kind === 'file').map((x) => x.path);
    t.deepEqual(files.sort(), [join(loose, 'one.md'), join(loose, 'two.txt')]);

    // Per-source Advanced options of the folder source.
    await tui.press('list.top');
    s = await tui.press('sources.options');
    t.true(s.includes('Source options'), s);
    s = await tui.press('form.toggle');
    t.regex(s, /automatic \(kortty-rag watch\)/);
    await focusField(tui, 'Size limit (MiB)');
    await tui.pressKey('backspace');
    await tui.pressKey('backspace');
    await tui.type('8');
    await focusField(tui, 'Exclude globs');
    await tui.type('drafts/**, *.tmp');
    await focusField(tui, 'Save');
    s = await tui.press('form.activate');
    s = await tui.waitFor('apply at the next Update now');
    const folder = (await findStore('Docs', home)).sources.find((x) => x.kind === 'folder')!;
    t.is(folder.sync, 'automatic');
    t.is(folder.options.maxFileBytes, 8 * 1024 * 1024);
    t.deepEqual(folder.options.exclude, ['drafts/**', '*.tmp']);

    // Roles and autonomous workflows.
    await tui.press('universal.back');
    s = await tui.press('stores.roles');
    t.true(s.includes('Roles · Docs'), s);
    await focusField(tui, 'Coding role');
    await tui.press('form.toggle');
    await focusField(tui, 'Autonomous workflows');
    await tui.press('form.toggle');
    await focusField(tui, 'Save');
    await tui.press('form.activate');
    s = await tui.waitFor('roles coding, text, autonomous workflows on');
    const st = await findStore('Docs', home);
    t.deepEqual(st.roles, ['coding', 'text']);
    t.true(st.autonomous);
  } finally {
    await tui.quit();
  }
});
