// Reliability suite, isolation part: a damaged snapshot or an unreachable Qdrant store is left out
// while the others answer; private modes under random umasks; locks with a future heartbeat.
import test from 'ava';
import { runIsolationSuite } from '../reliability/isolation-suite.js';
import { assertRows } from './assert-rows.js';

test.serial(
  'one broken store never breaks the others; data stays private; future locks judged',
  async (t) => {
    const rows = await runIsolationSuite({ damaged: 6, unreachable: 2, umasks: 2, locks: 3 });
    assertRows(t, rows, 4);
    t.deepEqual(
      rows.map((r) => r.trials),
      [6, 2, 2, 3],
    );
  },
);
