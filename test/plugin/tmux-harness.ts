import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import xterm from '@xterm/headless';
import pty from 'node-pty';
import { waitFor } from '../helpers/wait.js';

// A real tmux server on a private socket (`tmux -L <unique> -f /dev/null`) with a real client
// attached inside a pseudo-terminal. The client's output is rendered by a headless xterm, so a
// display-popup (which capture-pane cannot see: popups are drawn by the client, not held in a
// pane) is asserted on exactly as a user would see it. Keys typed into the pty go through the
// client like a keyboard; tmux commands go through the socket.

export { waitFor };

const run = promisify(execFile);

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'kortty-rag.js');
export const TMUX_ENTRY = join(ROOT, 'kortty-rag.tmux');

export interface TmuxEnv {
  socket: string;
  env: NodeJS.ProcessEnv;
  tmux(...args: string[]): Promise<string>;
  /** Type into the attached client (bytes as a terminal sends them). */
  type(bytes: string): void;
  screen(): string;
  waitForScreen(test: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  kill(): Promise<void>;
}

/** A directory holding a `kortty-rag` command (node + bin/kortty-rag.js), for PATH. */
export async function cliOnPath(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'kortty-rag');
  await writeFile(path, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  await chmod(path, 0o755);
  return dir;
}

export async function startTmux(opts: {
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
  shellCommand?: string;
}): Promise<TmuxEnv> {
  const socket = `kortty-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const cols = opts.cols ?? 120;
  const rows = opts.rows ?? 36;
  const env: NodeJS.ProcessEnv = { ...opts.env, TERM: 'xterm-256color' };
  delete env.TMUX;
  const tmux = async (...args: string[]) => (await run('tmux', ['-L', socket, ...args], { env })).stdout;
  // The server starts with this environment, so jobs, panes and popups inherit KORTTY_HOME etc.
  await tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'main',
    '-x',
    String(cols),
    '-y',
    String(rows),
    opts.shellCommand ?? 'sh',
  );
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  const client = pty.spawn('tmux', ['-L', socket, 'attach-session', '-t', 'main'], {
    name: 'xterm-256color',
    cols,
    rows,
    env: env as Record<string, string>,
  });
  client.onData((d) => term.write(d));
  const screen = () => {
    const b = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < rows; y++) lines.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const t: TmuxEnv = {
    socket,
    env,
    tmux,
    type: (bytes) => client.write(bytes),
    screen,
    waitForScreen: (test, what, timeoutMs = 30_000) =>
      waitFor(
        () => {
          const s = screen();
          return test(s) ? s : undefined;
        },
        what,
        timeoutMs,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${screen()}`);
      }),
    async kill() {
      await tmux('kill-server').catch(() => {});
      try {
        client.kill();
      } catch {}
      term.dispose();
    },
  };
  await waitFor(
    async () => (await tmux('list-clients', '-F', '#{client_name}')).trim() || undefined,
    'the pty client to attach',
  );
  return t;
}
