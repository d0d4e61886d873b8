// Fast subset of the hostile-document rows of the reliability suite: deep HTML and .docx bombs
// among good files, and a source holding the data directory (add, sync, watcher).
import test from 'ava';
import { runHostileDocsSuite } from '../reliability/hostile-docs-suite.js';
import { assertRows } from './assert-rows.js';

test('hostile documents cost only themselves; a source holding KORTTY_HOME is refused', async (t) => {
  const rows = await runHostileDocsSuite({ rounds: 2, watchReconciles: 0 });
  assertRows(t, rows, 2);
});
