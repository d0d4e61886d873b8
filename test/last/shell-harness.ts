import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { lastStatePath } from '../../src/storage/paths.js';
import { tempDir } from '../helpers/store-env.js';
import { waitFor } from '../helpers/wait.js';
import { BIN, cliOnPath } from '../plugin/tmux-harness.js';

// A real shell (bash, zsh or fish) in a real tmux server on a private socket, with its own HOME,
// KORTTY_HOME and rc file, and `kortty-rag` on its PATH. Everything the pane's programs write is
// copied raw to a file (`tmux pipe-pane`), so the OSC 133 marks can be read as the terminal got
// them. Commands are typed with send-keys; the tests wait for the shell's own signals (the state
// file, the screen), never for a clock.

const run = promisify(execFile);

export type ShellName = 'bash' | 'zsh' | 'fish';

export interface ShellPane {
  shell: ShellName;
  home: string;
  korttyHome: string;
  /** The raw bytes the pane's programs wrote. */
  rawPath: string;
  pane: string;
  /** The environment a client of this tmux server needs ($TMUX names its socket). */
  clientEnv: NodeJS.ProcessEnv;
  tmux(...args: string[]): Promise<string>;
  /** Types a command line and Enter. */
  type(line: string): Promise<void>;
  screen(): Promise<string>;
  waitForScreen(test: (s: string) => boolean, what: string): Promise<string>;
  statePath(): Promise<string>;
  /** Waits until the state file says `command` ended (its last-command line and no running one). */
  waitForRecorded(command: string): Promise<string>;
  /** `kortty-rag last --pane … ARGS` from outside the pane. */
  last(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  lastJson(...args: string[]): Promise<LastJson>;
  kill(): Promise<void>;
}

export interface LastJson {
  command: string;
  exitCode: number | null;
  output: string;
  truncated: boolean;
  marks: boolean;
  note?: string;
}

export const encodeField = (s: string) =>
  s.replaceAll('%', '%25').replaceAll('\n', '%0A').replaceAll('\r', '%0D');

function rcFor(
  shell: ShellName,
  opts: { prompt: string; integration: boolean; extra: string },
  korttyHome: string,
) {
  const init = opts.integration ? `kortty-rag shell-init ${shell}` : '';
  if (shell === 'fish')
    return `set -gx KORTTY_HOME ${JSON.stringify(korttyHome)}
set -g fish_greeting ''
${opts.prompt}
${opts.extra}
${init ? `${init} | source\n${init} | source` : ''}
`;
  return `export KORTTY_HOME=${JSON.stringify(korttyHome)}
${shell === 'bash' ? 'HISTCONTROL=ignoreboth\nHISTFILE=/dev/null' : 'HISTFILE=/dev/null'}
${opts.prompt}
${opts.extra}
${init ? `eval "$(${init})"\neval "$(${init})"` : ''}
`;
}

/** A prompt per shell: coloured, ending in "$ " (bash), "% " (zsh) or "> " (fish). */
export const COLOUR_PROMPT: Record<ShellName, string> = {
  bash: `PS1='\\[\\e[1;32m\\]\\u@test\\[\\e[0m\\]:\\w\\$ '`,
  zsh: `PS1=$'%{\\e[1;35m%}%n@test%{\\e[0m%}:%~%# '`,
  fish: `function fish_prompt; set_color -o green; printf '%s@test' $USER; set_color normal; printf ':%s> ' (prompt_pwd); end`,
};

export async function startShell(
  shell: ShellName,
  opts: {
    prompt?: string;
    integration?: boolean;
    /** More rc lines, before the integration. */
    extra?: string;
    cols?: number;
    rows?: number;
    historyLimit?: number;
  } = {},
): Promise<ShellPane> {
  const dir = await tempDir(`kortty-last-${shell}-`);
  const home = join(dir, 'home');
  const korttyHome = join(dir, 'kortty');
  await mkdir(home, { recursive: true });
  await mkdir(korttyHome, { recursive: true });
  const binDir = await cliOnPath(join(dir, 'bin'));
  const rc = rcFor(
    shell,
    {
      prompt: opts.prompt ?? COLOUR_PROMPT[shell],
      integration: opts.integration ?? true,
      extra: opts.extra ?? '',
    },
    korttyHome,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: `${binDir}:${process.env.PATH}`,
    HOME: home,
    KORTTY_HOME: korttyHome,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    USER: 'tester',
    XDG_CONFIG_HOME: join(home, '.config'),
  };
  let command: string;
  if (shell === 'bash') {
    await writeFile(join(home, 'rc.bash'), rc);
    command = `bash --noprofile --rcfile ${join(home, 'rc.bash')} -i`;
  } else if (shell === 'zsh') {
    await writeFile(join(home, '.zshrc'), rc);
    env.ZDOTDIR = home;
    command = 'zsh -i';
  } else {
    await mkdir(join(home, '.config', 'fish'), { recursive: true });
    await writeFile(join(home, '.config', 'fish', 'config.fish'), rc);
    command = 'fish -i';
  }
  const socket = `kortty-last-${process.pid}-${randomBytes(4).toString('hex')}`;
  const conf = join(dir, 'tmux.conf');
  await writeFile(conf, `set -g history-limit ${opts.historyLimit ?? 2000}\nset -g status off\n`);
  const tmux = async (...args: string[]) => (await run('tmux', ['-L', socket, ...args], { env })).stdout;
  await tmux(
    '-f',
    conf,
    'new-session',
    '-d',
    '-s',
    'main',
    '-x',
    String(opts.cols ?? 100),
    '-y',
    String(opts.rows ?? 30),
    command,
  );
  const [pane, socketPath, serverPid] = (
    await tmux('display-message', '-p', '-t', 'main', '#{pane_id} #{socket_path} #{pid}')
  )
    .trim()
    .split(' ') as [string, string, string];
  const rawPath = join(dir, 'raw');
  await tmux('pipe-pane', '-t', pane, `cat >> ${rawPath}`);
  const clientEnv = { ...env, TMUX: `${socketPath},${serverPid},0` };
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', pane);
  const statePath = async () => lastStatePath(Number(serverPid), pane, korttyHome);
  const last = (...args: string[]) =>
    run(process.execPath, [BIN, 'last', '--pane', pane, ...args], { env: clientEnv }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  const p: ShellPane = {
    shell,
    home,
    korttyHome,
    rawPath,
    pane,
    clientEnv,
    tmux,
    async type(line) {
      await tmux('send-keys', '-t', pane, '-l', line);
      await tmux('send-keys', '-t', pane, 'Enter');
    },
    screen,
    waitForScreen: (test, what) =>
      waitFor(
        async () => {
          const s = await screen();
          return test(s) ? s : undefined;
        },
        what,
        20_000,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${await screen()}`);
      }),
    statePath,
    async waitForRecorded(cmd) {
      const path = await statePath();
      return waitFor(
        async () => {
          const text = await readFile(path, 'utf8').catch(() => '');
          return text.includes(`\nlast-command ${encodeField(cmd)}\n`) && !text.includes('\nrun-')
            ? text
            : undefined;
        },
        `the state file to record the end of ${JSON.stringify(cmd)}`,
        20_000,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}\n--- state ---\n${await readFile(path, 'utf8').catch(() => '(none)')}\n--- screen ---\n${await screen()}`,
        );
      });
    },
    last,
    async lastJson(...args) {
      const r = await last('--json', ...args);
      if (r.code !== 0) throw new Error(`kortty-rag last failed (${r.code}): ${r.stderr}`);
      return JSON.parse(r.stdout) as LastJson;
    },
    async kill() {
      await tmux('kill-server').catch(() => {});
    },
  };
  // The shell is ready when it has drawn its first prompt.
  await p.waitForScreen((s) => /[$%#>] *$/m.test(s), `the first ${shell} prompt`);
  return p;
}

/** The OSC 133 marks in raw pane output, in order, unwrapped from tmux's DCS passthrough. */
export function marksIn(raw: string): string[] {
  const out: string[] = [];
  const re = /(?:\x1bPtmux;\x1b)?\x1b\]133;([^\x07\x1b]*)(?:\x07|\x1b\\)/g;
  for (const m of raw.matchAll(re)) out.push(m[1]!);
  return out;
}
