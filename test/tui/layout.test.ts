import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import pty from 'node-pty';
import { ragDir } from '../../src/storage/paths.js';
import { homeWithStore, newHome, prose, removeTempDirs } from './env.js';
import { ROOT, startTui } from './harness.js';

test.after.always(removeTempDirs);

// Geometry (80×24 and resizes), the help overlay with disabled actions, themes and keymaps as data
// (a user file overrides the shipped one), and a clear error for a broken keymap file.

const lines = (s: string) => s.split('\n');

function assertFrame(t: import('ava').ExecutionContext, s: string, cols: number, rows: number) {
  const ls = lines(s);
  t.is(ls.length, rows);
  t.true(ls.every((l) => [...l].length <= cols));
  t.is(ls[1]![0], '┌');
  t.is([...ls[1]!][cols - 1], '┐', ls[1]);
  t.true(ls[rows - 1]!.includes('help'), ls[rows - 1]);
}

test('80×24 frame, then resizes up, down, too small and back', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 10, 1) });
  const tui = await startTui({ home, cols: 80, rows: 24 });
  try {
    let s = await tui.screen();
    assertFrame(t, s, 80, 24);
    t.regex(s, /Docs\s+local/);
    s = await tui.resize(120, 40);
    assertFrame(t, s, 120, 40);
    t.regex(s, /LAST INDEXED/);
    t.regex(s, /\d{4}-\d\d-\d\d \d\d:\d\d/, 'wide screens show the full date');
    s = await tui.resize(60, 20);
    assertFrame(t, s, 60, 20);
    s = await tui.resize(40, 10);
    t.true(s.includes('Terminal too small (40×10)'), s);
    s = await tui.resize(80, 24);
    assertFrame(t, s, 80, 24);
    // A dialog re-lays out too.
    s = await tui.press('universal.help');
    s = await tui.resize(100, 30);
    t.true(s.includes('Keys · keymap default'));
    t.true(lines(s).every((l) => [...l].length <= 100));
  } finally {
    await tui.quit();
  }
});

test('help overlay lists the bindings in scope and why disabled ones cannot run', async (t) => {
  const home = await newHome();
  const tui = await startTui({ home });
  try {
    let s = await tui.press('universal.help');
    t.true(s.includes('Stores pane'), s);
    t.true(s.includes('Create a knowledge store'), s);
    t.regex(s, /Delete the selected store \(source files are kept\)\W+(↳ )?no store selected/);
    t.regex(s, /Test search in the selected store\W+(↳ )?no store selected/);
    s = await tui.press('list.pageDown');
    t.true(s.includes('Everywhere'), s);
    t.true(s.includes('Quit kortty-rag'), s);
    s = await tui.press('universal.back');
    t.false(s.includes('Keys · keymap'));
    // A disabled action pressed anyway says why.
    s = await tui.press('stores.delete');
    t.true(s.includes('Delete: no store selected'), s);
  } finally {
    await tui.quit();
  }
});

test('themes are data: the same cell takes each theme’s colours; a user keymap overrides the shipped one', async (t) => {
  const home = await newHome();
  const colours: string[] = [];
  for (const theme of ['dark', 'light', 'high-contrast']) {
    const tui = await startTui({ home, theme });
    const s = await tui.screen();
    t.true(s.includes(`theme ${theme}`), s);
    colours.push(JSON.stringify([await tui.cell(2, 0), await tui.cell(40, 10)]));
    await tui.quit();
  }
  t.is(new Set(colours).size, 3, colours.join('\n'));

  // $KORTTY_HOME/rag/keymaps/default.json changes one key; the harness reads the same file.
  await mkdir(join(ragDir(home), 'keymaps'), { recursive: true });
  await writeFile(
    join(ragDir(home), 'keymaps', 'default.json'),
    JSON.stringify({ extends: 'default', bindings: { 'stores.create': 'c' } }),
  );
  const tui = await startTui({ home });
  try {
    t.deepEqual(tui.keymap.keys['stores.create'], ['c']);
    let s = await tui.screen();
    t.true(s.includes(' c create'), s);
    s = await tui.press('stores.create');
    t.true(s.includes('Create knowledge store') || s.includes('Local model setup'), s);
  } finally {
    await tui.quit();
  }
});

test('a broken keymap file is refused with the file and the reason, before the screen is taken', async (t) => {
  const home = await newHome();
  const bad = join(home, 'bad.json');
  await writeFile(bad, JSON.stringify({ bindings: { 'stores.craete': 'n', 'list.up': 'j' } }));
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    const p = pty.spawn(process.execPath, [join(ROOT, 'bin', 'kortty-rag.js'), 'tui', '--keymap', bad], {
      cols: 100,
      rows: 10,
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), KORTTY_HOME: home, TERM: 'xterm-256color' },
    });
    let text = '';
    p.onData((d) => {
      text += d;
    });
    p.onExit(({ exitCode }) => resolve({ code: exitCode, text }));
  });
  t.is(out.code, 1);
  t.true(out.text.includes(bad), out.text);
  t.true(out.text.includes('unknown action "stores.craete"'), out.text);
});
