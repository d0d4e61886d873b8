import { join } from 'node:path';
import test from 'ava';
import { findStore } from '../../src/store/engine.js';
import { homeWithStore, prose, removeTempDirs } from './env.js';
import { startTui } from './harness.js';

test.after.always(removeTempDirs);

// Remembered extraction failures in the pane: Update now shows an unchanged failed file skipped
// with the date it failed and does not parse it; the retry-failed action parses it again.

test('Update now skips a file that failed while unchanged; retry failed extracts it again', async (t) => {
  const { home, root } = await homeWithStore({
    'notes.md': prose('notes', 30, 1),
    // A PDF header and nothing else: the scan accepts it, the parser fails fast (pdf-invalid) with
    // the real default limits.
    'broken.pdf': Buffer.from('%PDF-1.4\nnot really a pdf\n'),
  });
  const failedAt = async () =>
    (await findStore('Docs', home)).sources[0]!.failed?.[join(root, 'broken.pdf')]?.failedAt;
  const first = await failedAt();
  t.truthy(first, 'the initial index remembered the failure');

  const tui = await startTui({ home, cols: 140, rows: 30 });
  try {
    await tui.press('stores.open');
    await tui.press('sources.updateNow');
    let s = await tui.waitFor('Review ·');
    t.regex(s, /broken\.pdf.*skipped.*unchanged since it failed on \d{4}-\d\d-\d\d/);
    t.regex(s, /new 0 · changed 0 · unchanged 1 · removed 0 · skipped 1/);
    await tui.press('review.confirm');
    s = await tui.waitFor('Indexing finished · Docs');
    await tui.press('summary.close');
    t.is(await failedAt(), first, 'not parsed again: the record keeps its date');

    await tui.press('sources.retryFailed');
    s = await tui.waitFor('Review ·');
    t.regex(s, /broken\.pdf\s+pdf\s+.*new/);
    t.notRegex(s, /unchanged since it failed/);
    await tui.press('review.confirm');
    s = await tui.waitFor('Indexing finished · Docs');
    t.regex(s, /problems 1/);
    await tui.press('summary.close');
    const again = await failedAt();
    t.truthy(again);
    t.not(again, first, 'parsed again, failed again, dated anew');
  } finally {
    await tui.quit();
  }
});
