import { isKorttyError } from '../errors.js';
import { type CliIO, type CommandRun, processIO } from './io.js';

// Commands load lazily so `kortty-rag status` stays fast (it must answer a status bar in < 50 ms).
const COMMANDS: Record<string, () => Promise<{ run: CommandRun }>> = {
  scan: () => import('./commands/scan.js'),
};

export const HELP = `kortty-rag: local knowledge stores for terminal AI actions

usage: kortty-rag [command] [options]

  (no command) | tui           open the knowledge-stores manager
  scan PATH... [--json]        dry-run scan: print the review table, write nothing
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
    io.stderr.write(`kortty-rag ${cmd}: ${isKorttyError(err) ? err.message : ((err as Error)?.stack ?? String(err))}\n`);
    return 1;
  }
}
