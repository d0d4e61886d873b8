import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';
import { GgmlType, GgufType } from '../../src/embed/gguf-format.js';
import { encodeGguf } from '../../src/embed/gguf-writer.js';
import {
  computeFingerprint,
  createEmbedder,
  describeFingerprint,
  readModelInfo,
} from '../../src/embed/provider.js';
import { dot } from '../../src/embed/vectors.js';
import { isKorttyError } from '../../src/errors.js';
import { lexicalModel, smallLexicalModel } from '../helpers/models.js';

const home = await mkdtemp(join(tmpdir(), 'kortty-provider-'));
process.env.KORTTY_HOME = home;

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

test('the starter model loads in node-llama-cpp and gives normalised vectors of its dimension', async (t) => {
  const path = await lexicalModel();
  const info = await readModelInfo(path);
  const e = await createEmbedder({ modelPath: path });
  t.teardown(() => e.close());
  t.is(e.dimension, info.dimension);
  t.is(e.contextSize, 2048);
  const [v] = await e.embedDocuments(['hello world']);
  t.is(v!.length, 384);
  t.true(Math.abs(norm(v!) - 1) < 1e-5);
  t.like(e.fingerprint, { dimension: 384, pooling: 'mean', fileName: path.split('/').pop() });
});

test('cosine tracks word overlap', async (t) => {
  const e = await createEmbedder({ modelPath: await lexicalModel() });
  t.teardown(() => e.close());
  const [cat, cat2, qcd, shout] = await e.embedDocuments([
    'the cat sat on the mat',
    'a cat on a mat',
    'quantum chromodynamics lattice',
    'The CAT sat on the Mat!',
  ]);
  const near = dot(cat!, cat2!);
  const far = dot(cat!, qcd!);
  t.true(near > 0.5, `overlap ${near}`);
  t.true(Math.abs(far) < 0.2, `no overlap ${far}`);
  t.true(dot(cat!, shout!) > 0.99, 'case and punctuation barely matter');
});

test('rare shared words count more than shared stop words', async (t) => {
  const e = await createEmbedder({ modelPath: await lexicalModel() });
  t.teardown(() => e.close());
  const [q, stop, rare] = await e.embedDocuments([
    'the thyroid and the nitrate',
    'the and the of to a in', // shares only stop words
    'thyroid biopsy results', // shares one rare word
  ]);
  t.true(dot(q!, rare!) > dot(q!, stop!) + 0.2, `${dot(q!, rare!)} vs ${dot(q!, stop!)}`);
});

test('same seed → same vectors from independently generated files', async (t) => {
  const a = await smallLexicalModel();
  const dir = await mkdtemp(join(tmpdir(), 'kortty-copy-'));
  const b = join(dir, 'copy.gguf');
  await copyFile(a, b);
  const ea = await createEmbedder({ modelPath: a });
  const eb = await createEmbedder({ modelPath: b });
  t.teardown(async () => {
    await ea.close();
    await eb.close();
  });
  const text = 'deterministic vectors for a store';
  t.deepEqual(await ea.embedQuery(text), await eb.embedQuery(text));
  t.is(ea.fingerprint.fileSha256, eb.fingerprint.fileSha256);
});

for (const dimension of [64, 128, 256]) {
  test(`a ${dimension}-d test model embeds at ${dimension} dimensions`, async (t) => {
    const e = await createEmbedder({ modelPath: await lexicalModel({ dimension, contextLength: 512 }) });
    t.teardown(() => e.close());
    const [v] = await e.embedDocuments(['vector dimension check']);
    t.is(v!.length, dimension);
    t.is(e.contextSize, 512);
  });
}

test('batched embedding equals one call per chunk, in order, with progress per batch', async (t) => {
  const path = await smallLexicalModel();
  const e = await createEmbedder({ modelPath: path, parallel: 2, threads: 2, batchSize: 4 });
  const one = await createEmbedder({ modelPath: path, parallel: 1, threads: 1 });
  t.teardown(async () => {
    await e.close();
    await one.close();
  });
  const texts = Array.from(
    { length: 11 },
    (_, i) => `chunk number ${i} about ${['cats', 'dogs', 'maps'][i % 3]}`,
  );
  const progress: number[] = [];
  const batched = await e.embedDocuments(texts, { onBatch: (n) => progress.push(n) });
  t.deepEqual(progress, [4, 8, 11]);
  for (const [i, text] of texts.entries()) {
    const [single] = await one.embedDocuments([text]);
    t.true(dot(single!, batched[i]!) > 0.99999, `chunk ${i}`);
  }
  t.like(e.stats, { calls: 1, texts: 11, truncated: 0 });
});

test('the provider agrees with a bare node-llama-cpp call', async (t) => {
  const path = await smallLexicalModel();
  const e = await createEmbedder({ modelPath: path, flashAttention: false });
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: path });
  const ctx = await model.createEmbeddingContext({ contextSize: 512, batchSize: 512, threads: 1 });
  t.teardown(async () => {
    await e.close();
    await ctx.dispose();
    await model.dispose();
  });
  const text = 'a plain sentence about local embeddings';
  const bare = (await ctx.getEmbeddingFor(text)).vector;
  const n = Math.hypot(...bare);
  const ours = await e.embedQuery(text);
  t.true(
    dot(
      ours,
      Float32Array.from(bare, (x) => x / n),
    ) > 0.99999,
  );
});

test('an overlong chunk is truncated to the context, counted and reported', async (t) => {
  const e = await createEmbedder({ modelPath: await smallLexicalModel() });
  t.teardown(() => e.close());
  const long = 'alpha beta gamma delta '.repeat(300); // 1200 tokens > 512 context
  t.is(e.countTokens(long), 1200);
  const cut: unknown[] = [];
  const [v, w] = await e.embedDocuments(['short one', long], { onTruncated: (x) => cut.push(x) });
  t.deepEqual(cut, [{ index: 1, tokens: 1200, kept: e.maxTextTokens }]);
  t.is(e.maxTextTokens, 512 - 1 - 2); // node-llama-cpp needs < contextSize, with [CLS] and [SEP]
  t.is(e.stats.truncated, 1);
  t.regex(e.warnings[0]!, /text 1 has 1200 tokens; embedded its first 509/);
  t.is(w!.length, 64);
  t.true(Math.abs(norm(w!) - 1) < 1e-5);
  t.true(dot(v!, w!) < 0.5);
  // What was embedded is exactly the kept prefix.
  const [prefix] = await e.embedDocuments([
    'alpha beta gamma delta '.repeat(128).trim().split(' ').slice(0, 509).join(' '),
  ]);
  t.true(dot(prefix!, w!) > 0.99999);
});

test('empty text gets a fixed unit vector instead of NaN', async (t) => {
  const e = await createEmbedder({ modelPath: await smallLexicalModel() });
  t.teardown(() => e.close());
  const [v, w] = await e.embedDocuments(['', '']);
  t.true(Math.abs(norm(v!) - 1) < 1e-6);
  t.deepEqual(v, w);
  t.is(e.stats.empty, 2);
});

test('prefixes are applied and are part of the fingerprint', async (t) => {
  const path = await smallLexicalModel();
  const e = await createEmbedder({ modelPath: path, documentPrefix: 'passage: ', queryPrefix: 'query: ' });
  const plain = await createEmbedder({ modelPath: path });
  t.teardown(async () => {
    await e.close();
    await plain.close();
  });
  const [doc] = await e.embedDocuments(['lattice']);
  const [expectedDoc] = await plain.embedDocuments(['passage: lattice']);
  t.true(dot(doc!, expectedDoc!) > 0.99999);
  t.true(dot(await e.embedQuery('lattice'), await plain.embedQuery('query: lattice')) > 0.99999);
  t.like(e.fingerprint, { documentPrefix: 'passage: ', queryPrefix: 'query: ' });
  t.regex(describeFingerprint(e.fingerprint), /document prefix "passage: ", query prefix "query: "/);
});

test('a model of another dimension is refused before it is loaded', async (t) => {
  const want = await computeFingerprint({
    modelPath: await lexicalModel({ dimension: 128, contextLength: 512 }),
  });
  // A header that promises 64-d vectors but whose tensors could never load: only the header is read.
  const dir = await mkdtemp(join(tmpdir(), 'kortty-dim-'));
  const fake = join(dir, 'fake.gguf');
  await writeFile(
    fake,
    encodeGguf({
      metadata: [
        { key: 'general.architecture', type: GgufType.STRING, value: 'bert' },
        { key: 'bert.embedding_length', type: GgufType.UINT32, value: 64 },
        { key: 'bert.context_length', type: GgufType.UINT32, value: 512 },
      ],
      tensors: [{ name: 'junk', dims: [4], type: GgmlType.F32, data: new Float32Array(4) }],
    }),
  );
  const err = await t.throwsAsync(createEmbedder({ modelPath: fake, fingerprint: want, storeName: 'notes' }));
  t.true(isKorttyError(err, 'MODEL_DIMENSION_MISMATCH'), String(err));
  t.regex(err!.message, /produces 64-dimensional vectors but store "notes" uses 128/);
  // Without a fingerprint the same file reaches the loader, which rejects it.
  const err2 = await t.throwsAsync(createEmbedder({ modelPath: fake }));
  t.true(isKorttyError(err2, 'MODEL_INVALID'), String(err2));
});

test('a different model of the same dimension is refused with both fingerprints named', async (t) => {
  const want = await computeFingerprint({ modelPath: await smallLexicalModel() });
  const other = await smallLexicalModel({ seed: 99 });
  const err = await t.throwsAsync(createEmbedder({ modelPath: other, fingerprint: want }));
  t.true(isKorttyError(err, 'MODEL_FINGERPRINT_MISMATCH'), String(err));
  t.regex(err!.message, /fileName, fileSha256/);
  t.regex(err!.message, new RegExp(want.fileSha256.slice(0, 12)));
  // The matching model is accepted and adopts the store's prefixes.
  const ok = await createEmbedder({ modelPath: await smallLexicalModel(), fingerprint: want });
  t.deepEqual(ok.fingerprint, want);
  await ok.close();
});

test('cancellation stops between chunks; a closed embedder refuses work', async (t) => {
  const e = await createEmbedder({ modelPath: await smallLexicalModel(), batchSize: 2, parallel: 1 });
  const ac = new AbortController();
  const texts = Array.from({ length: 10 }, (_, i) => `text ${i}`);
  const err = await t.throwsAsync(
    e.embedDocuments(texts, { signal: ac.signal, onBatch: (n) => n >= 4 && ac.abort() }),
  );
  t.true(isKorttyError(err, 'JOB_CANCELLED'), String(err));
  t.is(e.stats.texts, 4);
  await e.close();
  const closed = await t.throwsAsync(e.embedQuery('after close'));
  t.true(isKorttyError(closed, 'EMBEDDER_CLOSED'), String(closed));
});

// node-llama-cpp reads a vector after its decode has released the context's dispose guard; a
// context disposed in that gap crashes the process (SIGSEGV), so this test fails by killing its
// worker. A cancel or a close() while several contexts are embedding must wait for their calls.
test('cancelling or closing while every context is mid-embedding never disposes under a running call', async (t) => {
  const path = await lexicalModel();
  // Holds the model's lease, so each round only creates its contexts.
  const keeper = await createEmbedder({ modelPath: path, parallel: 1, threads: 1 });
  t.teardown(() => keeper.close());
  const text = Array.from({ length: 60 }, (_, i) => `word${i % 40} alpha bravo charlie`).join(' ');
  const texts = Array.from({ length: 32 }, (_, i) => `${i} ${text}`);
  const outcomes = new Map<string, number>();
  for (let round = 0; round < 16; round++) {
    const e = await createEmbedder({ modelPath: path, parallel: 2, threads: 2, batchSize: 64 });
    const ac = new AbortController();
    const run = e.embedDocuments(texts, { signal: ac.signal }).then(
      () => 'completed',
      (err) => (isKorttyError(err) ? err.code : String(err)),
    );
    // Strike after a different number of texts has entered the model in each round: relative to
    // the work done, not to a clock, so every round lands mid-embedding on any machine.
    const started = 2 + ((round * 7) % 24);
    let finished = false;
    void run.then(() => {
      finished = true;
    });
    while (e.stats.texts < started && !finished) await new Promise((r) => setImmediate(r));
    if (round % 2 === 0) ac.abort();
    // The odd rounds close with the call still running, as a job's `finally` does after a failure.
    else await e.close();
    const outcome = await run;
    await e.close();
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  t.deepEqual(
    [...outcomes.keys()].filter((o) => !['JOB_CANCELLED', 'EMBEDDER_CLOSED', 'completed'].includes(o)),
    [],
  );
  t.true(
    (outcomes.get('JOB_CANCELLED') ?? 0) > 0 && (outcomes.get('EMBEDDER_CLOSED') ?? 0) > 0,
    [...outcomes].join(),
  );
});
