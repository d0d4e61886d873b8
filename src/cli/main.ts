import { isKorttyError } from '../errors.js';
import { type CliIO, type CommandRun, processIO } from './io.js';

// Commands load lazily so `kortty-rag status` stays fast (it must answer a status bar in < 50 ms).
const COMMANDS: Record<string, () => Promise<{ run: CommandRun }>> = {
  scan: () => import('./commands/scan.js'),
  store: () => import('./commands/store.js'),
  source: () => import('./commands/source.js'),
  models: () => import('./commands/models.js'),
  status: () => import('./commands/status.js'),
  search: () => import('./commands/search.js'),
  tui: () => import('./commands/tui.js'),
  ask: () => import('./commands/ask.js'),
  runs: () => import('./commands/runs.js'),
  profile: () => import('./commands/profile.js'),
  watch: () => import('./commands/watch.js'),
  mcp: () => import('./commands/mcp.js'),
  service: () => import('./commands/service.js'),
};

export const HELP = `kortty-rag: local knowledge stores for terminal AI actions

usage: kortty-rag [command] [options]

  (no command) | tui           open the knowledge-stores manager
  scan PATH... [--json]        dry-run scan: print the review table, write nothing
  store create|list|show|roles|rebuild|delete     manage knowledge stores
  source add|list|update|disable|enable|sync|remove   manage a store's sources
  models list|install|add|remove|verify           embedding models
  search [--store S] [--mode M] QUERY             Test search: the exact block a model would get
  ask [--action A] [--profile P] [--stdin] [PROMPT] AI action with retrieval; streams the answer
  runs [--last N]                                  recent AI actions, their excerpts, stale citations
  profile add|list|role                            AI profiles and role assignments
  status [--format plain|tmux|json]               one line for a status bar
  watch [--reconcile-seconds N] [--if-not-running]  keep automatic sources in sync
  mcp [--store S]...                              MCP server (stdio) for coding agents
  service run|status|stop                          the warm query service (search/ask start it)

Every command takes --json; run a command without arguments for its usage.
Data lives in $KORTTY_HOME/rag (default ~/.kortty/rag).
`;

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [cmd = 'tui', ...rest] = argv;
  if (cmd === '-h' || cmd === '--help' || cmd === 'help') {
    io.stdout.write(HELP);
    return 0;
  }
  const load = COMMANDS[cmd];
  if (!load) {
    io.stderr.write(`kortty-rag: unknown command "${cmd}"\n\n${HELP}`);
    return 2;
  }
  try {
    const mod = await load();
    return await mod.run(rest, io);
  } catch (err) {
    io.stderr.write(
      `kortty-rag ${cmd}: ${isKorttyError(err) ? err.message : ((err as Error)?.stack ?? String(err))}\n`,
    );
    return 1;
  }
}
