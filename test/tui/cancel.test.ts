import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import test from 'ava';
import { snapshotPath } from '../../src/storage/paths.js';
import { findStore } from '../../src/store/engine.js';
import { bigTree, homeWithStore, prose, removeTempDirs } from './env.js';
import { choosePath } from './flows.js';
import { startTui } from './harness.js';

test.after.always(removeTempDirs);

// Cancelling a check before the review and an indexing before activation leaves the previous
// snapshot byte-identical and the source table as it was; while a job runs, a second one is
// refused and the disabled action says why.

const digest = async (p: string) =>
  createHash('sha256')
    .update(await readFile(p))
    .digest('hex');

test('cancel during the scan and during indexing: old snapshot unchanged; second job refused with the reason', async (t) => {
  const { home, id } = await homeWithStore({ 'apples.md': prose('apples', 30, 1) });
  const big = await bigTree(3000);
  const snap = snapshotPath(id, home);
  const before = await digest(snap);
  const tui = await startTui({ home });
  try {
    await tui.press('stores.open');
    await tui.press('sources.addFolder');
    let s = await choosePath(tui, big);
    t.true(s.includes('Add folder to "Docs"'), s);
    s = await tui.press('form.activate');
    t.true(s.includes('Checking selected files and folders…'), s);
    s = await tui.press('job.cancel');
    s = await tui.waitFor('Cancelled: nothing changed');
    t.false(s.includes('Review ·'));
    t.is(await digest(snap), before);
    t.is((await findStore('Docs', home)).sources.length, 1);

    await tui.press('sources.addFolder');
    await choosePath(tui, big);
    await tui.press('form.activate');
    s = await tui.waitFor('Review ·');
    t.regex(s, /new 3,000/);
    await tui.press('review.confirm');
    s = await tui.waitFor(/extracting|embedding/);

    // One job at a time: the action is refused and says why, here and in the help overlay.
    s = await tui.press('sources.updateNow');
    t.true(s.includes('indexing is already running for store "Docs"'), s);
    s = await tui.press('universal.help');
    t.regex(
      s,
      /Update now: check the selected source again\W+↳ indexing is already running for store "Docs"/,
    );
    await tui.press('universal.back');
    s = await tui.press('universal.quit');
    t.true(s.includes('cancel it first'), s);

    s = await tui.press('job.cancel');
    s = await tui.waitFor('Cancelled: nothing changed');
    t.is(await digest(snap), before);
    const store = await findStore('Docs', home);
    t.is(store.sources.length, 1);
    t.is(store.sources[0]!.files, 1);
  } finally {
    await tui.quit();
  }
});
