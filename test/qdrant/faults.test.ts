import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import test from 'ava';
import { isKorttyError, type KorttyError } from '../../src/errors.js';
import { createQdrantStore, type QdrantStoreOptions } from '../../src/qdrant/adapter.js';
import type { PointInput } from '../../src/qdrant/points.js';
import { type FakeQdrant, type RecordedRequest, startFakeQdrant } from '../helpers/fake-qdrant.js';
import { vec } from './target.js';

// Error paths of the adapter with the real client against the fake's fault hooks: 409 races,
// 5xx retries, timeouts, connection resets, non-retryable errors, cancellation, a server that
// ignores filters. These need fault injection, so they always run against the fake.

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-qdrant-faults-'));

const DIM = 4;
const KEY = 'kq-faults-key';
let fake: FakeQdrant;
let admin: QdrantClient;
let n = 0;

test.before(async () => {
  fake = await startFakeQdrant({ apiKey: KEY });
  admin = new QdrantClient({
    url: fake.url,
    port: null,
    checkCompatibility: false,
    headers: { 'api-key': KEY },
  });
});
test.after.always(async () => {
  await fake?.close();
});

const fresh = () => `faults_${n++}`;
const store = (collection: string, extra: Partial<QdrantStoreOptions> = {}) =>
  createQdrantStore({
    url: fake.url,
    apiKey: KEY,
    collection,
    dimension: DIM,
    storeId: 'st',
    retryBaseMs: 2,
    ...extra,
  });

function pts(tag: string, count: number): PointInput[] {
  return Array.from({ length: count }, (_, i) => ({
    chunkId: `${tag}#${i}`,
    vector: vec(DIM, i, i),
    payload: { path: `/d/${tag}-${i}.txt`, contentHash: `h-${tag}-${i}`, text: `${tag} ${i}` },
  }));
}

const on = (collection: string, suffix: string, method?: string) => (r: RecordedRequest) =>
  r.path === `/collections/${collection}${suffix}` && (method === undefined || r.method === method);
const count = (collection: string, suffix: string, method?: string) =>
  fake.requests.filter(on(collection, suffix, method)).length;

/** The previously active generation still answers completely and exactly. */
async function assertActiveIntact(
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void },
  s: ReturnType<typeof store>,
  generation: string,
  want: string[],
) {
  const hits = await s.search(vec(DIM, 0), 50, [{ sourceId: 'src', generation }]);
  t.deepEqual(hits.map((h) => h.chunkId).sort(), want, 'active generation');
}

test('409 on create (another process won the race) is validated and accepted', async (t) => {
  const name = fresh();
  // Tests in this file run concurrently against one fake: the fault is for this collection only.
  fake.raceCreate(undefined, name);
  t.deepEqual(await store(name).ensureCollection(), { created: false });
  t.is(count(name, '', 'PUT'), 1);
  t.is(count(name, '/index', 'PUT'), 3);
  const s = store(name);
  const { generation } = await s.replaceSource('src', pts('a', 2));
  await assertActiveIntact(t, s, generation, ['a#0', 'a#1']);
});

test('409 on create with a collection of another shape is refused before any write', async (t) => {
  const name = fresh();
  fake.raceCreate({ size: DIM, distance: 'Euclid' }, name);
  const err = await t.throwsAsync(store(name).ensureCollection());
  t.true(isKorttyError(err, 'QDRANT_COLLECTION_MISMATCH'), err?.message);
  t.deepEqual(
    fake.writes(name).map((r) => `${r.method} ${r.path}`),
    [`PUT /collections/${name}`],
  );
});

test('5xx and 429 answers are retried and then succeed', async (t) => {
  const name = fresh();
  const s = store(name);
  await s.ensureCollection();
  fake.failNext(2, { status: 503, match: on(name, '/points', 'PUT') });
  const { generation, points } = await s.replaceSource('src', pts('a', 3));
  t.is(points, 3);
  t.is(count(name, '/points', 'PUT'), 3);
  await assertActiveIntact(t, s, generation, ['a#0', 'a#1', 'a#2']);
  const queries = count(name, '/points/query');
  fake.failNext(1, { status: 502, match: on(name, '/points/query') });
  fake.failNext(1, { status: 429, match: on(name, '/points/query') });
  t.is((await s.search(vec(DIM, 0), 1, [{ sourceId: 'src', generation }])).length, 1);
  t.is(count(name, '/points/query'), queries + 3);
});

test('persistent 5xx: QDRANT_FAILED, no success, and the active generation is untouched', async (t) => {
  const name = fresh();
  const s = store(name, { retries: 2, batchSize: 2 });
  const { generation: active } = await s.replaceSource('src', pts('old', 3));
  let upserts = 0;
  // The first batch of the new generation goes through, every later attempt fails. The fault is
  // switched off by its own flag, not clearFaults(): the tests of this file share the fake and run
  // at once, and clearing every fault would take another test's pending ones.
  let failing = true;
  fake.failNext(100, {
    status: 500,
    match: (r) => failing && on(name, '/points', 'PUT')(r) && ++upserts > 1,
  });
  const err = await t.throwsAsync(s.replaceSource('src', pts('new', 5)));
  failing = false;
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  const d = (err as KorttyError).details;
  t.like(d, { op: 'upsert', status: 500, attempts: 3, sourceId: 'src', batch: 2, batches: 3 });
  t.regex(err!.message, /batch 2 of 3; the active points of source src are unchanged/);
  await assertActiveIntact(t, s, active, ['old#0', 'old#1', 'old#2']);
  // The half-uploaded generation is invisible, and pruning against the active one removes it.
  t.is(await s.countSource('src'), 5);
  await s.pruneSource('src', active);
  t.is(await s.countSource('src'), 3);
});

test('a timed-out request is retried (the write is idempotent); persistent timeouts fail', async (t) => {
  const name = fresh();
  // The held request never answers, so only the retry has to beat the timeout: a loopback
  // round trip, with seconds to spare on a loaded machine.
  const s = store(name, { timeoutMs: 2_000 });
  await s.ensureCollection();
  fake.holdNext(1, { match: on(name, '/points', 'PUT') });
  const { generation } = await s.replaceSource('src', pts('a', 2));
  t.is(count(name, '/points', 'PUT'), 2);
  await assertActiveIntact(t, s, generation, ['a#0', 'a#1']);

  // Every attempt is held: the search fails however fast or slow the machine is.
  fake.holdNext(2, { match: on(name, '/points/query') });
  const err = await t.throwsAsync(
    store(name, { timeoutMs: 150, retries: 1 }).search(vec(DIM, 0), 3, [{ sourceId: 'src', generation }]),
  );
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like((err as KorttyError).details, { op: 'search', attempts: 2 });
  t.regex(err!.message, /no response within 150 ms/);
});

test('a reset connection is retried', async (t) => {
  const name = fresh();
  const s = store(name);
  const { generation } = await s.replaceSource('src', pts('a', 2));
  fake.resetNext(1, { match: on(name, '/points/query') });
  t.is((await s.search(vec(DIM, 1), 1, [{ sourceId: 'src', generation }]))[0]!.chunkId, 'a#1');
  t.is(count(name, '/points/query'), 2);
});

test("client errors (4xx) are not retried and carry Qdrant's message", async (t) => {
  const name = fresh();
  const s = store(name);
  await s.ensureCollection();
  // Someone recreates the collection with another dimension behind the adapter's back.
  await admin.deleteCollection(name);
  await admin.createCollection(name, { vectors: { size: DIM + 1, distance: 'Cosine' } });
  const before = count(name, '/points', 'PUT');
  const err = await t.throwsAsync(s.replaceSource('src', pts('a', 1)));
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like((err as KorttyError).details, { op: 'upsert', status: 400, attempts: 1 });
  t.regex(err!.message, /Vector dimension error: expected dim: 5, got 4/);
  t.is(count(name, '/points', 'PUT'), before + 1);
});

test('deleting from a collection that no longer exists is a no-op; searching it is an error', async (t) => {
  const name = fresh();
  const s = store(name);
  await s.deleteSource('src');
  await s.deleteStorePoints(['a', 'b']);
  await s.pruneSource('src', 'g1');
  const err = await t.throwsAsync(s.search(vec(DIM, 0), 1, [{ sourceId: 'src', generation: 'g1' }]));
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like((err as KorttyError).details, { op: 'search', status: 404 });
  t.false((await admin.collectionExists(name)).exists);
});

test('a 404 that is not Qdrant\'s "collection missing" (wrong path prefix) is not taken as success', async (t) => {
  const s = createQdrantStore({
    url: `${fake.url}/not-qdrant`,
    apiKey: KEY,
    collection: fresh(),
    dimension: DIM,
    storeId: 'st',
  });
  const err = await t.throwsAsync(s.deleteSource('src'));
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like((err as KorttyError).details, { op: 'delete-source', status: 404 });
});

// Serial: the broken-server switch is global to the fake.
test.serial('a server that ignores the filter is detected, not patched up', async (t) => {
  const name = fresh();
  const s = store(name);
  const { generation } = await s.replaceSource('src', pts('a', 2));
  await s.replaceSource('other', pts('b', 2));
  fake.ignoreFilters = true;
  try {
    const err = await t.throwsAsync(s.search(vec(DIM, 0), 4, [{ sourceId: 'src', generation }]));
    t.true(isKorttyError(err, 'QDRANT_FAILED'));
    t.regex(err!.message, /outside the filter/);
  } finally {
    fake.ignoreFilters = false;
  }
});

test('a wrong API key fails at once with a clear message', async (t) => {
  const name = fresh();
  const s = createQdrantStore({
    url: fake.url,
    apiKey: 'kq-wrong',
    collection: name,
    dimension: DIM,
    storeId: 'st',
    retryBaseMs: 2,
  });
  const err = await t.throwsAsync(s.ensureCollection());
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like((err as KorttyError).details, { status: 403, attempts: 1 });
  t.regex(err!.message, /check the API key/);
  t.is(count(name, '/exists'), 1);
  const noKey = createQdrantStore({ url: fake.url, collection: name, dimension: DIM, storeId: 'st' });
  t.like(((await t.throwsAsync(noKey.ensureCollection())) as KorttyError).details, { status: 401 });
});

test('cancelling between batches leaves the active generation as it was', async (t) => {
  const name = fresh();
  const s = store(name, { batchSize: 2 });
  const { generation } = await s.replaceSource('src', pts('old', 2));
  const ac = new AbortController();
  const err = await t.throwsAsync(
    s.replaceSource('src', pts('new', 6), {
      signal: ac.signal,
      onProgress: (done) => {
        if (done >= 2) ac.abort();
      },
    }),
  );
  t.true(isKorttyError(err, 'JOB_CANCELLED'));
  await assertActiveIntact(t, s, generation, ['old#0', 'old#1']);
});
