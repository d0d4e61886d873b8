import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { COMMON_OPTIONS, type Command, defineCommand, isGroup } from '../../src/cli/command.js';
import { COMMANDS, describeError, loadDefinitions, main, runDefinition } from '../../src/cli/main.js';
import { homeWithStarter } from '../helpers/store-env.js';
import { startTui } from '../tui/harness.js';
import { captureIO, STACK_LINE } from './capture.js';

// Every command and subcommand, taken from the command definitions themselves (so a command added
// later is covered without touching this file): --help and -h answer with the usage and exit 0;
// an unknown option, a missing or unexpected argument, or a bad option value gets one line saying
// what was wrong, then the usage, exit 2; no stack trace ever reaches the user.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));

test.before(async () => {
  process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-cli-home-'));
});

async function allCommands(): Promise<{ commands: Command[]; groups: string[] }> {
  const defs = await loadDefinitions();
  return {
    commands: defs.flatMap((d) => (isGroup(d) ? [...d.commands] : [d])),
    groups: defs.filter(isGroup).map((g) => g.name),
  };
}

async function run(argv: string[]) {
  const c = captureIO();
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

/** Placeholder arguments that satisfy a command's required positionals. */
function requiredArgs(c: Command): string[] {
  return (c.positionals ?? []).filter((p) => !p.optional).map((p) => p.choices?.[0] ?? `x-${p.name}`);
}

function assertUsageError(
  t: import('ava').ExecutionContext,
  r: { code: number; out: string; err: string },
  name: string,
  reason: RegExp,
) {
  t.is(r.code, 2, `${name}: ${r.err}`);
  t.is(r.out, '', `${name}: nothing on stdout`);
  const [first, blank, usage] = r.err.split('\n');
  t.regex(first!, new RegExp(`^kortty-rag ${name}: `), r.err);
  t.regex(first!, reason, r.err);
  t.is(blank, '', r.err);
  t.true(usage!.startsWith(`usage: kortty-rag ${name}`), r.err);
  t.notRegex(r.err, STACK_LINE, `${name}: no stack trace`);
}

test('the registry holds every command module, and each has a definition', async (t) => {
  const defs = await loadDefinitions();
  t.deepEqual(
    defs.map((d) => d.name),
    Object.keys(COMMANDS),
  );
  const { commands } = await allCommands();
  t.true(commands.length >= 25, `${commands.length} commands`);
  for (const c of commands) {
    t.truthy(c.summary, c.name);
    t.is(new Set(Object.keys(c.options)).size, Object.keys(c.options).length);
    for (const k of Object.keys(COMMON_OPTIONS)) t.false(k in c.options, `${c.name} redefines --${k}`);
  }
});

test('every command and subcommand answers --help and -h with its usage, exit 0', async (t) => {
  const { commands } = await allCommands();
  for (const c of commands) {
    for (const flag of ['--help', '-h']) {
      const r = await run([...c.name.split(' '), flag]);
      t.is(r.code, 0, `${c.name} ${flag}: ${r.err}`);
      t.is(r.err, '', `${c.name} ${flag}`);
      t.true(r.out.startsWith(`usage: kortty-rag ${c.name}`), `${c.name} ${flag}:\n${r.out}`);
      t.regex(r.out, /\noptions:\n/);
      t.regex(r.out, /-h, --help {2,}show this help/);
      if (!c.noJson) t.regex(r.out, /--json {2,}print the result as JSON/, `${c.name} keeps --json`);
      // Help fits an 80-column terminal.
      for (const line of r.out.split('\n')) t.true(line.length <= 80, `${c.name}: ${line}`);
    }
    // Also with arguments before it, and through `kortty-rag help NAME`.
    t.is((await run([...c.name.split(' '), ...requiredArgs(c), '--help'])).code, 0, c.name);
    const viaHelp = await run(['help', ...c.name.split(' ')]);
    t.true(viaHelp.out.startsWith(`usage: kortty-rag ${c.name}`), c.name);
  }
});

test('every command and subcommand refuses an unknown option: one line, the usage, exit 2', async (t) => {
  const { commands } = await allCommands();
  for (const c of commands) {
    const r = await run([...c.name.split(' '), ...requiredArgs(c), '--no-such-option']);
    assertUsageError(t, r, c.name, /unknown option --no-such-option$/);
    const short = await run([...c.name.split(' '), '-Z']);
    assertUsageError(t, short, c.name, /unknown option -Z$/);
  }
});

test('missing and unexpected arguments and bad option values are usage errors (exit 2)', async (t) => {
  const { commands } = await allCommands();
  let checked = 0;
  for (const c of commands) {
    const words = c.name.split(' ');
    const required = (c.positionals ?? []).filter((p) => !p.optional);
    if (required.length > 0) {
      assertUsageError(
        t,
        await run(words),
        c.name,
        new RegExp(`missing ${required[0]!.name.replace('.', '\\.')}$`),
      );
    }
    if (!(c.positionals ?? []).some((p) => p.variadic)) {
      const r = await run([...words, ...requiredArgs(c), 'surplus-argument']);
      assertUsageError(t, r, c.name, /unexpected argument "surplus-argument"$/);
    }
    for (const [name, o] of Object.entries(c.options)) {
      if (o.type === 'boolean') {
        assertUsageError(
          t,
          await run([...words, ...requiredArgs(c), `--${name}=yes`]),
          c.name,
          /takes no value$/,
        );
        continue;
      }
      assertUsageError(t, await run([...words, ...requiredArgs(c), `--${name}`]), c.name, /needs a value$/);
      if (o.choices || o.check) {
        const r = await run([...words, ...requiredArgs(c), `--${name}`, 'not-a-valid-value!']);
        assertUsageError(t, r, c.name, new RegExp(`--${name} "not-a-valid-value!"`));
        checked++;
      }
    }
  }
  t.true(checked >= 10, `${checked} checked option values`);
});

test('groups: --help lists the subcommands (exit 0); none or an unknown one is a usage error', async (t) => {
  const { groups, commands } = await allCommands();
  for (const g of groups) {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await run([g, flag]);
      t.is(r.code, 0, `${g} ${flag}`);
      t.true(r.out.startsWith(`usage: kortty-rag ${g} COMMAND`), r.out);
      for (const c of commands.filter((x) => x.name.startsWith(`${g} `)))
        t.true(r.out.includes(`  ${c.name}`), c.name);
    }
    for (const [argv, reason] of [
      [[g], /missing command$/],
      [[g, 'frobnicate'], new RegExp(`unknown command "${g} frobnicate"$`)],
      [[g, '--json'], /expected a command before "--json"$/],
    ] as const) {
      const r = await run([...argv]);
      t.is(r.code, 2, r.err);
      t.regex(r.err.split('\n')[0]!, reason);
      t.regex(r.err, new RegExp(`\\nusage: kortty-rag ${g} `));
      t.notRegex(r.err, STACK_LINE);
    }
  }
});

test('top level: --help lists every command; an unknown command is a usage error', async (t) => {
  for (const argv of [['--help'], ['-h'], ['help'], ['--debug', '--help']]) {
    const r = await run(argv);
    t.is(r.code, 0, argv.join(' '));
    t.true(r.out.startsWith('kortty-rag: local knowledge stores'), r.out);
    for (const name of Object.keys(COMMANDS)) t.regex(r.out, new RegExp(`\\n  ${name} `), name);
    for (const line of r.out.split('\n')) t.true(line.length <= 80, line);
  }
  const bad = await run(['frobnicate']);
  t.is(bad.code, 2);
  t.regex(bad.err, /^kortty-rag: unknown command "frobnicate"\n\nusage: kortty-rag \[COMMAND\]/);
  const badHelp = await run(['help', 'frobnicate']);
  t.is(badHelp.code, 2);
  const version = await run(['--version']);
  t.is(version.code, 0);
  t.regex(version.out, /^kortty-rag \d+\.\d+\.\d+\n$/);
});

test('options before any command go to the manager (tui), not "unknown command"', async (t) => {
  // Off a terminal the manager refuses to start: that refusal proves where the options went.
  for (const argv of [['--keymap', 'vim'], ['--theme', 'light'], ['--debug', '--keymap', 'emacs'], []]) {
    const r = await run(argv);
    t.is(r.code, 2, argv.join(' '));
    t.regex(r.err, /^kortty-rag tui: needs an interactive terminal/, argv.join(' '));
  }
  assertUsageError(t, await run(['--no-such-option']), 'tui', /unknown option --no-such-option$/);
});

test('kortty-rag --keymap vim opens the manager with the vim keymap (real pty)', async (t) => {
  const home = await homeWithStarter();
  const tui = await startTui({ home, keymap: 'vim', argv: ['--keymap', 'vim'] });
  try {
    const s = await tui.screen();
    t.true(s.includes('keymap vim'), s);
  } finally {
    t.is(await tui.quit(), 0);
  }
});

test('an unexpected error is one line naming it with a --debug hint; --debug shows the stack', async (t) => {
  const boom = defineCommand({
    name: 'boom',
    summary: 'throws like a bug would',
    options: {},
    async run() {
      const o = undefined as unknown as { x: { y: number } };
      return o.x.y;
    },
  });
  const plain = captureIO();
  t.is(await runDefinition(boom, [], plain.io, false), 1);
  t.regex(
    plain.stderr(),
    /^kortty-rag boom: unexpected error: TypeError: Cannot read properties of undefined \(reading 'x'\) \(run again with --debug for the details\)\n$/,
  );
  for (const [argv, debugFlag] of [
    [['--debug'], false],
    [[], true],
  ] as const) {
    const debug = captureIO();
    t.is(await runDefinition(boom, [...argv], debug.io, debugFlag), 1);
    t.regex(debug.stderr(), STACK_LINE, 'the stack with --debug');
  }
  t.regex(
    describeError(new RangeError('too deep'), false),
    /^unexpected error: RangeError: too deep \(run again/,
  );

  // A system error says what it was, still without a stack.
  const r = await run(['ask', '--file', '/nonexistent/selection.txt']);
  t.is(r.code, 1);
  t.is(r.err, "kortty-rag ask: ENOENT: no such file or directory, open '/nonexistent/selection.txt'\n");
});

test('the real binary: exit codes and streams for help, usage errors and errors', async (t) => {
  const env = { ...process.env, KORTTY_HOME: process.env.KORTTY_HOME };
  const exec = (args: string[]) =>
    promisify(execFile)(process.execPath, [BIN, ...args], { env }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  const names = Object.keys(COMMANDS);
  const results = await Promise.all(
    names.flatMap((n) => [
      exec([n, '--help']).then((r) => ({ n, kind: 'help', r })),
      exec([n, '--bogus']).then((r) => ({ n, kind: 'bogus', r })),
    ]),
  );
  for (const { n, kind, r } of results) {
    if (kind === 'help') {
      t.is(r.code, 0, `${n} --help: ${r.stderr}`);
      t.regex(r.stdout, new RegExp(`^usage: kortty-rag ${n}`));
    } else {
      t.is(r.code, 2, `${n} --bogus`);
      t.regex(r.stderr, /unknown option --bogus|expected a command before "--bogus"/);
      t.notRegex(r.stderr, STACK_LINE);
    }
  }
  const missing = await exec(['store', 'show', 'No such store']);
  t.is(missing.code, 1);
  t.is(missing.stderr, 'kortty-rag store show: no store named "No such store"\n');
});
