// Fast subset of the reliability suite: a smaller hostile tree (mutated PDFs,
// 1,000-level chain, bad names, FIFOs, loops), a hanging PDF, a directory beyond the preview
// bound, and files rewritten while being read.
import test from 'ava';
import { runHostileSuite } from '../reliability/hostile-suite.js';
import { assertRows } from './assert-rows.js';

test('hostile files: indexed or skipped with a reason, bounded, twice the same', async (t) => {
  const rows = await runHostileSuite({
    pdfSeeds: 9,
    bigDirEntries: 5200,
    depth: 1000,
    hangTimeoutMs: 1500,
    secondRun: 'in-process',
    rewriteSyncs: 4,
  });
  assertRows(t, rows, 8);
});
