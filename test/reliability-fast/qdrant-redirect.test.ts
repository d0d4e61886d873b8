// Reliability suite, Qdrant part: redirects on every operation are refused before anything
// reaches the target, and a key echoed back in any shape never survives into an error.
import test from 'ava';
import { runQdrantRedirectSuite } from '../reliability/qdrant-redirect-suite.js';
import { assertRows } from './assert-rows.js';

test('Qdrant redirects never followed; echoed keys redacted in every shape', async (t) => {
  const rows = await runQdrantRedirectSuite();
  assertRows(t, rows, 2);
  t.is(rows[0]!.trials, 5 * 4 * 8);
  t.is(rows[1]!.trials, 6 * 3);
});
