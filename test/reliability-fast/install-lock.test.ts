// Reliability suite, model installer: its lock has one holder at a time under contention with
// holder kills (the store lock's scheme).
import test from 'ava';
import { runInstallLockSuite } from '../reliability/install-lock-suite.js';
import { assertRows } from './assert-rows.js';

test('model install lock: one holder under contention and holder kills', async (t) => {
  const rows = await runInstallLockSuite({ seconds: 6, kills: 6, contenders: 3 });
  assertRows(t, rows, 1);
});
