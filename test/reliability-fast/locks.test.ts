// Fast subset of the reliability suite: lock contention with holder kills,
// stalled holders (SIGSTOP) losing the lock, and a broken lock being reported.
import test from 'ava';
import { runLockSuite } from '../reliability/lock-suite.js';
import { assertRows } from './assert-rows.js';

test('store lock: one holder, takeover within the stale bound, stalled holders never activate', async (t) => {
  const rows = await runLockSuite({ seconds: 5, kills: 5, stalls: 1, contenders: 3, syncStalls: 1 });
  assertRows(t, rows, 5);
});
