// Reliability suite, store delete: SIGKILL at each step (labels, and strace-injected kills at
// each file-system call on the store's files) leaves the whole store or none.
import test from 'ava';
import { runDeleteSuite } from '../reliability/delete-suite.js';
import { assertRows } from './assert-rows.js';

test('store delete killed at each step: the whole store or none, never a reused snapshot', async (t) => {
  const rows = await runDeleteSuite({ countedKills: 3 });
  assertRows(t, rows, 1);
});
