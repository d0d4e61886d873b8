// Reliability suite, edges: the query socket under malformed, huge and slow frames, many clients
// and a client that never reads; the MCP server under hostile arguments to every tool.
import test from 'ava';
import { runEdgesSuite } from '../reliability/edges-suite.js';
import { assertRows } from './assert-rows.js';

test('the query socket and the MCP server hold at their edges', async (t) => {
  const rows = await runEdgesSuite({ trials: 12, clients: 70 });
  assertRows(t, rows, 6);
});
