import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LastCommand, readLastCommand } from '../src/app/last-command.js';
import { lastStatePath } from '../src/storage/paths.js';
import { waitFor } from '../test/helpers/wait.js';
import type { BenchRow } from './run.js';

// `kortty-rag last`'s path in process: config and state file read and checked, `tmux display`,
// `tmux capture-pane` of the command's rows (a second, unjoined capture when the history is full
// and the rows are found by their text) and the bound, for a command that printed 10,000 lines
// in a real bash with the shell integration in a real tmux. The anchor is the bare
// `tmux capture-pane -p -J` of the same 10,000 rows, measured in the same run, alternating.
// Target: ≤ 50 ms per capture.
// KORTTY_BENCH_LAST_ROUNDS (default 30).

const run = promisify(execFile);
const SNIPPET = fileURLToPath(new URL('../../shell/kortty-rag.bash', import.meta.url));
const LINES = 10_000;

/**
 * Where the retrieval query is shaped from the captured command (its line and error lines). The
 * shaping module is not on this branch yet; when it is, call it here so the figure includes it.
 */
const shapeForQuery = (last: LastCommand): string => `${last.command}\n${last.output}`;

async function scenario(name: string, historyLimit: number, rounds: number): Promise<BenchRow> {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-bench-last-'));
  const home = join(dir, 'kortty');
  const socket = `kortty-bench-${randomBytes(4).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    KORTTY_HOME: home,
    TERM: 'xterm-256color',
  };
  const tmux = async (...args: string[]) => (await run('tmux', ['-L', socket, ...args], { env })).stdout;
  try {
    await writeFile(join(dir, 'rc'), `PS1='$ '\nsource ${JSON.stringify(SNIPPET)}\n`);
    await writeFile(join(dir, 'tmux.conf'), `set -g history-limit ${historyLimit}\n`);
    await tmux(
      '-f',
      join(dir, 'tmux.conf'),
      'new-session',
      '-d',
      '-x',
      '120',
      '-y',
      '40',
      `bash --rcfile ${join(dir, 'rc')} -i`,
    );
    const [pane, socketPath, pid] = (await tmux('display', '-p', '#{pane_id} #{socket_path} #{pid}'))
      .trim()
      .split(' ') as [string, string, string];
    await tmux('send-keys', '-t', pane, '-l', `seq ${LINES}`);
    await tmux('send-keys', '-t', pane, 'Enter');
    const state = lastStatePath(Number(pid), pane, home);
    await waitFor(
      async () => (await readFile(state, 'utf8').catch(() => '')).includes(`last-command seq ${LINES}`),
      'the shell to record the command',
    );
    const clientEnv = { ...env, TMUX: `${socketPath},${pid},0` };
    const last = async () => {
      const l = await readLastCommand({
        pane,
        home,
        env: clientEnv,
        maxLines: LINES,
        maxBytes: 4 * 1024 * 1024,
      });
      return shapeForQuery(l).length;
    };
    const bare = async () =>
      (await tmux('capture-pane', '-p', '-J', '-t', pane, '-S', `-${LINES}`, '-E', '-1')).length;
    const check = await readLastCommand({
      pane,
      home,
      env: clientEnv,
      maxLines: LINES,
      maxBytes: 4 * 1024 * 1024,
    });
    const got = check.output.split('\n');
    await last();
    await bare();
    const tLast: number[] = [];
    const tBare: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      await last();
      tLast.push(performance.now() - t0);
      t0 = performance.now();
      await bare();
      tBare.push(performance.now() - t0);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ms = med(tLast);
    const anchor = med(tBare);
    return {
      name: `last: ${name}`,
      ratio: ms / anchor,
      details: `median ${ms.toFixed(1)} ms per capture (target ≤ 50 ms: ${ms <= 50 ? 'met' : 'MISSED'}) vs bare capture-pane ${anchor.toFixed(1)} ms; ${got.length} lines captured (last "${got.at(-1)}"${check.truncated ? ', cut' : ''}), history-limit ${historyLimit}, ${rounds} rounds`,
    };
  } finally {
    await tmux('kill-server').catch(() => {});
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}

export async function benchLast(): Promise<BenchRow[]> {
  const rounds = Number(process.env.KORTTY_BENCH_LAST_ROUNDS ?? 30);
  return [
    await scenario('10,000-line output, exact rows', 20_000, rounds),
    await scenario('10,000-line output, full history (found by text)', LINES, rounds),
  ];
}
