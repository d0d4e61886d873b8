import test from 'ava';
import { createStore, findStore } from '../../src/store/engine.js';
import { keyLabel } from '../../src/tui/keymap.js';
import { homeWithStore, prose, removeTempDirs } from './env.js';
import { highlighted } from './flows.js';
import { startTui } from './harness.js';

test.after.always(removeTempDirs);

// Every shipped keymap drives the same flows: keys are pressed by action name, looked up in the
// keymap file the pane itself loads, so remapping cannot break these tests.

for (const name of ['default', 'vim', 'emacs']) {
  test(`keymap ${name}: help, lists, panes, toggle a source, dialogs, tabs`, async (t) => {
    const { home } = await homeWithStore({ 'a.md': prose('apples', 20, 1) }, 'Alpha');
    await createStore({ name: 'Beta', modelId: 'kortty-lexical-starter' }, home);
    const tui = await startTui({ home, keymap: name });
    const km = tui.keymap;
    try {
      let s = await tui.screen();
      t.true(s.includes(`keymap ${name}`), s);
      t.regex(highlighted(s), /Alpha/);
      // The hint bar shows this keymap's keys.
      t.true(s.includes(`${keyLabel(km.keys['stores.create'][0]!)} create`), s);

      s = await tui.press('universal.help');
      t.true(s.includes(`Keys · keymap ${name}`), s);
      const createKeys = km.keys['stores.create'].map(keyLabel).join(', ');
      t.regex(
        s,
        new RegExp(`${createKeys.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+Create a knowledge store`),
      );
      s = await tui.press('universal.back');
      t.false(s.includes('Keys · keymap'));

      s = await tui.press('list.down');
      t.regex(highlighted(s), /Beta/);
      s = await tui.press('list.up');
      t.regex(highlighted(s), /Alpha/);

      s = await tui.press('stores.open');
      t.regex(highlighted(s), /folder manual READY/);
      s = await tui.press('sources.toggleEnabled');
      t.regex(highlighted(s), /DISABLED/);
      t.false((await findStore('Alpha', home)).sources[0]!.enabled);
      s = await tui.press('sources.toggleEnabled');
      t.regex(highlighted(s), /READY/);

      await tui.press('universal.back');
      s = await tui.press('stores.create');
      t.true(s.includes('Create knowledge store'), s);
      t.regex(highlighted(s), /Name/);
      s = await tui.press('form.next');
      t.regex(highlighted(s), /Embedding model/);
      s = await tui.press('universal.back');
      t.false(s.includes('Create knowledge store'));

      s = await tui.press('universal.tabRuns');
      s = await tui.waitFor('Runs (0)');
      t.true(s.includes('No AI runs recorded yet'), s);
      s = await tui.press('universal.tabStores');
      t.true(s.includes('Stores (2)'), s);
      t.is(await tui.quit(), 0);
    } finally {
      await tui.quit();
    }
  });
}

test('emacs: C-x alone waits for the rest of a sequence and never quits; C-x C-c quits. vim: l goes in, h comes back', async (t) => {
  const { home } = await homeWithStore({ 'a.md': prose('apples', 20, 1) }, 'Alpha');
  const emacs = await startTui({ home, keymap: 'emacs' });
  try {
    let s = await emacs.pressKey('C-x');
    t.true(s.includes('ctrl-x …'), s);
    s = await emacs.pressKey('q');
    t.true(s.includes('ctrl-x q is not bound here'), s);
    s = await emacs.pressKey('C-x');
    s = await emacs.pressKey('C-g');
    t.false(s.includes('ctrl-x …'), s);
    t.true(s.includes('Stores (1)'), 'still running');
    await emacs.press('universal.help');
    s = await emacs.press('list.bottom');
    t.regex(s, /ctrl-x ctrl-c,\s+Quit kortty-rag.*\n.*ctrl-c {2}/);
    await emacs.press('universal.back');
    // quit() types the keymap's first quit key: the sequence C-x C-c.
    t.deepEqual(emacs.keymap.keys['universal.quit'], ['C-x C-c', 'C-c']);
    t.is(await emacs.quit(), 0);
  } finally {
    await emacs.quit();
  }

  const vim = await startTui({ home, keymap: 'vim' });
  try {
    let s = await vim.pressKey('l');
    t.regex(highlighted(s), /folder manual READY/);
    t.true(s.split('\n')[1]!.startsWith('┌'), 'the sources pane has the focus');
    s = await vim.pressKey('h');
    t.regex(highlighted(s), /Alpha/);
    s = await vim.pressKey('l');
    t.regex(highlighted(s), /folder manual READY/);
  } finally {
    await vim.quit();
  }
});
