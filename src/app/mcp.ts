import { type McpServerOptions, runMcpServer as run } from '../mcp/server.js';
import { answerQuery } from './query.js';
import { createSearchDeps } from './search-deps.js';

/** `kortty-rag mcp`: the MCP server over stdio with the app's search dependencies. */
export function runMcpServer(opts: Omit<McpServerOptions, 'depsFactory' | 'answer'> = {}): Promise<void> {
  return run({ ...opts, depsFactory: createSearchDeps, answer: answerQuery });
}
