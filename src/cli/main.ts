import { isKorttyError } from '../errors.js';
import {
  type Command,
  type CommandGroup,
  type Definition,
  isGroup,
  isUsageError,
  parseCommand,
} from './command.js';
import { commandHelp, groupHelp, groupUsage, topHelp, usageText } from './help.js';
import { type CliIO, processIO, terminalIO } from './io.js';

// Commands load lazily so `kortty-rag status` stays fast (it must answer a status bar in < 50 ms).
// Each module exports `definition`: a command or a group of subcommands (see command.ts).
export const COMMANDS: Record<string, () => Promise<{ definition: Definition }>> = {
  tui: () => import('./commands/tui.js'),
  scan: () => import('./commands/scan.js'),
  store: () => import('./commands/store.js'),
  source: () => import('./commands/source.js'),
  models: () => import('./commands/models.js'),
  search: () => import('./commands/search.js'),
  ask: () => import('./commands/ask.js'),
  runs: () => import('./commands/runs.js'),
  profile: () => import('./commands/profile.js'),
  status: () => import('./commands/status.js'),
  watch: () => import('./commands/watch.js'),
  mcp: () => import('./commands/mcp.js'),
  service: () => import('./commands/service.js'),
  last: () => import('./commands/last.js'),
  'shell-init': () => import('./commands/shell-init.js'),
};

/** Every definition, in the order of COMMANDS (for the top-level help and the tests). */
export async function loadDefinitions(): Promise<Definition[]> {
  return Promise.all(Object.values(COMMANDS).map(async (load) => (await load()).definition));
}

const SHORT_USAGE = `usage: kortty-rag [COMMAND] [options]
commands: ${Object.keys(COMMANDS).join(', ')}
Run "kortty-rag --help" for what each does.
`;

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let args = argv;
  let debug = io.env.KORTTY_DEBUG === '1';
  while (args[0] === '--debug') {
    debug = true;
    args = args.slice(1);
  }
  const [first, ...rest] = args;
  if (first === '-h' || first === '--help') {
    io.stdout.write(topHelp(await loadDefinitions()));
    return 0;
  }
  if (first === 'help') return help(rest, io);
  if (first === '--version' || first === '-V') {
    io.stdout.write(`kortty-rag ${await packageVersion()}\n`);
    return 0;
  }
  // No command, or options first (`kortty-rag --keymap vim`): the manager.
  if (first === undefined || first.startsWith('-'))
    return runDefinition((await COMMANDS.tui!()).definition, args, io, debug);
  const load = COMMANDS[first];
  if (!load) {
    terminalIO(io, { json: false }).stderr.write(
      `kortty-rag: unknown command ${JSON.stringify(first)}\n\n${SHORT_USAGE}`,
    );
    return 2;
  }
  return runDefinition((await load()).definition, rest, io, debug);
}

async function packageVersion(): Promise<string> {
  return (await import('../app/files.js')).packageVersion();
}

/** `kortty-rag help [COMMAND [SUBCOMMAND]]`. */
async function help(words: string[], io: CliIO): Promise<number> {
  const [name, sub] = words;
  const load = name === undefined ? undefined : COMMANDS[name];
  if (name === undefined || !load) {
    if (name !== undefined) {
      terminalIO(io, { json: false }).stderr.write(
        `kortty-rag help: unknown command ${JSON.stringify(name)}\n\n${SHORT_USAGE}`,
      );
      return 2;
    }
    io.stdout.write(topHelp(await loadDefinitions()));
    return 0;
  }
  const def = (await load()).definition;
  const cmd =
    isGroup(def) && sub !== undefined ? def.commands.find((c) => c.name === `${name} ${sub}`) : undefined;
  io.stdout.write(cmd ? commandHelp(cmd) : isGroup(def) ? groupHelp(def) : commandHelp(def));
  return 0;
}

export async function runDefinition(
  def: Definition,
  argv: string[],
  io: CliIO,
  debug: boolean,
): Promise<number> {
  if (!isGroup(def)) return runCommand(def, argv, io, debug);
  const [sub, ...rest] = argv;
  if (sub === '-h' || sub === '--help' || sub === 'help') {
    io.stdout.write(groupHelp(def));
    return 0;
  }
  const cmd = sub === undefined ? undefined : def.commands.find((c) => c.name === `${def.name} ${sub}`);
  if (!cmd) return groupUsageError(def, sub, io);
  return runCommand(cmd, rest, io, debug);
}

function groupUsageError(g: CommandGroup, sub: string | undefined, io: CliIO): number {
  const why =
    sub === undefined
      ? 'missing command'
      : sub.startsWith('-')
        ? `expected a command before ${JSON.stringify(sub)}`
        : `unknown command ${JSON.stringify(`${g.name} ${sub}`)}`;
  terminalIO(io, { json: false }).stderr.write(`kortty-rag ${g.name}: ${why}\n\n${groupUsage(g)}`);
  return 2;
}

async function runCommand(cmd: Command, argv: string[], io: CliIO, debugFlag: boolean): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(cmd, argv);
  } catch (err) {
    return usageFailure(cmd, err, io, debugFlag);
  }
  const { values, positionals, args } = parsed;
  if (values.help) {
    io.stdout.write(commandHelp(cmd));
    return 0;
  }
  const debug = debugFlag || values.debug === true;
  const json = cmd.jsonOutput ? cmd.jsonOutput(values as never) : values.json === true;
  const tio = terminalIO(io, { json });
  const out = (obj: unknown, text: string) =>
    tio.stdout.write(json ? `${JSON.stringify(obj, null, 2)}\n` : `${text}\n`);
  try {
    return await cmd.run({ values: values as never, positionals, args, io: tio, out, json });
  } catch (err) {
    if (isUsageError(err)) return usageFailure(cmd, err, tio, debug);
    tio.stderr.write(`kortty-rag ${cmd.name}: ${describeError(err, debug)}\n`);
    return 1;
  } finally {
    tio.flush();
  }
}

function usageFailure(cmd: Command, err: unknown, io: CliIO, debug: boolean): number {
  if (!isUsageError(err)) throw err;
  const tio = io.rawStderr ? io : terminalIO(io, { json: false });
  tio.stderr.write(`kortty-rag ${cmd.name}: ${(err as Error).message}\n\n${usageText(cmd)}`);
  if (debug) tio.stderr.write(`${(err as Error).stack}\n`);
  return 2;
}

/**
 * One line for a user: our errors name the file or object and the reason; a system error (ENOENT
 * …) says what it was; anything else is a bug, shown by name with the hint to rerun with --debug,
 * which prints the stack and the causes.
 */
export function describeError(err: unknown, debug: boolean): string {
  if (debug) {
    const parts: string[] = [];
    for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; depth++) {
      parts.push(
        depth === 0 ? String((e as Error)?.stack ?? e) : `caused by: ${String((e as Error)?.stack ?? e)}`,
      );
      e = (e as { cause?: unknown })?.cause;
    }
    return parts.join('\n');
  }
  if (isKorttyError(err)) return err.message;
  const e = err as NodeJS.ErrnoException | undefined;
  if (e && typeof e.code === 'string' && typeof e.syscall === 'string') return e.message;
  const name = e instanceof Error ? e.name : typeof err;
  const message = e instanceof Error ? e.message : String(err);
  return `unexpected error: ${name}: ${message.split('\n')[0]} (run again with --debug for the details)`;
}
