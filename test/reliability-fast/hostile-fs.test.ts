// Fast subset of the hostile-folder rows of the reliability suite: directories and files of a
// source swapped for links (to a private folder, to /dev/zero) and for a FIFO by another process
// while syncs run.
import test from 'ava';
import { runHostileFsSuite } from '../reliability/hostile-fs-suite.js';
import { assertRows } from './assert-rows.js';

test('hostile folder: swaps during syncs never let outside files in, never hang or bloat', async (t) => {
  const rows = await runHostileFsSuite({ dirSyncs: 12, fileSyncs: 12 });
  assertRows(t, rows, 2);
});
