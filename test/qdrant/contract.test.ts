import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { isKorttyError, type KorttyError } from '../../src/errors.js';
import { createQdrantStore, type QdrantStoreOptions } from '../../src/qdrant/adapter.js';
import type { PointInput } from '../../src/qdrant/points.js';
import { openTarget, type Target, vec } from './target.js';

// Adapter contract with the real @qdrant/js-client-rest. Runs against the loopback fake, or
// against a real Qdrant when KORTTY_QDRANT_URL is set. Assertions that need the fake's request
// log are extra checks on top of backend-independent ones.

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-qdrant-home-'));

const DIM = 8;
let target: Target;

test.before(async () => {
  target = await openTarget();
});
test.after.always(async () => {
  await target?.cleanup();
});

function store(collection: string, storeId = 'store-x', extra: Partial<QdrantStoreOptions> = {}) {
  return createQdrantStore({
    url: target.url,
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    collection,
    dimension: DIM,
    storeId,
    retryBaseMs: 5,
    ...extra,
  });
}

function points(tag: string, n: number, axis: number, opts: { pages?: boolean } = {}): PointInput[] {
  return Array.from({ length: n }, (_, i) => ({
    chunkId: `${tag}#${i}`,
    vector: vec(DIM, axis + i, i),
    payload: {
      path: `/docs/${tag}/file-${i}.${opts.pages ? 'pdf' : 'md'}`,
      contentHash: `${tag}-hash-${i}`.padEnd(64, '0'),
      text: `chunk ${i} of ${tag} — ünïcödé text`,
      chunkIndex: i,
      tokens: 10 + i,
      ...(opts.pages
        ? { pageStart: i + 1, pageEnd: i + 2 }
        : { lineStart: i * 10 + 1, lineEnd: i * 10 + 10 }),
    },
  }));
}

const writesTo = (collection: string) => target.fake?.writes(collection).length ?? 0;

test('creates a cosine collection of the store dimension with keyword payload indexes', async (t) => {
  const name = target.name('create');
  t.deepEqual(await store(name).ensureCollection(), { created: true });
  const info = await target.admin.getCollection(name);
  t.deepEqual(
    {
      size: (info.config.params.vectors as { size: number }).size,
      distance: (info.config.params.vectors as { distance: string }).distance,
    },
    { size: DIM, distance: 'Cosine' },
  );
  for (const field of ['store_id', 'source_id', 'generation'])
    t.is(info.payload_schema[field]?.data_type, 'keyword', field);
  const before = writesTo(name);
  // A second store (another process) validates instead of creating, and writes nothing.
  t.deepEqual(await store(name, 'store-y').ensureCollection(), { created: false });
  t.is(writesTo(name), before);
  if (target.fake) {
    const idx = target.fake.writes(name).filter((r) => r.path.endsWith('/index'));
    t.deepEqual(
      idx.map((r) => [r.body.field_name, r.body.field_schema, r.query.wait]),
      ['store_id', 'source_id', 'generation'].map((f) => [f, 'keyword', 'true']),
    );
    t.true(target.fake.requests.every((r) => r.hadApiKey));
  }
});

for (const [label, vectors, pattern] of [
  [
    'another dimension',
    { size: 16, distance: 'Cosine' },
    /16-dimensional vectors but this store's model produces 8/,
  ],
  ['another distance', { size: DIM, distance: 'Dot' }, /uses Dot distance; a kortty store needs Cosine/],
  ['named vectors', { dense: { size: DIM, distance: 'Cosine' } }, /uses named vectors \(dense\)/],
] as const) {
  test(`an existing collection with ${label} is refused before anything is written`, async (t) => {
    const name = target.name('mismatch');
    await target.admin.createCollection(name, { vectors: vectors as never });
    const before = writesTo(name);
    const s = store(name);
    const err = await t.throwsAsync(s.ensureCollection());
    t.true(isKorttyError(err, 'QDRANT_COLLECTION_MISMATCH'), err?.message);
    t.regex(err!.message, pattern);
    t.true(err!.message.includes(name));
    // Writes go through the same validation.
    const err2 = await t.throwsAsync(s.replaceSource('src-1', points('a', 2, 0)));
    t.true(isKorttyError(err2, 'QDRANT_COLLECTION_MISMATCH'));
    t.is(writesTo(name), before);
    const info = await target.admin.getCollection(name);
    t.is(info.points_count ?? 0, 0);
    t.deepEqual(Object.keys(info.payload_schema), []);
  });
}

test('replaceSource → search round trip keeps the chunk metadata', async (t) => {
  const name = target.name('roundtrip');
  const s = store(name);
  const a = points('a', 3, 0);
  const b = points('b', 3, 3, { pages: true });
  const ga = await s.replaceSource('src-a', a);
  const gb = await s.replaceSource('src-b', b);
  t.is(ga.points, 3);
  t.regex(ga.generation, /^g[0-9a-f]{24}$/);
  const active = [
    { sourceId: 'src-a', generation: ga.generation },
    { sourceId: 'src-b', generation: gb.generation },
  ];
  const hits = await s.search(a[1]!.vector, 6, active);
  t.is(hits.length, 6);
  t.is(hits[0]!.chunkId, 'a#1');
  t.is(hits[0]!.sourceId, 'src-a');
  t.true(Math.abs(hits[0]!.score - 1) < 1e-5, String(hits[0]!.score));
  t.deepEqual(hits[0]!.meta, a[1]!.payload);
  for (let i = 1; i < hits.length; i++) t.true(hits[i - 1]!.score >= hits[i]!.score);
  const pdf = (await s.search(b[2]!.vector, 1, active))[0]!;
  t.deepEqual(pdf.meta, b[2]!.payload);
  t.is(pdf.meta.pageStart, 3);
  if (target.fake) {
    const upserts = target.fake.writes(name).filter((r) => r.method === 'PUT' && r.path.endsWith('/points'));
    t.true(upserts.length >= 2 && upserts.every((r) => r.query.wait === 'true'));
    const q = target.fake.requests.filter((r) => r.path === `/collections/${name}/points/query`);
    t.true(q.length >= 2 && q.every((r) => r.body.filter?.must?.length === 3));
  }
});

test('a new generation stays invisible until it is made active; prune removes the old one', async (t) => {
  const name = target.name('generations');
  const s = store(name);
  const old = points('v1', 3, 0);
  const g1 = (await s.replaceSource('src', old)).generation;
  const fresh = points('v2', 2, 4);
  const g2 = (await s.replaceSource('src', fresh)).generation;
  t.not(g1, g2);
  const ids = async (generation: string) =>
    (await s.search(fresh[0]!.vector, 10, [{ sourceId: 'src', generation }])).map((h) => h.chunkId).sort();
  t.deepEqual(await ids(g1), ['v1#0', 'v1#1', 'v1#2']);
  t.deepEqual(await ids(g2), ['v2#0', 'v2#1']);
  t.is(await s.countSource('src'), 5);
  await s.pruneSource('src', g2);
  t.is(await s.countSource('src'), 2);
  t.is(await s.countSource('src', g1), 0);
  t.deepEqual(await ids(g2), ['v2#0', 'v2#1']);
  // The same content again is the same generation: a retried update is idempotent.
  t.is((await s.replaceSource('src', fresh)).generation, g2);
  t.is(await s.countSource('src'), 2);
  // A source whose files are all gone: an empty generation, activated and pruned like any other.
  const empty = await s.replaceSource('src', []);
  t.is(empty.points, 0);
  t.deepEqual(await s.search(fresh[0]!.vector, 10, [{ sourceId: 'src', generation: empty.generation }]), []);
  await s.pruneSource('src', empty.generation);
  t.is(await s.countSource('src'), 0);
});

test('isolation: disabled sources and other stores in the same collection never come back', async (t) => {
  const name = target.name('isolation');
  const x = store(name, 'store-x');
  const y = store(name, 'store-y');
  const enabled = points('x1', 3, 0);
  const disabled = points('x2', 3, 3);
  const foreign = points('y1', 3, 3);
  const gx1 = (await x.replaceSource('s1', enabled)).generation;
  await x.replaceSource('s2', disabled);
  // The other store even reuses the source id s1.
  const gy1 = (await y.replaceSource('s1', foreign)).generation;
  const activeX = [{ sourceId: 's1', generation: gx1 }];
  // The query matches the disabled and foreign points exactly, the enabled ones only loosely.
  const q = disabled[0]!.vector;
  const hits = await x.search(q, 3, activeX);
  t.deepEqual(hits.map((h) => h.chunkId).sort(), ['x1#0', 'x1#1', 'x1#2']);
  t.true(hits.every((h) => h.sourceId === 's1' && h.meta.path.startsWith('/docs/x1/')));
  // Filtered inside the query: k = 1 still yields one enabled hit, not an empty post-filtered list.
  const one = await x.search(q, 1, activeX);
  t.is(one.length, 1);
  t.is(one[0]!.sourceId, 's1');
  t.true(one[0]!.meta.path.startsWith('/docs/x1/'));
  // Another store's generation of the same source id does not unlock its points.
  t.deepEqual(await x.search(q, 5, [{ sourceId: 's1', generation: gy1 }]), []);
  // No enabled source: nothing, and no request at all.
  const queriesBefore = target.fake?.requests.length ?? 0;
  t.deepEqual(await x.search(q, 5, []), []);
  t.is(target.fake?.requests.length ?? 0, queriesBefore);
  // The other store still finds its own.
  t.deepEqual((await y.search(q, 5, [{ sourceId: 's1', generation: gy1 }])).map((h) => h.chunkId).sort(), [
    'y1#0',
    'y1#1',
    'y1#2',
  ]);
});

test('lifecycle: removing a source or a store deletes only its points, never the collection', async (t) => {
  const name = target.name('lifecycle');
  const x = store(name, 'store-x');
  const y = store(name, 'store-y');
  const g1 = (await x.replaceSource('s1', points('x1', 2, 0))).generation;
  await x.replaceSource('s2', points('x2', 2, 2));
  const gy = (await y.replaceSource('s1', points('y1', 2, 4))).generation;
  await x.deleteSource('s2');
  t.is(await x.countSource('s2'), 0);
  t.is(await x.countSource('s1', g1), 2);
  t.is(await y.countSource('s1', gy), 2);
  await x.deleteStorePoints(['s1', 's2']);
  t.is(await x.countSource('s1'), 0);
  t.is(await y.countSource('s1', gy), 2);
  t.true((await target.admin.collectionExists(name)).exists);
  await x.deleteStorePoints([]);
  if (target.fake) t.false(target.fake.requests.some((r) => r.method === 'DELETE'));
});

test('upserts go in batches; listSource returns the stored chunks with (normalised) vectors', async (t) => {
  const name = target.name('batches');
  const s = store(name, 'store-x', { batchSize: 4 });
  const pts = points('b', 10, 0);
  const progress: number[] = [];
  const { generation } = await s.replaceSource('src', pts, {
    onProgress: (done) => {
      progress.push(done);
    },
  });
  t.deepEqual(progress, [4, 8, 10]);
  if (target.fake) {
    const sizes = target.fake
      .writes(name)
      .filter((r) => r.method === 'PUT' && r.path.endsWith('/points'))
      .map((r) => r.body.points.length);
    t.deepEqual(sizes, [4, 4, 2]);
  }
  const listed = await s.listSource('src', generation, { withVectors: true });
  t.deepEqual(listed.map((p) => p.chunkId).sort(), pts.map((p) => p.chunkId).sort());
  for (const p of listed) {
    const orig = pts.find((o) => o.chunkId === p.chunkId)!;
    t.deepEqual(p.meta, orig.payload);
    let dot = 0;
    let n1 = 0;
    let n2 = 0;
    for (let i = 0; i < DIM; i++) {
      dot += p.vector![i]! * orig.vector[i]!;
      n1 += p.vector![i]! ** 2;
      n2 += orig.vector[i]! ** 2;
    }
    t.true(Math.abs(dot / Math.sqrt(n1 * n2) - 1) < 1e-5);
  }
});

test('bad input is refused before any request', async (t) => {
  const name = target.name('input');
  const s = store(name);
  const before = target.fake?.requests.length ?? 0;
  const cases: [string, PointInput[]][] = [
    ['wrong dimension', [{ ...points('a', 1, 0)[0]!, vector: new Float32Array(DIM + 1) }]],
    ['NaN', [{ ...points('a', 1, 0)[0]!, vector: new Float32Array(DIM).fill(Number.NaN) }]],
    ['duplicate chunk id', [points('a', 1, 0)[0]!, points('a', 1, 0)[0]!]],
  ];
  for (const [label, pts] of cases) {
    const err = await t.throwsAsync(s.replaceSource('src', pts), undefined, label);
    t.true(isKorttyError(err, 'INVALID_ARGUMENT'), `${label}: ${err?.message}`);
  }
  t.true(isKorttyError(await t.throwsAsync(s.search(new Float32Array(3), 5, [])), 'INVALID_ARGUMENT'));
  t.true(isKorttyError(await t.throwsAsync(s.search(vec(DIM, 0), 0, [])), 'INVALID_ARGUMENT'));
  t.is(target.fake?.requests.length ?? 0, before);
  t.false((await target.admin.collectionExists(name)).exists);
  t.true(
    isKorttyError(
      t.throws(() => store('bad/name')),
      'INVALID_ARGUMENT',
    ),
  );
  t.true(
    isKorttyError(
      t.throws(() => store(name, '')),
      'INVALID_ARGUMENT',
    ),
  );
});

test('a point removed behind our back between upload and verification is not reported as success', async (t) => {
  const name = target.name('verify');
  const s = store(name);
  const pts = points('v', 3, 0);
  const err = await t.throwsAsync(
    s.replaceSource('src', pts, {
      onProgress: async () => {
        // Another writer deletes one point of the freshly uploaded generation.
        await target.admin.delete(name, {
          wait: true,
          filter: { must: [{ key: 'chunk_id', match: { value: 'v#1' } }] },
        });
      },
    }),
  );
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.is((err as KorttyError).details.op, 'verify');
  t.regex(err!.message, /expected 3 points.*holds 2/);
});
