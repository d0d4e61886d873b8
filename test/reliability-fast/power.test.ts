// Fast subset of the reliability suite: simulated power loss at every prefix of
// an activation's FsEnv log, and every fsync of the path removed in turn must be caught.
import test from 'ava';
import { runPowerSuite } from '../reliability/power-suite.js';
import { removeFixtures } from '../reliability/store-fixture.js';
import { assertRows } from './assert-rows.js';

test.after.always(() => removeFixtures());

test('power loss: always old or new; removing any fsync is caught', async (t) => {
  const rows = await runPowerSuite({ kind: 'delete' });
  // two activations, each with its fsyncs removed one at a time (4 and 7 of them)
  assertRows(t, rows, 2 + 4 + 7);
  t.true(rows.some((r) => /without fsync #\d+ \(\.tmp-index\.hnsw\): caught/.test(r.test)));
  t.true(rows.some((r) => /dir stores\/ after mkdir docs/.test(r.test)));
});
