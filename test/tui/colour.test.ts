import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  contrast,
  DEPTHS,
  luminance,
  MIN_CONTRAST,
  paintBg,
  paintFg,
  paletteRgb,
  rgbOf,
} from '../../src/tui/colour.js';
import { loadTheme } from '../../src/tui/config-files.js';
import { diffFrame } from '../../src/tui/frame-diff.js';
import { createPainter } from '../../src/tui/paint.js';
import { colourDepth } from '../../src/tui/terminfo.js';
import { readTerminfo } from '../../src/tui/terminfo-file.js';
import { parseTheme } from '../../src/tui/theme.js';
import { themePairs } from '../../src/tui/theme-contrast.js';
import { ROOT } from './harness.js';

// Colour depth from the terminfo database (checked against ncurses' own `tput colors`), WCAG
// contrast of every shipped theme as each depth renders it, and the frame writer.

const tput = (term: string, env: NodeJS.ProcessEnv = process.env) => {
  try {
    return Number(execFileSync('tput', ['-T', term, 'colors'], { env, encoding: 'utf8' }).trim());
  } catch {
    return undefined; // not in this machine's database
  }
};

test('terminfo: max_colors read from both compiled formats agrees with tput colors', (t) => {
  const terms = [
    'xterm',
    'xterm-256color',
    'tmux',
    'tmux-256color',
    'screen',
    'screen-256color',
    'linux',
    'dumb',
    'vt100',
  ];
  let checked = 0;
  for (const term of terms) {
    const want = tput(term);
    if (want === undefined) continue;
    const caps = readTerminfo(term, { ...process.env, TERMINFO: '', TERMINFO_DIRS: '' });
    t.truthy(caps, term);
    t.is(caps?.colors, want, term);
    checked++;
  }
  // tmux-256color and xterm-256color are compiled with 32-bit numbers (the format neo-blessed
  // cannot read); xterm with 16-bit ones: both must be among the entries checked.
  t.true(checked >= 4, `only ${checked} entries found`);
  t.is(readTerminfo('tmux-256color', {})?.colors, 256);
  t.is(readTerminfo('no-such-terminal', {}), undefined);
  t.is(readTerminfo('../../etc/passwd', {}), undefined);
});

test('terminfo: direct-colour entries (RGB, Tc, colors#0x1000000) from a TERMINFO directory', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-terminfo-'));
  try {
    const src = join(dir, 'entries.src');
    await writeFile(
      src,
      [
        'kt-direct|direct colour test,',
        '\tcolors#0x1000000, RGB, use=xterm-256color,',
        'kt-tc|Tc test,',
        '\tTc, use=xterm-256color,',
        'kt-16|sixteen colour test,',
        '\tcolors#16, use=xterm,',
        '',
      ].join('\n'),
    );
    execFileSync('tic', ['-x', '-o', join(dir, 'db'), src], { stdio: 'ignore' });
    const env = { TERMINFO: join(dir, 'db') };
    for (const [term, colors, rgb] of [
      ['kt-direct', 0x1000000, true],
      ['kt-tc', 256, true],
      ['kt-16', 16, false],
    ] as const) {
      const caps = readTerminfo(term, env);
      t.is(caps?.colors, colors, term);
      t.is(caps?.colors, tput(term, { ...process.env, ...env }), term);
      t.is(caps?.rgb, rgb, term);
    }
    t.is(colourDepth({ TERM: 'kt-direct' }, readTerminfo('kt-direct', env)), 'truecolor');
    t.is(colourDepth({ TERM: 'kt-tc' }, readTerminfo('kt-tc', env)), 'truecolor');
    t.is(colourDepth({ TERM: 'kt-16' }, readTerminfo('kt-16', env)), 16);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('colour depth: override, COLORTERM, terminfo, TERM suffix', (t) => {
  const caps = (colors: number, rgb = false) => ({ names: ['x'], colors, rgb });
  const cases: [NodeJS.ProcessEnv, ReturnType<typeof caps> | undefined, string | number][] = [
    [{ TERM: 'tmux-256color' }, caps(256), 256],
    [{ TERM: 'tmux-256color', COLORTERM: 'truecolor' }, caps(256), 'truecolor'],
    [{ TERM: 'xterm-256color', COLORTERM: '24bit' }, caps(256), 'truecolor'],
    [{ TERM: 'xterm', COLORTERM: 'yes' }, caps(8), 8],
    [{ TERM: 'xterm' }, caps(8), 8],
    [{ TERM: 'linux' }, caps(8), 8],
    [{ TERM: 'dumb' }, caps(-1), 8],
    [{ TERM: 'xterm-16color' }, caps(16), 16],
    [{ TERM: 'xterm-direct' }, caps(0x1000000, true), 'truecolor'],
    [{ TERM: 'xterm-kitty' }, caps(256, true), 'truecolor'],
    [{ TERM: 'xterm-direct' }, undefined, 'truecolor'],
    [{ TERM: 'foot-256color' }, undefined, 256],
    [{ TERM: 'rxvt-16color' }, undefined, 16],
    [{ TERM: 'unknown' }, undefined, 8],
    [{ TERM: 'xterm-256color', KORTTY_COLORS: '16' }, caps(256), 16],
    [{ TERM: 'xterm', KORTTY_COLORS: 'truecolor' }, caps(8), 'truecolor'],
  ];
  for (const [env, c, want] of cases) t.is(colourDepth(env, c), want as never, JSON.stringify(env));
});

test('palettes: xterm defaults, the 6×6×6 cube and the grey ramp; WCAG contrast', (t) => {
  t.deepEqual(paletteRgb(1), [0xcd, 0, 0]);
  t.deepEqual(paletteRgb(16), [0, 0, 0]);
  t.deepEqual(paletteRgb(67), [95, 135, 175]);
  t.deepEqual(paletteRgb(231), [255, 255, 255]);
  t.deepEqual(paletteRgb(232), [8, 8, 8]);
  t.deepEqual(paletteRgb(255), [238, 238, 238]);
  t.is(contrast([0, 0, 0], [255, 255, 255]), 21);
  t.is(Math.round(contrast([0x77, 0x77, 0x77], [255, 255, 255]) * 100) / 100, 4.48);
  t.is(luminance([255, 255, 255]), 1);
});

test('every shipped theme keeps every pair at 4.5:1 or more at true colour, 256, 16 and 8 colours', (t) => {
  for (const name of ['dark', 'light', 'high-contrast']) {
    const theme = loadTheme(name, '/nonexistent-home', ROOT);
    for (const depth of DEPTHS) {
      const pairs = themePairs(theme, depth);
      t.true(pairs.length > 40, `${name} ${depth}: ${pairs.length} pairs`);
      const bad = pairs.filter((p) => p.ratio < MIN_CONTRAST);
      t.deepEqual(
        bad.map((p) => `${p.role}${p.over ? `/${p.over}` : ''} ${p.fg} on ${p.bg} ${p.ratio.toFixed(2)}:1`),
        [],
        `${name} at ${depth}`,
      );
    }
  }
});

test('the light theme on a 256-colour terminal stays light; on 8 colours text is never yellow on grey', (t) => {
  const light = loadTheme('light', '/nonexistent-home', ROOT);
  const sgr = (depth: 'truecolor' | 256 | 8) =>
    createPainter(light, depth).sgrFor('statusWarning', undefined);
  t.is(sgr('truecolor'), '\x1b[0;38;2;143;74;0;48;2;250;250;250m');
  t.regex(sgr(256), /^\x1b\[0;38;5;\d+;48;5;(231|255)m$/);
  const bg8 = paintBg('#fafafa', 8);
  const fg8 = paintFg('#8f4a00', bg8, 8);
  t.notDeepEqual(fg8, { index: 3 }, 'not yellow');
  t.true(contrast(rgbOf(fg8)!, rgbOf(bg8)!) >= MIN_CONTRAST);
});

test('frame diff: only changed spans are written; the cursor is re-placed after wide graphemes', (t) => {
  const theme = parseTheme({ roles: { default: { fg: '#ffffff', bg: '#000000' } } }, 't.json');
  const p = createPainter(theme, 256);
  const a = p.grid([{ segs: [{ text: 'ab🚀cd' }] }, { segs: [{ text: 'same' }] }], 8, 2);
  const b = p.grid([{ segs: [{ text: 'ab🚀cX' }] }, { segs: [{ text: 'same' }] }], 8, 2);
  const sgr = p.sgrFor(undefined, undefined);
  t.is(diffFrame(a, a), '');
  t.is(diffFrame(a, b), `\x1b[1;6H${sgr}X\x1b[0m`);
  const full = diffFrame(undefined, a);
  t.true(full.startsWith(`\x1b[1;1H${sgr}ab🚀\x1b[1;5Hcd`), JSON.stringify(full));
  t.true(full.includes('\x1b[2;1Hsame'), JSON.stringify(full));
  // Changing the wide grapheme rewrites it whole, never half of it.
  const c = p.grid([{ segs: [{ text: 'ab漢cd' }] }, { segs: [{ text: 'same' }] }], 8, 2);
  t.is(diffFrame(a, c), `\x1b[1;3H${sgr}漢\x1b[1;5H\x1b[0m`);
  const d = p.grid([{ segs: [{ text: 'ab👨‍👩‍👧cd' }] }, { segs: [{ text: 'same' }] }], 8, 2);
  t.is(diffFrame(a, d), `\x1b[1;3H${sgr}👨‍👩‍👧\x1b[1;5H\x1b[0m`);
});
