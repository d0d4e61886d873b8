// Reliability suite, vocabulary extraction: a killed first-run extraction leaves no repository
// behind for ever, and a live one is never removed.
import test from 'ava';
import { runVocabSuite } from '../reliability/vocab-suite.js';
import { assertRows } from './assert-rows.js';

test('killed vocabulary extractions are cleaned up; a live one is kept', async (t) => {
  const rows = await runVocabSuite({ kills: 3 });
  assertRows(t, rows, 1);
});
