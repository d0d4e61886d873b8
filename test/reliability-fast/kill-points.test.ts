// Fast subset of the reliability suite: the CLI in a child process SIGKILLed
// at each labelled step and at random moments; the store is old or new, temps are cleaned on
// open, and Update now converges to a from-scratch build.
import test from 'ava';
import { KILL_LABELS } from '../../src/util/kill-points.js';
import { runKillSuite } from '../reliability/kill-suite.js';
import { removeFixtures } from '../reliability/store-fixture.js';
import { assertRows } from './assert-rows.js';

test.after.always(() => removeFixtures());

test('SIGKILL at every label and at random moments', async (t) => {
  const rows = await runKillSuite({
    perLabel: 1,
    random: 8,
    randomEditShare: 0.25,
    labelEditShare: 0,
    lanes: 2,
    prefetch: 1,
  });
  assertRows(t, rows, KILL_LABELS.length + 2);
});
