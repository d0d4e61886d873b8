import { type CommandContext, defineCommand } from '../command.js';

const options = {
  store: {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: 'serve only this store (narrows the autonomous-workflow stores, never widens them)',
  },
} as const;

export const definition = defineCommand({
  name: 'mcp',
  summary: 'MCP server (stdio) for coding agents',
  options,
  noJson: true,
  notes: `MCP server on stdin/stdout for coding agents (tools: search_knowledge, list_stores,
read_excerpt). Agents are autonomous workflows: they see only stores with the autonomous-workflows
opt-in (kortty-rag store roles NAME --role ... --autonomous); --store narrows that further, never
widens it. Every tool call is recorded as a run (kortty-rag runs). Logs go to stderr; stdout is the
protocol.`,
  run: runMcp,
});

async function runMcp({ values }: CommandContext<typeof options>): Promise<number> {
  const { runMcpServer } = await import('../../mcp/server.js');
  await runMcpServer({ served: values.store ?? [] });
  return 0;
}
