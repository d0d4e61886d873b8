import blessed, { type Key } from 'neo-blessed';
import type { Size } from './state.js';

// The terminal adapter: one full-screen box whose content is the painted frame. neo-blessed owns
// raw mode, the alternate screen, key decoding, resize events and minimal redraws.

export interface KeyEvent {
  full: string;
  ch?: string;
  ctrl: boolean;
  meta: boolean;
}

export interface ScreenPort {
  size(): Size;
  paint(content: string): void;
  /** Bytes after the frame (the test idle marker), in order with it. */
  write(raw: string): void;
  onKey(fn: (k: KeyEvent) => void): void;
  onResize(fn: () => void): void;
  /** Leaves the full screen, runs a program on the terminal, comes back. */
  exec(file: string, args: string[]): Promise<boolean>;
  destroy(): void;
}

export function createScreen(
  opts: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {},
): ScreenPort {
  const screen = blessed.screen({
    smartCSR: true,
    fullUnicode: true,
    warnings: false,
    autoPadding: false,
    title: 'kortty-rag',
    ...(opts.input ? { input: opts.input } : {}),
    ...(opts.output ? { output: opts.output } : {}),
  });
  const body = blessed.box({ top: 0, left: 0, width: '100%', height: '100%', tags: true, wrap: false });
  screen.append(body);
  screen.program.hideCursor();
  return {
    size: () => ({ width: screen.width, height: screen.height }),
    paint(content) {
      body.setContent(content);
      screen.render();
      screen.program.flush();
    },
    write: (raw) => screen.program.output.write(raw),
    onKey(fn) {
      screen.on('keypress', (ch: string | undefined, key: Key) => {
        // Enter arrives twice from neo-blessed ("return", then "enter"); keep one.
        if (!key || key.full === 'return') return;
        fn({ full: key.full, ch, ctrl: key.ctrl, meta: key.meta });
      });
    },
    onResize: (fn) => screen.on('resize', fn),
    exec: (file, args) =>
      new Promise((resolve) => {
        screen.exec(file, args, {}, (err, ok) => {
          screen.program.hideCursor();
          resolve(!err && ok);
        });
      }),
    destroy: () => screen.destroy(),
  };
}
