// Fast subset of the reliability suite: ENOSPC/EIO/EACCES at every FsEnv call
// of an Update now and of a store.json save (one errno per call, rotating).
import test from 'ava';
import { runIoErrorSuite } from '../reliability/io-suite.js';
import { removeFixtures } from '../reliability/store-fixture.js';
import { assertRows } from './assert-rows.js';

test.after.always(() => removeFixtures());

test('I/O errors at every FsEnv call: specific error, old state, no temps, converges', async (t) => {
  const rows = await runIoErrorSuite({ errnos: 1, kind: 'delete' });
  assertRows(t, rows, 6);
});
