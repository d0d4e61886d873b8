import blessed, { type Key } from 'neo-blessed';
import type { ColourDepth } from './colour.js';
import { diffFrame } from './frame-diff.js';
import { createPainter, type Grid } from './paint.js';
import type { Size } from './state.js';
import type { Frame } from './styled.js';
import type { Theme } from './theme.js';

// The terminal adapter. neo-blessed owns raw mode, the alternate screen, key decoding, resize
// events and running $EDITOR; the frame is drawn here, because neo-blessed 0.2's renderer cannot:
// it stores colours as 256-colour indices (no true colour), decides the colour count from a
// terminfo reader that fails on current entries (tmux-256color → 8 colours), and counts most emoji
// as one cell. Frames are cell grids measured by src/util/display-width.ts, painted at the depth
// terminfo-file.ts detected, and written as minimal row diffs (frame-diff.ts).

export interface KeyEvent {
  full: string;
  ch?: string;
  ctrl: boolean;
  meta: boolean;
}

export interface ScreenPort {
  size(): Size;
  paint(frame: Frame): void;
  /** Bytes after the frame (the test idle marker), in order with it. */
  write(raw: string): void;
  onKey(fn: (k: KeyEvent) => void): void;
  onResize(fn: () => void): void;
  /** Leaves the full screen, runs a program on the terminal, comes back. */
  exec(file: string, args: string[]): Promise<boolean>;
  destroy(): void;
}

export function createScreen(o: {
  theme: Theme;
  depth: ColourDepth;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}): ScreenPort {
  const screen = blessed.screen({
    smartCSR: true,
    fullUnicode: true,
    warnings: false,
    autoPadding: false,
    title: 'kortty-rag',
    ...(o.input ? { input: o.input } : {}),
    ...(o.output ? { output: o.output } : {}),
  });
  // neo-blessed would repaint its own (empty) cell buffer over ours on resize and after exec.
  screen.render = () => {};
  screen.program.hideCursor();
  const painter = createPainter(o.theme, o.depth);
  let shown: Grid | undefined;
  const out = (s: string) => {
    // neo-blessed buffers its own sequences (entering the alternate screen…): they go first.
    screen.program.flush();
    if (s) screen.program.output.write(s);
  };
  return {
    size: () => ({ width: screen.width, height: screen.height }),
    paint(frame) {
      const next = painter.grid(frame, screen.width, screen.height);
      out(`${shown ? '' : '\x1b[0m\x1b[H\x1b[2J'}${diffFrame(shown, next)}`);
      shown = next;
    },
    write: out,
    onKey(fn) {
      screen.on('keypress', (ch: string | undefined, key: Key) => {
        // Enter arrives twice from neo-blessed ("return", then "enter"); keep one.
        if (!key || key.full === 'return') return;
        fn({ full: key.full, ch, ctrl: key.ctrl, meta: key.meta });
      });
    },
    onResize: (fn) =>
      screen.on('resize', () => {
        shown = undefined;
        fn();
      }),
    exec: (file, args) =>
      new Promise((resolve) => {
        screen.exec(file, args, {}, (err, ok) => {
          screen.program.hideCursor();
          shown = undefined;
          resolve(!err && ok);
        });
      }),
    destroy: () => screen.destroy(),
  };
}
