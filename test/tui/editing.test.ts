import test from 'ava';
import { homeWithModel, removeTempDirs } from './env.js';
import { startTui, type Tui } from './harness.js';

test.after.always(removeTempDirs);

// Text inputs edit like readline, in the real pane: the keys arrive as a terminal sends them.

/** The Name field's text (between the label and the end of the field) and where its cursor is. */
async function nameField(tui: Tui): Promise<{ text: string; cursorX: number; row: number }> {
  const s = await tui.screen();
  const row = s.split('\n').findIndex((l) => l.includes('Name    '));
  const line = s.split('\n')[row]!;
  const start = line.indexOf('Name') + 'Name'.padEnd(19).length;
  const field = line.slice(start).split('│')[0]!;
  const text = field.trimEnd();
  // The cursor is the one cell of the field drawn in the inputCursor colours.
  const cells = await Promise.all([...field].map((_, i) => tui.cell(start + i, row)));
  const count = (bg: number) => cells.filter((c) => c.bg === bg).length;
  const cursorX = cells.findIndex((c) => count(c.bg) === 1);
  return { text, cursorX, row };
}

test('text inputs: readline keys (C-w, M-b, C-a/C-e, C-k, C-y, C-u, Home/End, arrows) with a visible cursor', async (t) => {
  const home = await homeWithModel();
  const tui = await startTui({ home });
  try {
    let s = await tui.press('stores.create');
    t.true(s.includes('Create knowledge store'), s);
    await tui.type('hello brave new world');
    t.deepEqual(await nameField(tui), {
      text: 'hello brave new world',
      cursorX: 21,
      row: (await nameField(tui)).row,
    });

    await tui.pressKey('C-w');
    let f = await nameField(tui);
    t.is(f.text, 'hello brave new');
    t.is(f.cursorX, 16);

    await tui.pressKey('M-b');
    f = await nameField(tui);
    t.is(f.cursorX, 12, 'cursor on "new"');
    await tui.type('very ');
    f = await nameField(tui);
    t.is(f.text, 'hello brave very new');
    t.is(f.cursorX, 17);

    await tui.pressKey('C-a');
    t.is((await nameField(tui)).cursorX, 0);
    await tui.pressKey('M-f');
    t.is((await nameField(tui)).cursorX, 5);
    await tui.pressKey('C-k');
    t.is((await nameField(tui)).text, 'hello');
    await tui.pressKey('C-y');
    t.is((await nameField(tui)).text, 'hello brave very new');
    await tui.pressKey('home');
    await tui.pressKey('right');
    await tui.pressKey('right');
    t.is((await nameField(tui)).cursorX, 2);
    await tui.pressKey('delete');
    t.is((await nameField(tui)).text, 'helo brave very new');
    await tui.pressKey('end');
    t.is((await nameField(tui)).cursorX, 20, 'after the space C-w left behind');

    // One key clears the whole field.
    await tui.pressKey('C-u');
    f = await nameField(tui);
    t.is(f.text, '');
    t.is(f.cursorX, 0);

    // Longer than the field: it scrolls to keep the cursor in view and marks the hidden part.
    const long = Array.from({ length: 12 }, (_, i) => `word${i}`).join(' ');
    await tui.type(long);
    f = await nameField(tui);
    t.true(f.text.startsWith('…'), f.text);
    t.true(f.text.endsWith('word11'), f.text);
    await tui.pressKey('C-a');
    f = await nameField(tui);
    t.true(f.text.startsWith('word0 word1'), f.text);
    t.true(f.text.endsWith('…'), f.text);
    t.is(f.cursorX, 0);

    // Editing keys do not leak to the keymap: the form is still open, tab still moves on.
    s = await tui.press('form.next');
    t.regex(s, /›Embedding model/);
  } finally {
    await tui.quit();
  }
});
