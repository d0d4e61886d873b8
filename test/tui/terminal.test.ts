import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { contrast, MIN_CONTRAST, paletteRgb, type RGB } from '../../src/tui/colour.js';
import { homeWithModel, newHome, prose, removeTempDirs, sourceTree } from './env.js';
import { selectRow } from './flows.js';
import { type CellInfo, startTui } from './harness.js';

test.after.always(removeTempDirs);

// What a real terminal shows: the pane in a pseudo-terminal, rendered by a headless xterm with
// Unicode 11 widths. Colours come at the depth terminfo gives for $TERM; wide graphemes never
// tear a border.

const rgbOf = (c: CellInfo, which: 'fg' | 'bg'): RGB => {
  const v = c[which];
  return c[`${which}Mode`] === 'rgb' ? [(v >> 16) & 255, (v >> 8) & 255, v & 255] : paletteRgb(v);
};

test('colour depth: tmux-256color paints the light theme from the 256 palette, COLORTERM=truecolor in RGB, xterm in 8 colours', async (t) => {
  const home = await newHome();
  const seen: Record<string, CellInfo> = {};
  for (const [label, env] of [
    ['tmux-256color', { TERM: 'tmux-256color' }],
    ['truecolor', { TERM: 'tmux-256color', COLORTERM: 'truecolor' }],
    ['xterm', { TERM: 'xterm' }],
  ] as const) {
    const tui = await startTui({ home, theme: 'light', env });
    try {
      // An empty cell of the sources pane: the theme's default colours.
      seen[label] = await tui.cell(40, 12);
      // The status line's text: the hint bar's key (role "key") over the default background.
      const key = await tui.cell(1, 23);
      t.is(key.char, 'n', label);
      t.true(
        contrast(rgbOf(key, 'fg'), rgbOf(key, 'bg')) >= MIN_CONTRAST,
        `${label}: ${JSON.stringify(key)}`,
      );
    } finally {
      await tui.quit();
    }
  }
  const c256 = seen['tmux-256color']!;
  t.is(c256.bgMode, 'palette');
  t.true(c256.bg >= 16, `a 256-palette entry, got ${c256.bg}`);
  t.true(Math.min(...rgbOf(c256, 'bg')) >= 0xe4, 'the light background stays light');
  const tc = seen.truecolor!;
  t.is(tc.bgMode, 'rgb');
  t.is(tc.bg, 0xfafafa);
  t.is(tc.fg, 0x1c1c1c);
  const c8 = seen.xterm!;
  t.is(c8.bgMode, 'palette');
  t.true(c8.bg < 8 && c8.fg < 8, JSON.stringify(c8));
  t.true(contrast(rgbOf(c8, 'fg'), rgbOf(c8, 'bg')) >= MIN_CONTRAST);
});

test('emoji, CJK, combining marks, ZWJ sequences, skin tones and VS16 in names keep every border in place', async (t) => {
  const home = await homeWithModel();
  const root = await sourceTree({ 'a.md': prose('apples', 5, 1) });
  const names = ['🚀✅🟢 launch', '日本語メモ 👍🏽', 'café cafe\u0301 ❤️', '👨‍👩‍👧 family'];
  const dirs: string[] = [];
  for (const [i, n] of names.entries()) {
    const dir = join(root, n);
    await mkdir(dir);
    dirs.push(dir);
    await createStore({ name: `${n} ${i}`, modelId: STARTER_MODEL_ID }, home);
  }
  await addSources(
    `${names[0]} 0`,
    dirs.map((path) => ({ kind: 'folder' as const, path })),
    {},
    home,
  );
  const tui = await startTui({ home });
  try {
    await selectRow(tui, '🚀✅🟢 la');
    let s = await tui.press('stores.open');
    for (const n of ['🚀✅🟢 launch', '日本語メモ', 'café cafe\u0301']) t.true(s.includes(n), `${n}\n${s}`);
    const check = async (rows: number[]) => {
      for (const y of rows) {
        const left = await tui.cell(0, y);
        const right = await tui.cell(79, y);
        t.regex(left.char, /[│┌└├]/, `row ${y} left edge: ${JSON.stringify(left)}\n${s}`);
        t.regex(right.char, /[│┐┘┤]/, `row ${y} right edge: ${JSON.stringify(right)}\n${s}`);
      }
    };
    await check([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The single-character emoji and the CJK text sit where the pane measured them: 🚀 takes
    // cells 2-3 of the stores table, ✅ 4-5, 🟢 6-7.
    const row = s.split('\n').findIndex((l) => l.includes('🚀'));
    const cells = await Promise.all([2, 4, 6, 8].map((x) => tui.cell(x, row)));
    t.deepEqual(
      cells.map((c) => [c.char, c.width]),
      [
        ['🚀', 2],
        ['✅', 2],
        ['🟢', 2],
        [' ', 1],
      ],
    );
    // Selecting another row repaints only changed spans: the borders hold across diffs too.
    await tui.press('list.down');
    s = await tui.press('list.down');
    await check([6, 7, 8, 9, 10, 11]);
  } finally {
    await tui.quit();
  }
});
