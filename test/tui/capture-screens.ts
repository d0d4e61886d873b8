import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRunRecord } from '../../src/ai/runs.js';
import { appendRun, newRunId } from '../../src/ai/runs-file.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { search } from '../../src/retrieve/search.js';
import { runsDir } from '../../src/storage/paths.js';
import { findStore, updateSources } from '../../src/store/engine.js';
import { ACTION_NAMES, ACTIONS } from '../../src/tui/actions.js';
import { loadKeymap } from '../../src/tui/config-files.js';
import { keyLabel } from '../../src/tui/keymap.js';
import { homeWithModel, homeWithVocabulary, prose, removeTempDirs, writeTree } from './env.js';
import { choosePath, focusField, selectRow } from './flows.js';
import { ROOT, startTui, type Tui } from './harness.js';

// Writes docs/screens/*.txt: text captures of every view of the pane, taken from the real TUI in a
// pseudo-terminal (80×24 unless the name says otherwise). Run: node dist/test/tui/capture-screens.js

const OUT = join(ROOT, 'docs', 'screens');
const DEMO = '/tmp/kortty-demo';

async function save(name: string, screen: string) {
  await writeFile(
    join(OUT, `${name}.txt`),
    `${screen
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')}\n`,
  );
  console.log(`docs/screens/${name}.txt`);
}

async function demoTree() {
  const notes = join(DEMO, 'notes');
  await writeTree(notes, {
    'garden/apples.md': `# Apple trees\n${prose('apples', 40, 1)}`,
    'garden/pruning.md': `# Pruning\n${prose('pruning', 30, 2)}`,
    'bikes/maintenance.txt': prose('bikes', 30, 3),
    'scripts/backup.py': `# nightly backup\n${prose('backup', 20, 4)}`,
    'photos/tree.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
    '.obsidian/config.json': '{}',
    'node_modules/x/index.js': 'x',
  });
  return notes;
}

async function flow(tui: Tui, notes: string) {
  await save('01-stores-empty', await tui.screen());
  await save('02-model-assistant', await tui.press('stores.create'));
  await selectRow(tui, 'Lexical starter');
  await save('03-model-assistant-starter', await tui.screen());
  await tui.press('assistant.install');
  await tui.waitFor('Create knowledge store');
  await tui.type('Notes');
  await save('04-create', await tui.screen());
  await focusField(tui, 'Advanced');
  await save('05-create-advanced', await tui.press('form.toggle'));
  await tui.press('form.toggle');
  await focusField(tui, 'Add folder…');
  await tui.press('form.activate');
  await tui.press('browser.goto');
  await tui.type(notes);
  await save('06-file-browser', await tui.press('browser.open'));
  await tui.press('browser.choose');
  await focusField(tui, 'Create');
  await tui.press('form.activate');
  await save('08-review', await tui.waitFor('Review ·'));
  await save('09-review-skipped-only', await tui.press('review.filterSkipped'));
  await tui.press('review.confirm');
  await save('11-summary', await tui.waitFor('Store created'));
  const indexing = tui.history.findLast((h) => /(extracting|embedding) · docs \d+\/\d+ · chunks/.test(h));
  if (indexing) await save('10-indexing-status-line', indexing);
  await save('12-stores-and-sources', await tui.press('summary.close'));
  await save('13-source-options', await tui.press('sources.options'));
  await tui.press('universal.back');
  await save('14-remove-confirm', await tui.press('sources.remove'));
  await tui.press('confirm.no');
  await tui.press('universal.back');
  await save('15-roles', await tui.press('stores.roles'));
  await tui.press('universal.back');
  await save('16-delete-confirm', await tui.press('stores.delete'));
  await tui.press('confirm.no');
  await tui.press('stores.testSearch');
  await tui.type('apple trees');
  await tui.press('search.run');
  await save('17-test-search', await tui.waitFor('[R1]'));
  await tui.press('universal.back');
  await save('18-help', await tui.press('universal.help'));
  await tui.press('universal.back');
}

/** The keybinding reference, generated from the action catalogue and the shipped keymaps. */
async function keybindings() {
  const maps = ['default', 'vim', 'emacs'].map((n) => loadKeymap(n, '/nonexistent-home', ROOT));
  const rows = ACTION_NAMES.map((a) => {
    const keys = maps.map((m) => m.keys[a].map((k) => `\`${keyLabel(k)}\``).join(' '));
    return `| \`${a}\` | ${ACTIONS[a].context} | ${ACTIONS[a].description} | ${keys.join(' | ')} |`;
  });
  const text = [
    '# Keybindings',
    '',
    'Generated from `src/tui/actions.ts` and `keymaps/*.json` by `test/tui/capture-screens.ts`. Press `?` in the',
    'pane for the keys that work where you are, with the reason any of them is disabled right now.',
    '',
    '| Action | Context | What it does | default | vim | emacs |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  await writeFile(join(OUT, 'keybindings.md'), text);
  console.log('docs/screens/keybindings.md');
}

async function main() {
  await keybindings();
  await rm(DEMO, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const notes = await demoTree();
  const home = await homeWithVocabulary();
  let tui = await startTui({ home, cwd: DEMO });
  try {
    await flow(tui, notes);
  } finally {
    await tui.quit();
  }

  // "Checking…" needs a tree that takes the scan a moment.
  const big = join(DEMO, 'archive');
  for (let i = 0; i < 3000; i++)
    await writeTree(big, { [`y${i % 30}/n${i}.md`]: prose(`entry${i}`, 3, i + 1) });
  tui = await startTui({ home, cwd: DEMO });
  try {
    await tui.press('stores.open');
    await tui.press('sources.addFolder');
    await save('07-add-folder-options', await choosePath(tui, big));
    await save('07b-checking', await tui.press('form.activate'));
    await tui.press('job.cancel');
    await tui.waitFor('Cancelled');

    // Runs: one recorded AI action whose first citation went stale.
    const store = await findStore('Notes', home);
    const deps = createSearchDeps(home);
    const res = await search({ stores: [store], query: 'apples pruning' }, deps);
    await deps.close();
    const when = new Date();
    await appendRun(
      createRunRecord({
        id: newRunId(when),
        time: when,
        action: 'ask',
        profile: 'local-qwen',
        model: 'qwen2.5-7b-instruct',
        stores: [{ id: store.id, name: store.name }],
        query: 'When should I prune the apple trees?',
        excerpts: res.excerpts,
        cited: res.excerpts.slice(0, 2).map((e) => e.marker),
        status: 'ok',
      }),
      runsDir(home),
    );
    await writeTree(notes, { 'garden/apples.md': `# Apple trees (revised)\n${prose('apples', 42, 9)}` });
    await updateSources('Notes', 'all', {}, home);
    await tui.press('universal.refresh');
    await tui.press('universal.tabRuns');
    await save('19-runs', await tui.waitFor('Runs (1)'));
    await tui.press('universal.tabStores');
    await save('20-wide-120x40', await tui.resize(120, 40));
  } finally {
    await tui.quit();
  }

  const h2 = await homeWithModel();
  for (const km of ['vim', 'emacs']) {
    const t2 = await startTui({ home: h2, keymap: km, cols: 100, rows: 40 });
    await save(`21-help-${km}-100x40`, await t2.press('universal.help'));
    await t2.quit();
  }
  await removeTempDirs();
  await rm(DEMO, { recursive: true, force: true });
}

await main();
