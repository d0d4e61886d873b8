// Fast subset of the reliability suite: hostile documents as real files in a
// real store, retrieved by the real search, assembled into prompts.
import test from 'ava';
import { runInjectionSuite } from '../reliability/injection-suite.js';
import { assertRows } from './assert-rows.js';

test('injection corpus through index, search and prompt assembly', async (t) => {
  const rows = await runInjectionSuite({ extraPerDoc: 1, every: 3 });
  assertRows(t, rows, 4);
});
