import { copyFile, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { sha256File } from '../../src/embed/fingerprint.js';
import { getInstalled, verifyInstalled } from '../../src/embed/model-registry.js';
import { createEmbedder } from '../../src/embed/provider.js';
import { ensureStarterModel, STARTER_MODEL_ID, starterRecordPath } from '../../src/embed/starter-model.js';
import { dot } from '../../src/embed/vectors.js';
import { modelsDir } from '../../src/storage/paths.js';
import { lexicalModel } from '../helpers/models.js';

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-starter-'));

test.serial('the starter model is built on first use into the models directory and registered', async (t) => {
  const home = process.env.KORTTY_HOME!;
  t.is(await getInstalled(STARTER_MODEL_ID), undefined);
  const { path, sha256 } = await ensureStarterModel();
  t.is(path, join(modelsDir(home), 'kortty-lexical-starter-384.gguf'));
  t.is(await sha256File(path), sha256);
  const record = await getInstalled(STARTER_MODEL_ID);
  t.like(record, {
    id: STARTER_MODEL_ID,
    file: 'kortty-lexical-starter-384.gguf',
    sha256,
    source: 'generated',
  });
  t.is(record!.size, (await stat(path)).size);
  const own = JSON.parse(await readFile(starterRecordPath(home), 'utf8'));
  t.like(own, {
    id: STARTER_MODEL_ID,
    file: 'kortty-lexical-starter-384.gguf',
    sha256,
    source: 'generated',
    dimension: 384,
  });
  t.is((await verifyInstalled(STARTER_MODEL_ID)).rehashed, false);
  // Same bytes as the test helper's copy generated with the same parameters.
  t.is(await sha256File(await lexicalModel()), sha256);
  // A second call reuses the file.
  const before = (await stat(path)).mtimeMs;
  t.deepEqual(await ensureStarterModel(), { path, sha256 });
  t.is((await stat(path)).mtimeMs, before);
  const e = await createEmbedder({ modelPath: path, sha256, modelId: STARTER_MODEL_ID });
  t.teardown(() => e.close());
  const [a, b] = await e.embedDocuments(['offline search works', 'search offline']);
  t.true(dot(a!, b!) > 0.5);
});

test.serial('a damaged starter file is rebuilt to the recorded bytes', async (t) => {
  const { path, sha256 } = await ensureStarterModel();
  await writeFile(path, 'not a model');
  t.deepEqual(await ensureStarterModel(), { path, sha256 });
  t.is(await sha256File(path), sha256);
  t.is((await verifyInstalled(STARTER_MODEL_ID)).record.sha256, sha256);
});

test('a starter placed with only its generator record is registered without regenerating', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'kortty-starter-'));
  const src = await lexicalModel();
  await mkdir(modelsDir(home), { recursive: true });
  const dest = join(modelsDir(home), 'kortty-lexical-starter-384.gguf');
  await copyFile(src, dest);
  const sha256 = await sha256File(dest);
  const { generatorVersion, seed } = { generatorVersion: 1, seed: 0x6b6f7274 };
  const record = {
    id: STARTER_MODEL_ID,
    file: 'kortty-lexical-starter-384.gguf',
    size: 0,
    sha256,
    source: 'generated',
    dimension: 384,
    generatorVersion,
    seed,
  };
  await writeFile(starterRecordPath(home), JSON.stringify(record));
  const before = (await stat(dest)).mtimeMs;
  t.deepEqual(await ensureStarterModel(home), { path: dest, sha256 });
  t.is((await stat(dest)).mtimeMs, before);
  t.like(await getInstalled(STARTER_MODEL_ID, home), { sha256, source: 'generated' });
});
