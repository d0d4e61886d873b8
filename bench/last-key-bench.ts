import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { addSources, createStore } from '../src/store/engine.js';
import { createFakeOpenAI } from '../test/helpers/fake-openai.js';
import type { BenchRow } from './run.js';

// What a user waits for after pressing "ask about the last command": a fresh `kortty-rag ask`
// process, from spawn to the first token of the answer on stdout, with the query service warm and
// the loopback OpenAI-compatible fake as the model. Anchor: "ask about selection" on the same
// text (`ask --stdin`, what the popup runs), measured in the same run, interleaved. Measured:
// `ask --last --pane %N` (tmux: reads the shell integration's state file, one `tmux display` and
// one `capture-pane`, redacts) and `ask --last --stdin` (WezTerm's JSON hand-over).
// The three run in turn, each round starting with the next. KORTTY_BENCH_LAST_RUNS sets the
// number of timed runs per path (default 15).

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/kortty-rag.js', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** ms from spawn to the first stdout byte; the process is then waited for. */
async function firstToken(args: string[], env: NodeJS.ProcessEnv, stdin: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let first = -1;
  let err = '';
  child.stdout.on('data', () => {
    if (first < 0) first = performance.now() - t0;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0 || first < 0) throw new Error(`kortty-rag ${args.join(' ')} exited ${code}:\n${err}`);
  if (!/answered by the query service/.test(err))
    throw new Error(`the query service did not answer:\n${err}`);
  return first;
}

export async function benchLastKey(): Promise<BenchRow[]> {
  const runs = Number(process.env.KORTTY_BENCH_LAST_RUNS ?? 15);
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-last-'));
  const docs = `${home}-docs`;
  const socket = `kortty-bench-last-${process.pid}`;
  const fake = await createFakeOpenAI();
  const bin = join(home, 'bin');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KORTTY_HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
  };
  delete env.TMUX;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args], { env }).then((r) => r.stdout);
  try {
    await mkdir(docs, { recursive: true });
    await mkdir(bin);
    await writeFile(
      join(bin, 'kortty-rag'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
      { mode: 0o755 },
    );
    for (let i = 0; i < 60; i++)
      await writeFile(
        join(docs, `doc-${i}.md`),
        `# topic ${i}\n\nls cannot access a path that does not exist; check the spelling of item ${i}.\n`,
      );
    await createStore({ name: 'bench', modelId: STARTER_MODEL_ID, roles: ['text'] }, home);
    await addSources('bench', [{ kind: 'folder', path: docs }], {}, home);
    await run(
      process.execPath,
      [BIN, 'profile', 'add', 'fake', '--base-url', fake.url, '--model', 'm', '--role', 'text'],
      { env },
    );

    // A real bash with the shell integration in a real tmux pane, after a failing command.
    const rc = join(home, 'bashrc');
    await writeFile(rc, `PS1='kr$ '\nHISTFILE=/dev/null\neval "$(kortty-rag shell-init bash)"\n`);
    await tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'b',
      '-x',
      '120',
      '-y',
      '40',
      `bash --noprofile --rcfile '${rc}' -i`,
    );
    const pane = (await tmux('display', '-p', '-t', 'b', '#{pane_id}')).trim();
    const tmuxEnv = {
      ...env,
      TMUX: `${(await tmux('display', '-p', '#{socket_path}')).trim()},${(await tmux('display', '-p', '#{pid}')).trim()},0`,
    };
    await tmux('send-keys', '-t', pane, 'ls -la /nonexistent-bench /tmp/also-missing', 'Enter');
    let captured: { output: string; exitCode: number | null } | undefined;
    for (let i = 0; i < 200 && captured?.exitCode !== 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const r = await run(process.execPath, [BIN, 'last', '--pane', pane, '--json'], { env: tmuxEnv }).catch(
        () => undefined,
      );
      if (r) captured = JSON.parse(r.stdout);
    }
    if (captured?.exitCode !== 2)
      throw new Error(`the failing command was not captured: ${JSON.stringify(captured)}`);
    const selection = captured.output;
    const json = JSON.stringify({
      command: 'ls -la /nonexistent-bench /tmp/also-missing',
      output: selection,
      exitCode: 2,
    });

    const paths = {
      selection: { args: ['ask', '--stdin', '--verbose'], stdin: selection, env },
      tmux: { args: ['ask', '--last', '--pane', pane, '--verbose'], stdin: '', env: tmuxEnv },
      stdin: { args: ['ask', '--last', '--stdin', '--verbose'], stdin: json, env },
    };
    const times: Record<keyof typeof paths, number[]> = { selection: [], tmux: [], stdin: [] };
    // Warm-up: starts the query service and loads the model, tokenizer and snapshot.
    for (const p of Object.values(paths)) await firstToken(p.args, p.env, p.stdin);
    // Each round starts with another path, so none always follows the same one.
    const names = Object.keys(paths) as (keyof typeof paths)[];
    for (let i = 0; i < runs; i++)
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + j) % names.length]!;
        const p = paths[name];
        times[name].push(await firstToken(p.args, p.env, p.stdin));
      }
    const sel = median(times.selection);
    const tm = median(times.tmux);
    const st = median(times.stdin);
    return [
      {
        name: 'last: tmux key to first token / selection',
        ratio: tm / sel,
        details: `ask --last --pane p50 ${tm.toFixed(0)} ms; ask --stdin (selection) p50 ${sel.toFixed(0)} ms (aim <= 1.10); ${runs} runs each, warm service`,
      },
      {
        name: 'last: WezTerm JSON to first token / selection',
        ratio: st / sel,
        details: `ask --last --stdin p50 ${st.toFixed(0)} ms (aim <= 1.10)`,
      },
    ];
  } finally {
    await tmux('kill-server').catch(() => {});
    await run(process.execPath, [BIN, 'service', 'stop'], { env }).catch(() => {});
    await fake.close();
    await rm(home, { recursive: true, force: true });
    await rm(docs, { recursive: true, force: true });
  }
}
