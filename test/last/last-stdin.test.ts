import { spawn } from 'node:child_process';
import test from 'ava';
import { freshHome } from '../helpers/store-env.js';
import { BIN } from '../plugin/tmux-harness.js';

// `kortty-rag last --stdin`: the WezTerm plugin reads the last Output zone itself and hands the
// command over stdin as JSON; the same bounds and sanitizing apply, with no tmux involved.

async function last(input: string, ...args: string[]) {
  const home = await freshHome();
  const env: NodeJS.ProcessEnv = { ...process.env, KORTTY_HOME: home };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const child = spawn(process.execPath, [BIN, 'last', '--stdin', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr };
}

test('JSON on stdin: marks true, the output bounded and the cut said', async (t) => {
  const output = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\r\n');
  const r = await last(
    JSON.stringify({ command: 'make test', output, exitCode: 2 }),
    '--json',
    '--lines',
    '3',
  );
  t.is(r.code, 0, r.stderr);
  t.deepEqual(JSON.parse(r.stdout), {
    command: 'make test',
    exitCode: 2,
    output: 'line 498\nline 499\nline 500',
    truncated: true,
    marks: true,
    note: 'output cut to its last 3 of 500 lines',
  });
});

test('text on stdin is shown sanitized; bad JSON is named with its field', async (t) => {
  const r = await last(JSON.stringify({ command: 'cat x', output: 'a\u001b]52;c;aGk=\u0007b\u202ec' }));
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '$ cat x    [exit code unknown]\na\\x1b]52;c;aGk=\\x07b\\u202ec\n');
  const bad = await last(JSON.stringify({ command: 'x', output: 3 }));
  t.is(bad.code, 1);
  t.regex(bad.stderr, /stdin: damaged last command: output: expected a string, found number 3/);
  const none = await last('');
  t.regex(none.stderr, /stdin: damaged last command: \(file\): expected JSON, found an empty file/);
});

test('outside tmux without --stdin or --pane: one line saying what to give', async (t) => {
  const home = await freshHome();
  const env: NodeJS.ProcessEnv = { ...process.env, KORTTY_HOME: home };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const child = spawn(process.execPath, [BIN, 'last'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  t.is(code, 1);
  t.regex(stderr, /cannot read the last command: not inside tmux: give --pane TARGET, or --stdin/);
});
