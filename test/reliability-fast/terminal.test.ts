// Fast subset of the reliability suite: fuzzed hostile model answers through the CLI's output
// stream and the real `kortty-rag ask` process, rendered by a headless terminal.
import test from 'ava';
import { runTerminalSuite } from '../reliability/terminal-suite.js';
import { assertRows } from './assert-rows.js';

test('hostile answers never reach the terminal as controls (stream, process, JSON)', async (t) => {
  const rows = await runTerminalSuite({ streams: 300, processes: 2, json: 200 });
  assertRows(t, rows, 3);
});
