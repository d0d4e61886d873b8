import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { isProblem } from '../../src/scan/skip-kinds.js';
import { computeStatus, formatStatus } from '../../src/status/status-model.js';
import { statusTextPath, statusTmuxPath, storeConfigPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import { migrateSourceCounts } from '../../src/store/source-counts.js';
import { listStores, loadStore } from '../../src/store/store-config.js';
import type { SourceRecord } from '../../src/store/store-types.js';
import { homeWithStarter } from '../helpers/store-env.js';

// Files skipped by design are counted as skipped; only failures are problems, and only they turn
// the status line orange. Old store.json records (problems only) load and are split.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const dirs: string[] = [];
test.after.always(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tree(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'kortty-skips-'));
  dirs.push(root);
  for (const [name, body] of Object.entries(files)) await writeFile(join(root, name), body);
  return root;
}

test('skip reasons: by design vs problems', (t) => {
  for (const r of [
    'unsupported-format',
    'binary',
    'hidden',
    'excluded-dir',
    'gitignored',
    'too-large',
    'symlink',
  ])
    t.false(isProblem(r), r);
  for (const r of [
    'not-utf8',
    'permission-denied',
    'read-error',
    'pdf-invalid',
    'docx-invalid',
    'extract-failed',
    'ERROR',
  ])
    t.true(isProblem(r), r);
});

test('a folder of four binaries: 4 skipped, 0 problems, the status line stays idle and green', async (t) => {
  const home = await homeWithStarter();
  dirs.push(home);
  const bins = await tree({
    'a.bin': Buffer.from([0, 1, 2, 0]),
    'b.dat': Buffer.from([0, 1, 2, 1]),
    'photo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]),
    'notes.txt': Buffer.from([0x61, 0, 0x62]), // a text name, NUL inside: binary
  });
  await createStore({ name: 'Bins', modelId: 'kortty-lexical-starter' }, home);
  const res = await addSources('Bins', [{ kind: 'folder', path: bins }], {}, home);
  t.is(res.summary.skipped, 4);
  t.is(res.summary.problems, 0);
  const src = (await findStore('Bins', home)).sources[0]!;
  t.is(src.problems, 0);
  t.deepEqual(src.problemList, []);
  t.is(src.skipped, 4);
  t.deepEqual(
    src.skippedList.map((x) => x.reason).sort(),
    ['binary', 'unsupported-format', 'unsupported-format', 'unsupported-format'].sort(),
  );
  const info = computeStatus(await listStores(home), []);
  t.is(info.state, 'idle');
  t.is(info.skipped, 4);
  t.is(formatStatus(info, 'plain'), 'RAG idle');
  t.is(formatStatus(info, 'tmux'), '#[fg=green]RAG idle#[default]');
  // The pre-rendered lines a status bar reads, as the job left them.
  t.is(await readFile(statusTextPath(home), 'utf8'), 'RAG idle\n');
  t.is(await readFile(statusTmuxPath(home), 'utf8'), '#[fg=green]RAG idle#[default]\n');
  // The CLI's source table has a column for each.
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'source', 'list', 'Bins'], {
    env: { ...process.env, KORTTY_HOME: home },
  });
  const [head, row] = stdout.trimEnd().split('\n');
  const col = (name: string) => row!.slice(head!.indexOf(name)).split(/\s+/)[0];
  t.is(col('PROBLEMS'), '0');
  t.is(col('SKIPPED'), '4');

  // A real failure (a .md file that is not UTF-8) is a problem and turns the line orange.
  const bad = await tree({ 'latin1.md': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
  await addSources('Bins', [{ kind: 'folder', path: bad }], {}, home);
  const info2 = computeStatus(await listStores(home), []);
  t.is(info2.problems, 1);
  t.is(formatStatus(info2, 'plain'), 'RAG 1 problem');
  t.regex(formatStatus(info2, 'tmux'), /^#\[fg=colour208\]/);
  t.is(await readFile(statusTextPath(home), 'utf8'), 'RAG 1 problem\n');
});

test('store.json from before: problems split into problems and skipped on load', async (t) => {
  const home = await homeWithStarter();
  dirs.push(home);
  const { id } = await createStore({ name: 'Old', modelId: 'kortty-lexical-starter' }, home);
  const path = storeConfigPath(id, home);
  const cfg = JSON.parse(await readFile(path, 'utf8'));
  const entry = (reason: string, i: number) => ({ path: `/d/f${i}`, reason, explanation: reason });
  const old = (id: string, problems: number, reasons: string[]) => ({
    id,
    path: `/d/${id}`,
    kind: 'folder',
    sync: 'manual',
    enabled: true,
    options: { maxFileBytes: 50 * 1024 * 1024, include: [], exclude: [], gitignore: true },
    status: 'READY',
    files: 0,
    chunks: 0,
    problems,
    problemList: reasons.map(entry),
    hashes: {},
  });
  cfg.sources = [
    old('binaries', 4, ['binary', 'binary', 'unsupported-format', 'hidden']),
    old('mixed', 3, ['binary', 'not-utf8', 'read-error']),
    // The list was bounded: 60 entries counted, 2 listed.
    old('cut-skips', 60, ['hidden', 'excluded-dir']),
    old('cut-mixed', 60, ['hidden', 'pdf-invalid']),
  ];
  await writeFile(path, JSON.stringify(cfg));
  const loaded = await loadStore(id, home);
  const by = Object.fromEntries(
    loaded.sources.map((s) => [s.id, [s.problems, s.skipped, s.problemList.length, s.skippedList.length]]),
  );
  t.deepEqual(by, {
    binaries: [0, 4, 0, 4],
    mixed: [2, 1, 2, 1],
    'cut-skips': [0, 60, 0, 2],
    'cut-mixed': [59, 1, 1, 1],
  });
  t.is(formatStatus(computeStatus([{ ...loaded, sources: [loaded.sources[0]!] }], []), 'plain'), 'RAG idle');
  // A record that already has the new fields is left alone.
  const fresh = loaded.sources[1]!;
  t.is(migrateSourceCounts(fresh), fresh as SourceRecord);
});
