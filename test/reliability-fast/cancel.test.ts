// Fast subset of the reliability suite: cancelling the real job child at random moments of its
// embedding never crashes it and leaves the store directory exactly as it was.
import test from 'ava';
import { runCancelSuite } from '../reliability/cancel-suite.js';
import { assertRows } from './assert-rows.js';

test('cancel at random moments of the embedding: JOB_CANCELLED, no crash, nothing left behind', async (t) => {
  const rows = await runCancelSuite({ cancels: 10, signalRounds: 1 });
  assertRows(t, rows, 3);
});
