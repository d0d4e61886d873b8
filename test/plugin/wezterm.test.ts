import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { ROOT } from './tmux-harness.js';

// WezTerm cannot run here: plugin/init.lua is syntax-checked with luac5.4 and unit-tested under
// lua5.4 with a stub `wezterm` module (test/plugin/wezterm-stub.lua). The argv the ask key would
// run in its split is then executed for real, with a recorder standing in for kortty-rag.

const run = promisify(execFile);

test('plugin/init.lua compiles (luac5.4 -p)', async (t) => {
  const { stderr } = await run('luac5.4', ['-p', join(ROOT, 'plugin/init.lua')]);
  t.is(stderr, '');
});

test('the Lua unit tests pass against the stub wezterm module, and the ask argv is safe to run', async (t) => {
  const work = await mkdtemp(join(tmpdir(), 'kortty-wezterm-'));
  const argsOut = join(work, 'args.bin');
  const recorder = join(work, 'recorder.sh');
  const pwned = join(tmpdir(), `pwned-${randomBytes(4).toString('hex')}`);
  await writeFile(
    recorder,
    `#!/bin/sh\nprintf '%s\\0' "$@" > '${work}/argv'\ncat > '${work}/stdin'\necho RECORDED\n`,
  );
  await chmod(recorder, 0o755);
  const { stdout } = await run('lua5.4', [
    join(ROOT, 'test/plugin/wezterm-plugin-test.lua'),
    ROOT,
    argsOut,
    recorder,
    pwned,
  ]).catch((err) => {
    t.fail(`lua tests failed:\n${err.stdout}${err.stderr}`);
    throw err;
  });
  const lines = stdout.trim().split('\n');
  t.true(lines.length >= 7, stdout);
  t.true(
    lines.every((l) => l.startsWith('ok - ')),
    stdout,
  );

  // Run exactly what the split would run (WezTerm spawns the argv directly, no shell).
  const args = (await readFile(argsOut, 'utf8')).split('\0').slice(0, -1);
  const expected = await readFile(`${argsOut}.expected`);
  const selectionFile = args[4]!;
  t.deepEqual(await readFile(selectionFile), expected);
  const child = spawn(args[0]!, args.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stdin.end('\n'); // the "press Enter to close" prompt
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  t.is(code, 0);
  t.regex(out, /RECORDED/);
  t.deepEqual(await readFile(join(work, 'stdin')), expected, 'kortty-rag got the exact bytes on stdin');
  t.deepEqual((await readFile(join(work, 'argv'), 'utf8')).split('\0').slice(0, -1), [
    'ask',
    '--action',
    'ask',
    '--stdin',
  ]);
  await t.throwsAsync(stat(selectionFile), { code: 'ENOENT' }, 'the selection file is removed');

  // The last-command key: the zones' command and output reach kortty-rag as JSON on stdin.
  const lastArgs = (await readFile(`${argsOut}.last`, 'utf8')).split('\0').slice(0, -1);
  const [command, output] = (await readFile(`${argsOut}.last.expected`, 'utf8')).split('\0');
  const lastFile = lastArgs[4]!;
  t.is((await stat(lastFile)).mode & 0o777, 0o600);
  for (const a of lastArgs) t.false(a.includes('nonexistent') || a.includes('pwned'), a);
  const child2 = spawn(lastArgs[0]!, lastArgs.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  child2.stdout.resume();
  child2.stdin.end('\n');
  t.is(await new Promise<number | null>((r) => child2.on('exit', r)), 0);
  t.deepEqual(JSON.parse(await readFile(join(work, 'stdin'), 'utf8')), { command, output });
  t.regex(output!, /\u001b\[31mred/, 'the output as the pane holds it, escapes included');
  t.deepEqual((await readFile(join(work, 'argv'), 'utf8')).split('\0').slice(0, -1), [
    'ask',
    '--action',
    'ask',
    '--last',
    '--stdin',
  ]);
  await t.throwsAsync(stat(lastFile), { code: 'ENOENT' }, 'the last-command file is removed');
  const leaked = (await readdir(tmpdir())).filter((n) => n.startsWith(pwned.slice(tmpdir().length + 1)));
  t.deepEqual(leaked, []);
});
