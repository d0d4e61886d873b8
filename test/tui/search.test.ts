import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { createRunRecord } from '../../src/ai/runs.js';
import { appendRun, newRunId } from '../../src/ai/runs-file.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { search } from '../../src/retrieve/search.js';
import { runsDir } from '../../src/storage/paths.js';
import { findStore, updateSources } from '../../src/store/engine.js';
import { homeWithStore, prose, removeTempDirs, sourceTree } from './env.js';
import { PATH_COLS, startTui } from './harness.js';

test.after.always(removeTempDirs);

// Test search: the bounded block with [R1] markers, paths, line ranges and scores; opening the
// cited file at its line in $EDITOR (spawned with an argument vector, no shell). Runs: recent AI
// actions with their excerpts and cited markers, stale citations flagged.

async function fakeEditor(): Promise<{ path: string; log: string }> {
  const dir = await sourceTree({});
  const path = join(dir, 'fake-editor');
  const log = join(dir, 'args.txt');
  // Writes one argument per line; a path with spaces or a `;` stays one argument.
  await writeFile(path, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${log}'\n`);
  await chmod(path, 0o755);
  return { path, log };
}

test('Test search shows the block with [R1] markers, paths and scores and opens the cited file in $EDITOR', async (t) => {
  const { home, root } = await homeWithStore({
    'apples; rm -rf x.md': prose('apples', 30, 1),
    'bikes.txt': prose('bikes', 30, 2),
    'guide.md': prose('carrots', 30, 3),
  });
  const editor = await fakeEditor();
  const tui = await startTui({ home, cols: PATH_COLS, env: { EDITOR: editor.path } });
  try {
    let s = await tui.press('stores.testSearch');
    t.true(s.includes('Test search · Docs'), s);
    t.regex(s, /Retrieval only: nothing\W+is sent to a chat model/);
    await tui.type('apples');
    s = await tui.press('search.run');
    s = await tui.waitFor('[R1]');
    t.regex(s, /› ?\[R1\] .*apples; rm -rf x\.md:1-30 · fused 0\.\d{4} · vec #1 lex #1/);
    t.regex(s, /\[R2\] .*\.(txt|md):1-30 · fused 0\.\d{4}/);
    t.true(s.includes('<retrieved_context>'), s);
    t.regex(s, /\[R1\] \/.*apples; rm -rf x\.md · lines 1-30 · store\W+Docs/);

    s = await tui.press('search.openInEditor');
    t.deepEqual((await readFile(editor.log, 'utf8')).split('\n').filter(Boolean), [
      '+1',
      join(root, 'apples; rm -rf x.md'),
    ]);
    t.true(s.includes('Opened') || (await tui.screen()).includes('Opened'));

    s = await tui.press('search.cycleMode');
    s = await tui.waitFor('mode vector');
    t.regex(s, /\[R1\]/);
    await tui.press('universal.back');
  } finally {
    await tui.quit();
  }
});

test('Runs view lists recent AI actions with their excerpts and flags stale citations', async (t) => {
  const { home, root } = await homeWithStore({
    'apples.md': prose('apples', 30, 1),
    'bikes.txt': prose('bikes', 30, 2),
  });
  const store = await findStore('Docs', home);
  const deps = createSearchDeps(home);
  const res = await search({ stores: [store], query: 'apples' }, deps);
  await deps.close();
  t.true(res.excerpts.length >= 2);
  const when = new Date();
  await appendRun(
    createRunRecord({
      id: newRunId(when),
      time: when,
      action: 'ask',
      profile: 'local-qwen',
      stores: [{ id: store.id, name: store.name }],
      query: 'what about apples?',
      excerpts: res.excerpts,
      cited: ['R1', 'R2'],
      status: 'ok',
    }),
    runsDir(home),
  );
  // apples.md changes after the run: its citation is stale now.
  await writeFile(join(root, 'apples.md'), prose('apples', 31, 5));
  await updateSources('Docs', 'all', {}, home);

  const tui = await startTui({ home, cols: PATH_COLS });
  try {
    let s = await tui.press('universal.tabRuns');
    s = await tui.waitFor('Runs (1)');
    t.regex(s, /ask\s+local-qwen\s+Docs\s+2\s+R1 R2\s+ok\s+STALE R1/);
    t.true(s.includes('query: what about apples?'), s);
    t.regex(s, /\[R1\] .*apples\.md:1-30 · 0\.\d{4} · cited STALE/);
    t.regex(s, /\[R2\] .*bikes\.txt:1-30 · 0\.\d{4} · cited/);
    t.false(/\[R2\].*STALE/.test(s));
    t.true(s.includes('stale citations: [R1]'), s);
    s = await tui.press('universal.tabStores');
    t.true(s.includes('Stores (1)'), s);
  } finally {
    await tui.quit();
  }
});

test('Test search shows the shaped query it searched: a pasted prompt, timestamp and address are gone', async (t) => {
  const { home } = await homeWithStore({
    'apples.md': prose('apples', 30, 1),
    'bikes.txt': prose('bikes', 30, 2),
  });
  const tui = await startTui({ home });
  try {
    await tui.press('stores.testSearch');
    await tui.type('user@host:~/src$ grep apples 2026-12-04T05:20:56Z at 0x7ffd1234abcd');
    await tui.press('search.run');
    const s = await tui.waitFor('[R1]');
    t.regex(s, /Searched: grep apples at\s/);
    t.false(/Searched: .*(user@host|2026|7ffd)/.test(s), s);
    t.regex(s, /\[R1\] .*apples\.md:1-30/);
  } finally {
    await tui.quit();
  }
});
