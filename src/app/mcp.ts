import { type McpServerOptions, runMcpServer as run } from '../mcp/server.js';
import { answerQuery, excerptBlock } from './query.js';
import { createSearchDeps } from './search-deps.js';

/** `kortty-rag mcp`: the MCP server over stdio with the app's search dependencies. */
export function runMcpServer(
  opts: Omit<McpServerOptions, 'depsFactory' | 'answer' | 'excerptBlock'> = {},
): Promise<void> {
  return run({ ...opts, depsFactory: createSearchDeps, answer: answerQuery, excerptBlock });
}
