import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { listInstalled } from '../../src/embed/model-registry.js';
import { storesDir } from '../../src/storage/paths.js';
import { lexicalModel } from '../helpers/models.js';
import { homeWithModel, homeWithVocabulary, newHome, prose, removeTempDirs, sourceTree } from './env.js';
import { choosePath, focusField, highlighted, selectRow } from './flows.js';
import { startTui } from './harness.js';

test.after.always(removeTempDirs);

// Create, beginner first, through the model setup assistant; the first source's review, progress
// and summary; a cancelled first review leaves no store behind.

test('create a store through the model assistant (starter generated for real), add a folder, review, confirm, progress, summary', async (t) => {
  const home = await homeWithVocabulary();
  const root = await sourceTree({
    'a.md': prose('apples', 40, 1),
    'b.txt': prose('bikes', 30, 2),
    'sub/c.py': `# carrots\n${prose('carrots', 20, 3)}`,
    '.hidden/x.md': 'secret',
    'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
  });
  await symlink(join(root, 'a.md'), join(root, 'link.md'));
  const tui = await startTui({ home });
  try {
    // No model installed: Create opens the setup assistant, the default model preselected.
    let s = await tui.press('stores.create');
    t.true(s.includes('Local model setup'), s);
    t.true(s.includes('Role: [x] Embedding'), s);
    t.regex(highlighted(s), /Qwen3-Embedding 0\.6B Q8_0/);
    t.regex(s, /Qwen3-Embedding 0\.6B Q8_0.*610 MiB/);
    t.regex(s, /Lexical starter: matches words, not meaning/);
    t.true(s.includes('Use a local GGUF file'), s);
    s = await selectRow(tui, 'Lexical starter');
    t.true(s.includes('matches words, not meaning'), s);
    s = await tui.press('assistant.install');
    t.true(s.includes('Generating the lexical starter model') || s.includes('Create knowledge store'), s);
    s = await tui.waitFor('Create knowledge store');
    t.true(s.includes('kortty-lexical-starter (matches words, not meaning)'), s);
    t.deepEqual(
      (await listInstalled(home)).map((r) => r.id),
      ['kortty-lexical-starter'],
    );

    // Beginner fields first; Advanced collapsed; no vector-index tuning anywhere.
    t.regex(s, /▸ Advanced\s+\(collapsed\)/);
    t.false(s.includes('Chunk size'));
    await tui.type('Notes');
    s = await focusField(tui, 'Advanced');
    s = await tui.press('form.toggle');
    for (const f of ['Store type', 'Dimension', 'Chunk size', 'Chunk overlap', 'Autonomous workflows'])
      t.true(s.includes(f), `${f}\n${s}`);
    t.false(/hnsw|efConstruction|efSearch|\bM\b/i.test(s.replace(/HNSW snapshot/, '')), s);
    s = await tui.press('form.toggle');
    t.false(s.includes('Chunk size'));

    // The Create button says why it cannot be pressed yet.
    s = await focusField(tui, 'Create');
    t.true(s.includes('add a folder or files first'), s);

    // Add folder: the browser greys hidden entries and marks symlinks.
    s = await focusField(tui, 'Add folder…');
    s = await tui.press('form.activate');
    t.true(s.includes('Add folder · choose a folder'), s);
    await tui.press('browser.goto');
    await tui.type(root);
    s = await tui.press('browser.open');
    t.regex(s, /\.hidden\/\s+hidden: skipped by scans/);
    // The target is the link's absolute path, cut with `…` where the name column ends.
    t.regex(s, /link\.md → \/\S*(?:a\.md|…)\s+symlink: never followed/);
    s = await tui.press('browser.choose');
    t.true(s.includes(`First source: ${root} (folder)`), s);

    s = await focusField(tui, 'Create');
    s = await tui.press('form.activate');
    s = await tui.waitFor('Review ·');
    t.regex(s, /new 3 · changed 0 · unchanged 0 · removed 0 · skipped \d/);
    t.regex(s, /formats: .*Code 1 \(python\).*Markup 1 \(markdown\).*Text 1 \(text\)/);
    t.regex(s, /a\.md\s+markdown\s+[\d.]+ KiB new/);
    t.regex(s, /img\.png\s+-\s+8 B skipped\s+image \(\.png\) is not/);
    t.regex(s, /link\.md\s+.*skipped\s+symbolic link/);
    s = await selectRow(tui, 'img.png');
    t.true(s.includes('img.png: unsupported-format — image (.png) is not indexed in v1'), s);
    s = await tui.press('review.filterSkipped');
    t.true(s.includes('[showing skipped rows only]'), s);
    t.false(/a\.md\s+markdown/.test(s));
    t.regex(s, /img\.png/);
    s = await tui.press('review.filterSkipped');
    t.regex(s, /a\.md\s+markdown/);

    await tui.press('review.confirm');
    s = await tui.waitFor('Store created · Notes');
    t.regex(s, /newly indexed 3 · unchanged 0 · removed 0 · skipped \d/);
    t.true(
      tui.history.some((h) => /(documents|docs) \d+\/3 · chunks \d+ · problems \d+ · \d+%/.test(h)),
      'the indexing status line showed documents, chunks, problems and percent',
    );
    s = await tui.press('summary.close');
    const row = s.split('\n').find((l) => l.includes(root.slice(-12)))!;
    t.regex(row, /folder manual READY\s+3\/3\s+\d+ \d\d-\d\d \d\d:\d\d/);
    t.regex(s, /Notes\s+local\s+kortty-lexical-st?…\s+384 text\s+1\s+3 READY/);
    await tui.quit();

    // The source table persists across restarts.
    const again = await startTui({ home });
    s = await again.screen();
    t.regex(s, /Notes\s+local/);
    await again.press('stores.open');
    s = await again.screen();
    t.regex(s.split('\n').find((l) => l.includes(root.slice(-12)))!, /READY\s+3\/3/);
    await again.quit();
  } finally {
    await tui.quit();
  }
});

test('cancelling the first review removes the new store and reopens Create with the reason', async (t) => {
  const home = await homeWithModel();
  const root = await sourceTree({ 'a.md': prose('apples', 10, 1) });
  const tui = await startTui({ home });
  try {
    let s = await tui.press('stores.create');
    t.false(s.includes('Local model setup'), 'a model is installed: no assistant');
    t.true(s.includes('Create knowledge store'), s);
    await tui.type('Scratch');
    await focusField(tui, 'Add folder…');
    await tui.press('form.activate');
    s = await choosePath(tui, root);
    await focusField(tui, 'Create');
    await tui.press('form.activate');
    await tui.waitFor('Review ·');
    s = await tui.press('review.cancel');
    s = await tui.waitFor('was not created');
    t.true(s.includes('Create knowledge store'), s);
    t.regex(s, /Stores \(0\)/);
    // No store directory at all (whatever id the name would have had).
    const left = existsSync(storesDir(home)) ? await readdir(storesDir(home)) : [];
    t.deepEqual(
      left.filter((n) => !n.startsWith('.')),
      [],
    );
    t.is(await readFile(join(root, 'a.md'), 'utf8'), prose('apples', 10, 1));
  } finally {
    await tui.quit();
  }
});

test('model assistant: a download shows progress or names why it failed; a local GGUF file is registered and chosen', async (t) => {
  const home = await newHome();
  const dir = await sourceTree({});
  const gguf = join(dir, 'my-embedder.gguf');
  await copyFile(await lexicalModel(), gguf);
  const tui = await startTui({ home });
  try {
    await tui.press('stores.create');
    let s = await selectRow(tui, 'Nomic Embed Text v1.5');
    s = await tui.press('assistant.install');
    // Offline (as here) the download fails at once and says why; online it shows progress and is cancelled.
    const flat = (x: string) => x.replace(/[│\s]+/g, ' ');
    s = await tui.waitFor((x) => /download of https:\/\/huggingface\.co\/|MiB \/ [\d.]+ MiB/.test(flat(x)));
    if (/MiB \/ [\d.]+ MiB/.test(s)) {
      await tui.press('job.cancel');
      s = await tui.waitFor('Cancelled. A cancelled download resumes');
    } else t.regex(flat(s), /download of https:\/\/huggingface\.co\/nomic-ai\/.* failed: /);
    t.true(s.includes('Local model setup'), 'the assistant stays open');

    s = await tui.press('assistant.localFile');
    t.true(s.includes('Use a local GGUF file'), s);
    await choosePath(tui, gguf);
    s = await tui.waitFor('Create knowledge store');
    t.regex(s, /Embedding model\s+‹ local:my-embedder/);
    t.deepEqual(
      (await listInstalled(home)).map((r) => [r.id, r.file]),
      [['local:my-embedder', gguf]],
    );
  } finally {
    await tui.quit();
  }
});
