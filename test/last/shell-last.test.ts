import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import test from 'ava';
import { waitFor } from '../helpers/wait.js';
import { marksIn, type ShellName, type ShellPane, startShell } from './shell-harness.js';

// The shell integration in real bash, zsh and fish inside a real tmux (3.3a here: the marks go
// out wrapped in DCS passthrough), and `kortty-rag last` reading what they recorded.

const LS_ERR = "ls: cannot access '/nonexistent': No such file or directory";
const GIT_ERR = 'fatal: not a git repository (or any of the parent directories): .git';

const panes: ShellPane[] = [];
const start = async (...args: Parameters<typeof startShell>) => {
  const p = await startShell(...args);
  panes.push(p);
  return p;
};
test.after.always(async () => {
  await Promise.all(panes.map((p) => p.kill()));
});

/** Runs a command line in the pane and waits until the shell recorded its end. */
async function runCommand(p: ShellPane, line: string) {
  await p.type(line);
  await p.waitForRecorded(line);
}

for (const shell of ['bash', 'zsh', 'fish'] as ShellName[]) {
  test.serial(
    `${shell}: marks A B C D;status around each command, failing commands captured exactly`,
    async (t) => {
      const p = await start(shell, { extra: shell === 'fish' ? 'cd $HOME' : 'cd "$HOME"' });
      await runCommand(p, 'ls /nonexistent');
      t.deepEqual(await p.lastJson(), {
        command: 'ls /nonexistent',
        exitCode: 2,
        output: LS_ERR,
        truncated: false,
        marks: true,
      });
      await runCommand(p, 'git status');
      t.deepEqual(await p.lastJson(), {
        command: 'git status',
        exitCode: 128,
        output: GIT_ERR,
        truncated: false,
        marks: true,
      });

      const raw = await readFile(p.rawPath, 'latin1');
      // tmux 3.3 drops OSC 133, so the snippet wraps them for passthrough.
      t.true(raw.includes('\x1bPtmux;\x1b\x1b]133;D;2\x07\x1b\\'), 'a DCS-wrapped D;2');
      const marks = marksIn(raw);
      const firstC = marks.indexOf('C');
      // Sourced twice, installed once: one C and one D per command, in order.
      t.deepEqual(marks.slice(marks.lastIndexOf('A', firstC)), [
        'A',
        'B',
        'C',
        'D;2',
        'A',
        'B',
        'C',
        'D;128',
        'A',
        'B',
      ]);

      const state = await p.statePath();
      t.is((await stat(state)).mode & 0o777, 0o600);
      t.is((await stat(dirname(state))).mode & 0o777, 0o700);
    },
  );
}

for (const form of ['string', 'array'] as const) {
  test.serial(
    `bash: an existing PROMPT_COMMAND (${form}) and PS0 keep running and see the exit status`,
    async (t) => {
      const p = await start('bash', {
        extra: `__user_pc() { echo "pc:$?" >> ~/pc.log; }
PROMPT_COMMAND=${form === 'array' ? '(__user_pc)\nset -u' : '__user_pc'}
PS0='$(echo ran >> ~/ps0.log)'`,
      });
      await runCommand(p, 'ls /nonexistent');
      await runCommand(p, 'true');
      t.is((await p.lastJson()).exitCode, 0);
      t.deepEqual((await readFile(join(p.home, 'pc.log'), 'utf8')).trim().split('\n'), [
        'pc:0',
        'pc:2',
        'pc:0',
      ]);
      t.deepEqual((await readFile(join(p.home, 'ps0.log'), 'utf8')).trim().split('\n'), ['ran', 'ran']);
      await p.type('declare -p PROMPT_COMMAND > ~/pc.decl');
      const decl = await waitFor(
        () => readFile(join(p.home, 'pc.decl'), 'utf8').catch(() => undefined),
        'the declaration',
      );
      t.is(decl.match(/__kr_precmd/g)?.length, 1, decl);
      t.is(decl.startsWith(form === 'array' ? 'declare -a' : 'declare --'), true, decl);
    },
  );
}

for (const shell of ['bash', 'zsh'] as const) {
  test.serial(`${shell}: a coloured two-line prompt, and output without a final newline`, async (t) => {
    const prompt =
      shell === 'bash'
        ? `PS1='\\[\\e[33m\\]\\u@test \\w\\[\\e[0m\\]\\n\\$ '`
        : `PS1=$'%{\\e[33m%}%n@test %~%{\\e[0m%}\\n%# '`;
    const p = await start(shell, { prompt });
    await runCommand(p, 'echo one; echo two; false');
    t.like(await p.lastJson(), {
      command: 'echo one; echo two; false',
      exitCode: 1,
      output: 'one\ntwo',
      marks: true,
    });
    await runCommand(p, "printf 'no newline'");
    const last = await p.lastJson();
    // zsh prints its PROMPT_EOL_MARK (% or #) after an unfinished line before its hooks run: the
    // snippet ends the output before it. An output that really ends in such a character keeps it.
    t.is(last.output, 'no newline');
    await runCommand(p, "printf 'ends in %%%s' '#'");
    t.is((await p.lastJson()).output, 'ends in %#');
    await runCommand(p, "echo 'ends in %#'");
    t.is((await p.lastJson()).output, 'ends in %#');
  });
}

test.serial('bash: 100,000 lines are cut to the bound, and what was cut is said', async (t) => {
  const p = await start('bash');
  await runCommand(p, 'seq 100000');
  const last = await p.lastJson();
  t.is(last.exitCode, 0);
  t.true(last.truncated);
  const lines = last.output.split('\n');
  t.is(lines.length, 200);
  t.is(lines[0], '99801');
  t.is(lines.at(-1), '100000');
  t.regex(last.note!, /scrolled out of tmux's history \(history-limit 2000\)/);
  t.regex(last.note!, /last 200 of/);
  const small = await p.lastJson('--lines', '1000', '--bytes', '300');
  t.true(Buffer.byteLength(small.output) <= 300);
  t.is(small.output.split('\n').at(-1), '100000');
  t.regex(small.note!, /bytes/);
  // The history is full now: the next command is found by its rows' text, exactly.
  await runCommand(p, 'ls /nonexistent');
  t.like(await p.lastJson(), { command: 'ls /nonexistent', exitCode: 2, output: LS_ERR, truncated: false });
  // The text output of a command within bounds.
  const text = await p.last();
  t.is(text.stdout, `$ ls /nonexistent    [exit 2]\n${LS_ERR}\n`);
});

test.serial('bash: escape sequences in the output are captured and shown sanitized', async (t) => {
  const p = await start('bash');
  const cmd = "printf 'a\\u202eb\\033]52;c;aGk=\\007c\\033[31md\\033[0m\\n'";
  await runCommand(p, cmd);
  const last = await p.lastJson();
  // tmux interprets the sequences (no clipboard write reaches anything); what it keeps is text.
  t.is(last.output, 'a\u202ebcd');
  const text = await p.last();
  t.is(text.code, 0);
  t.true(text.stdout.includes('a\\u202ebcd'), text.stdout);
  t.false(text.stdout.includes('\u202e'));
  t.notRegex(text.stdout, /[\x00-\x08\x0b-\x1f\x7f]/);
  const json = await p.last('--json');
  t.false(json.stdout.includes('\u202e'), 'JSON escapes it too');
  t.is(JSON.parse(json.stdout).output, 'a\u202ebcd');
});

test.serial(
  'no marks: the text since the previous prompt, and a note that marks would be exact',
  async (t) => {
    const p = await start('bash', { integration: false });
    await p.type('ls /nonexistent');
    await p.waitForScreen(
      (s) => /\n[^\n]*@test:[^\n]*[$#] *$/.test(s.trimEnd()) && s.includes(`${LS_ERR}\n`),
      'the output and the next prompt',
    );
    const last = await p.lastJson();
    t.like(last, { command: 'ls /nonexistent', exitCode: null, output: LS_ERR, marks: false });
    t.regex(last.note!, /prompt pattern/);
    t.regex(last.note!, /shell-init/);
    // A prompt pattern of its own in config.json.
    await mkdir(join(p.korttyHome, 'rag'), { recursive: true });
    await writeFile(
      join(p.korttyHome, 'rag', 'config.json'),
      JSON.stringify({ last: { promptPattern: '^nomatch ' } }),
    );
    const none = await p.lastJson();
    t.is(none.output, '');
    t.regex(none.note!, /no two prompt lines/);
    await writeFile(
      join(p.korttyHome, 'rag', 'config.json'),
      JSON.stringify({ last: { promptPattern: '(' } }),
    );
    const bad = await p.last();
    t.is(bad.code, 1);
    t.regex(
      bad.stderr,
      /config\.json: damaged configuration: last\.promptPattern: expected a valid regular expression/,
    );
  },
);

test.serial('a cleared screen, cleared history and a resized pane give a clear answer', async (t) => {
  const p = await start('bash', { cols: 100 });
  await runCommand(p, 'seq 40');
  await runCommand(p, 'ls /nonexistent');
  // Ctrl-L: tmux scrolls the screen into its history, the rows stay where they were.
  await p.tmux('send-keys', '-t', p.pane, 'C-l');
  await p.waitForScreen((s) => !s.includes(LS_ERR), 'the cleared screen');
  t.like(await p.lastJson(), { output: LS_ERR, exitCode: 2 });
  // The history cleared under it: its rows are gone.
  await p.tmux('clear-history', '-t', p.pane);
  const cleared = await p.lastJson();
  t.like(cleared, { command: 'ls /nonexistent', exitCode: 2, output: '', marks: true });
  t.regex(cleared.note!, /history was cleared/);
  // `clear` as the command.
  await runCommand(p, 'clear');
  const clear = await p.lastJson();
  t.is(clear.output, '');
  // A pane resized since: tmux rewrapped its rows.
  await runCommand(p, 'ls /nonexistent');
  await p.tmux('resize-window', '-t', 'main', '-x', '70');
  const resized = await p.lastJson();
  t.like(resized, { command: 'ls /nonexistent', output: '', marks: true });
  t.regex(resized.note!, /resized since the command ran \(100 → 70 columns\)/);
});

test.serial('a damaged state file is named with its field', async (t) => {
  const p = await start('bash');
  await runCommand(p, 'ls /nonexistent');
  const path = await p.statePath();
  const text = await readFile(path, 'utf8');
  await writeFile(path, text.replace(/^last-end (\d+) (\d+)/m, 'last-end $1 x'));
  const r = await p.last();
  t.is(r.code, 1);
  t.true(
    r.stderr.includes(`${path}: damaged last-command state: ["last-end"].cursorY: expected a number`),
    r.stderr,
  );
  // The shell could not ask tmux for the rows: the command and status, and a note.
  await writeFile(path, `kortty-rag-last 1\npane ${p.pane}\nlast-command make%25%0Aall\nlast-exit 2\n`);
  const unplaced = await p.lastJson();
  t.like(unplaced, { command: 'make%\nall', exitCode: 2, output: '', marks: true });
  t.regex(unplaced.note!, /tmux did not answer/);
  await writeFile(path, text.replace(/^pane .*$/m, 'pane %77'));
  t.regex((await p.last()).stderr, /damaged last-command state: pane: expected %\d+, found %77/);
  await writeFile(path, `${text}pane %9\n`);
  t.regex((await p.last()).stderr, /line \d+: expected one "pane" line, found a second one/);
});

test.serial('kortty-rag last inside the pane reads its own pane and the command before it', async (t) => {
  const p = await start('bash');
  await runCommand(p, 'ls /nonexistent');
  await p.type('kortty-rag last --json > ~/last.json; echo saved');
  await p.waitForRecorded('kortty-rag last --json > ~/last.json; echo saved');
  const last = JSON.parse(await readFile(join(p.home, 'last.json'), 'utf8'));
  t.deepEqual(last, {
    command: 'ls /nonexistent',
    exitCode: 2,
    output: LS_ERR,
    truncated: false,
    marks: true,
  });
});
