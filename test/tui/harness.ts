import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import unicode11 from '@xterm/addon-unicode11';
import xterm from '@xterm/headless';
import pty from 'node-pty';
import type { ActionName } from '../../src/tui/actions.js';
import { loadKeymap } from '../../src/tui/config-files.js';
import type { Keymap } from '../../src/tui/keymap.js';
import { IDLE_RE } from '../../src/tui/signal.js';

// Drives the real pane: `node bin/kortty-rag.js tui` in a pseudo-terminal, its output rendered by a
// headless xterm. Keys are pressed by action name through the same keymap file the pane loads, and
// every step waits for the pane's idle marker (never a fixed sleep).

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'kortty-rag.js');

const NAMED: Record<string, string> = {
  escape: '\x1b',
  enter: '\r',
  tab: '\t',
  'S-tab': '\x1b[Z',
  space: ' ',
  backspace: '\x7f',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  delete: '\x1b[3~',
  insert: '\x1b[2~',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
};

/** The bytes a terminal sends for a key name from a keymap. */
export function keyBytes(key: string): string {
  if (NAMED[key]) return NAMED[key]!;
  if (key.startsWith('C-') && key.length === 3) return String.fromCharCode(key.charCodeAt(2) - 96);
  if (key.startsWith('M-')) return `\x1b${keyBytes(key.slice(2))}`;
  if (key.startsWith('S-') && key.length === 3) return key[2]!.toUpperCase();
  if ([...key].length === 1) return key;
  throw new Error(`no bytes known for key ${key}`);
}

/**
 * Columns for screens whose assertions read whole temporary paths: wide enough that the length of
 * the directory TMPDIR points at (a private one under `npm test`, a long one on macOS) wraps none.
 */
export const PATH_COLS = 132;

export interface StartOptions {
  home: string;
  keymap?: string;
  theme?: string;
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  /** The arguments after the binary (default: `tui` and the keymap and theme options). */
  argv?: string[];
}

export interface Tui {
  keymap: Keymap;
  press(action: ActionName, times?: number): Promise<string>;
  type(text: string): Promise<string>;
  pressKey(key: string): Promise<string>;
  screen(): Promise<string>;
  waitFor(what: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  resize(cols: number, rows: number): Promise<string>;
  quit(): Promise<number>;
  /** Resolves when the process exits. */
  exited: Promise<number>;
  /** Every screen seen at an idle marker, oldest first (intermediate progress frames included). */
  history: string[];
  /** Colours (palette index or 0xRRGGBB, see the modes), boldness and text of the cell at (x, y). */
  cell(x: number, y: number): Promise<CellInfo>;
  /** Milliseconds from spawn to the first idle marker (first full paint with data). */
  firstPaintMs: Promise<number>;
  pid: number;
}

export type ColourMode = 'default' | 'palette' | 'rgb';

export interface CellInfo {
  fg: number;
  bg: number;
  fgMode: ColourMode;
  bgMode: ColourMode;
  bold: boolean;
  char: string;
  /** Cells the character takes (2 for a wide one, 0 for the cell it covers). */
  width: number;
}

/** The caller's environment without what would change the pane's colour depth between machines. */
function withoutColourHints(env: NodeJS.ProcessEnv): Record<string, string> {
  const out = { ...env } as Record<string, string>;
  delete out.COLORTERM;
  delete out.KORTTY_COLORS;
  delete out.TERMINFO;
  delete out.TERMINFO_DIRS;
  return out;
}

export async function startTui(o: StartOptions): Promise<Tui> {
  const cols = o.cols ?? 80;
  const rows = o.rows ?? 24;
  const timeoutMs = o.timeoutMs ?? 60_000;
  const keymap = loadKeymap(o.keymap ?? 'default', o.home, ROOT);
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  // Unicode 11 widths, as current terminals use: 🚀 takes two cells (xterm.js's default, Unicode 6,
  // gives it one).
  term.loadAddon(new unicode11.Unicode11Addon());
  term.unicode.activeVersion = '11';
  const args = [
    BIN,
    ...(o.argv ?? [
      'tui',
      ...(o.keymap ? ['--keymap', o.keymap] : []),
      ...(o.theme ? ['--theme', o.theme] : []),
    ]),
  ];
  const t0 = performance.now();
  const proc = pty.spawn(process.execPath, args, {
    // node-pty sets TERM from the name.
    name: o.env?.TERM ?? 'xterm-256color',
    cols,
    rows,
    cwd: o.cwd ?? ROOT,
    env: {
      ...withoutColourHints(process.env),
      KORTTY_HOME: o.home,
      KORTTY_TUI_TEST: '1',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...o.env,
    },
  });
  let tail = '';
  let idleSeq = 0;
  let idleKeys = 0;
  let keysSent = 0;
  let exitCode: number | undefined;
  const listeners = new Set<() => void>();
  let resolveFirst: (ms: number) => void = () => {};
  const firstPaintMs = new Promise<number>((r) => {
    resolveFirst = r;
  });
  let parsing: Promise<void> = Promise.resolve();
  const history: string[] = [];
  const snapshot = () => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < term.rows; i++) out.push(buf.getLine(i)?.translateToString(true) ?? '');
    return out.join('\n');
  };
  proc.onData((data) => {
    const marked = data.includes('kortty-idle=');
    parsing = parsing.then(
      () =>
        new Promise<void>((r) =>
          term.write(data, () => {
            if (marked) history.push(snapshot());
            r();
          }),
        ),
    );
    tail += data;
    let last = -1;
    for (const m of tail.matchAll(IDLE_RE)) {
      idleSeq = Number(m[1]);
      idleKeys = Number(m[2]);
      last = m.index! + m[0].length;
      if (idleSeq === 1) resolveFirst(performance.now() - t0);
    }
    tail = last >= 0 ? tail.slice(last) : tail.slice(-64);
    if (last >= 0) for (const l of [...listeners]) l();
  });
  const exited = new Promise<number>((r) =>
    proc.onExit(({ exitCode: c }) => {
      exitCode = c;
      r(c);
      for (const l of [...listeners]) l();
    }),
  );

  const screenText = async () => {
    await parsing;
    return snapshot();
  };

  /** Waits for an idle marker that satisfies `ok`, re-checked at each marker. */
  const until = (ok: () => boolean | Promise<boolean>, what: string, ms = timeoutMs) =>
    new Promise<void>((resolve, reject) => {
      let done = false;
      const check = async () => {
        if (done) return;
        if (await ok()) {
          done = true;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        } else if (exitCode !== undefined) {
          done = true;
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`the TUI exited (${exitCode}) while waiting for ${what}\n${await screenText()}`));
        }
      };
      const timer = setTimeout(async () => {
        done = true;
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; screen:\n${await screenText()}`));
      }, ms);
      listeners.add(check);
      void check();
    });

  const send = async (bytes: string, keys: number) => {
    keysSent += keys;
    const want = keysSent;
    proc.write(bytes);
    await until(() => idleKeys >= want, `idle after key #${want}`);
    return screenText();
  };

  await until(() => idleSeq >= 1, 'the first paint');
  const tui: Tui = {
    keymap,
    pid: proc.pid,
    exited,
    firstPaintMs,
    history,
    async cell(x, y) {
      await parsing;
      const c = term.buffer.active.getLine(y)?.getCell(x);
      const mode = (rgb?: boolean, palette?: boolean): ColourMode =>
        rgb ? 'rgb' : palette ? 'palette' : 'default';
      return {
        fg: c?.getFgColor() ?? -1,
        bg: c?.getBgColor() ?? -1,
        fgMode: mode(c?.isFgRGB(), c?.isFgPalette()),
        bgMode: mode(c?.isBgRGB(), c?.isBgPalette()),
        bold: Boolean(c?.isBold()),
        char: c?.getChars() ?? '',
        width: c?.getWidth() ?? 1,
      };
    },
    async press(action, times = 1) {
      // A key sequence ("C-x C-c") is its keys one after the other.
      const seq = keymap.keys[action][0]!.split(' ');
      let s = '';
      for (let i = 0; i < times; i++) s = await send(seq.map(keyBytes).join(''), seq.length);
      return s;
    },
    // One write: the pane's key decoder splits it into one key press per character.
    type: (text) => send(text, [...text].length),
    pressKey: (key) => send(keyBytes(key), 1),
    screen: screenText,
    async waitFor(what, ms) {
      const test = async () => {
        const s = await screenText();
        return typeof what === 'string' ? s.includes(what) : what instanceof RegExp ? what.test(s) : what(s);
      };
      await until(test, String(what), ms);
      return screenText();
    },
    async resize(c, r) {
      const before = idleSeq;
      term.resize(c, r);
      proc.resize(c, r);
      await until(() => idleSeq > before, 'a repaint after resize');
      return screenText();
    },
    async quit() {
      if (exitCode === undefined)
        proc.write(keymap.keys['universal.quit'][0]!.split(' ').map(keyBytes).join(''));
      const code = await Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
      if (code === -1) proc.kill();
      return code;
    },
  };
  return tui;
}
