import { parseArgs } from 'node:util';
import type { CliIO } from '../io.js';

const USAGE = `usage: kortty-rag mcp [--store S]...
MCP server on stdin/stdout for coding agents (tools: search_knowledge, list_stores, read_excerpt).
Agents are autonomous workflows: they see only stores with the autonomous-workflows opt-in
(kortty-rag store roles NAME --role ... --autonomous); --store narrows that further, never widens it.
Every tool call is recorded as a run (kortty-rag runs). Logs go to stderr; stdout is the protocol.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { store: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { runMcpServer } = await import('../../mcp/server.js');
  await runMcpServer({ served: values.store ?? [] });
  return 0;
}
