import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../../src/chunk/params.js';
import { addLocalModel } from '../../src/embed/model-registry.js';
import { encodeSnapshotV1 } from '../../src/index/snapshot-format-v1.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath, storeLockPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import { saveStore, storeIdFor } from '../../src/store/store-config.js';
import { smallLexicalModel } from '../helpers/models.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

const DOCS_ID = storeIdFor('Docs');

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin', 'kortty-rag.js');

async function indexed() {
  const home = await homeWithStarter();
  const root = await mkdtemp(join(tmpdir(), 'kortty-ref-'));
  await writeTree(root, { 'a.md': prose('apples', 30, 1), 'b.md': prose('bananas', 30, 2) });
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter' }, home);
  const ports = countingPorts(home);
  await addSources('Docs', [{ kind: 'folder', path: root }], { ports }, home);
  return { home, root, ports };
}

test('a model of another dimension is refused before any chunk is embedded', async (t) => {
  const { home, root, ports } = await indexed();
  const other = await addLocalModel(await smallLexicalModel(), { id: 'tiny64', home });
  const cfg = await findStore('Docs', home);
  await saveStore({ ...cfg, modelId: other.id }, home); // e.g. a model id re-pointed behind the store's back
  await writeFile(join(root, 'a.md'), prose('apricots', 30, 3));
  ports.embedded = 0;
  const err = await t.throwsAsync(updateSources('Docs', 'all', { ports }, home));
  t.is((err as { code?: string }).code, 'MODEL_DIMENSION_MISMATCH');
  t.regex(err!.message, /64-dimensional.*384/);
  t.is(ports.embedded, 0);
});

test('an index built with another embedding configuration is rejected with a clear message', async (t) => {
  const { home } = await indexed();
  const cfg = await findStore('Docs', home);
  await saveStore({ ...cfg, fingerprint: { ...cfg.fingerprint, queryPrefix: 'search_query: ' } }, home);
  const err = await t.throwsAsync(updateSources('Docs', 'all', { ports: countingPorts(home) }, home));
  t.is((err as { code?: string }).code, 'FINGERPRINT_MISMATCH');
  t.regex(err!.message, /Rebuild the store/);
});

test('a legacy v1 snapshot is rebuilt into the current format and promoted on first open', async (t) => {
  const { home } = await indexed();
  const path = snapshotPath(DOCS_ID, home);
  const v2 = await openSnapshot(path);
  const data = v2!.data;
  v2!.close();
  await writeFile(path, encodeSnapshotV1(data));
  const reopened = await openSnapshot(path);
  t.is(reopened!.openedVersion, 1);
  t.true(reopened!.promoted);
  reopened!.close();
  const again = await openSnapshot(path);
  t.is(again!.openedVersion, 3);
  t.deepEqual(
    again!.data.docs.map((d) => [d.path, d.sha256, d.chunks.map((c) => c.id)]),
    data.docs.map((d) => [d.path, d.sha256, d.chunks.map((c) => c.id)]),
  );
  again!.close();
});

test('a second process is refused while a job holds the store', async (t) => {
  const { home } = await indexed();
  // A real second process takes the store lock and holds it.
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { acquireLock } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/storage/lock.js'))});
       await acquireLock(${JSON.stringify(storeLockPath(DOCS_ID, home))}, 'Docs', { job: 'index' });
       process.stdout.write('held\\n'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const err = await t.throwsAsync(updateSources('Docs', 'all', { ports: countingPorts(home) }, home));
    t.is((err as { code?: string }).code, 'STORE_BUSY');
    t.regex(err!.message, new RegExp(`index is already running .*pid ${holder.pid}`));
    const cli = await run(process.execPath, [BIN, 'source', 'update', 'Docs', '--yes'], {
      env: { ...process.env, KORTTY_HOME: home },
    }).catch((e) => e);
    t.is(cli.code, 1);
    t.regex(cli.stderr, /already running/);
  } finally {
    holder.kill('SIGKILL');
  }
});

test('a CLI job SIGKILLed mid-activation leaves a snapshot that opens and verifies', async (t) => {
  const { home, root } = await indexed();
  const path = snapshotPath(DOCS_ID, home);
  const before = await readFile(path);
  await writeFile(join(root, 'c.md'), prose('cherries', 30, 4));
  for (const label of ['mid-embedding', 'snapshot-fsynced', 'snapshot-renamed']) {
    const res = await run(process.execPath, [BIN, 'source', 'update', 'Docs', '--yes'], {
      env: { ...process.env, KORTTY_HOME: home, KORTTY_KILL_AT: label },
    }).catch((e) => e);
    t.is(res.signal, 'SIGKILL', label);
    const snap = await openSnapshot(path);
    t.truthy(snap, label);
    const paths = snap!.data.docs.map((d) => d.path.slice(root.length + 1));
    snap!.close();
    if (label === 'snapshot-renamed') t.deepEqual(paths, ['a.md', 'b.md', 'c.md']);
    else {
      t.deepEqual(paths, ['a.md', 'b.md'], label);
      t.deepEqual(await readFile(path), before, label);
    }
  }
  // after the kills, Update now converges
  const res = await updateSources('Docs', 'all', { ports: countingPorts(home) }, home);
  t.is(res.summary.unchanged, 3);
});

test('chunk sizes are checked once, at creation, against the bounds the chunker uses', async (t) => {
  const home = await homeWithStarter();
  // An overlap of more than half a chunk used to be accepted here, and then refused by the
  // chunker at the first sync.
  for (const [chunk, field] of [
    [{ chunkTokens: 100, overlapTokens: 60 }, 'overlapTokens'],
    [{ chunkTokens: MIN_CHUNK_TOKENS - 1, overlapTokens: 0 }, 'chunkTokens'],
    [{ chunkTokens: MAX_CHUNK_TOKENS + 1, overlapTokens: 0 }, 'chunkTokens'],
    [{ chunkTokens: 100.5, overlapTokens: 0 }, 'chunkTokens'],
  ] as const) {
    const err = await t.throwsAsync(
      createStore({ name: 'Docs', modelId: 'kortty-lexical-starter', chunk }, home),
    );
    t.is((err as { code?: string }).code, 'INVALID_ARGUMENT', JSON.stringify(chunk));
    t.like((err as { details?: object }).details, { name: field }, JSON.stringify(chunk));
  }
  await t.throwsAsync(findStore('Docs', home), undefined, 'nothing was created');
  // The largest overlap accepted is one the chunker takes: the first sync indexes.
  const root = await mkdtemp(join(tmpdir(), 'kortty-ref-'));
  await writeTree(root, { 'a.md': prose('apples', 60, 1) });
  const chunk = { chunkTokens: MIN_CHUNK_TOKENS, overlapTokens: MIN_CHUNK_TOKENS / 2 };
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter', chunk }, home);
  const res = await addSources(
    'Docs',
    [{ kind: 'folder', path: root }],
    { ports: countingPorts(home) },
    home,
  );
  t.is(Object.values(res.statuses)[0], 'READY');
  t.true(res.summary.chunksEmbedded > 1);
});
