import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  QdrantClientResourceExhaustedError,
  QdrantClientTimeoutError,
  QdrantClientUnexpectedResponseError,
} from '@qdrant/js-client-rest';
import test from 'ava';
import { isKorttyError, type KorttyError } from '../../src/errors.js';
import { collectionMismatch } from '../../src/qdrant/collection-check.js';
import { classifyFailure, scrub, withRetry } from '../../src/qdrant/failures.js';
import {
  generationOf,
  metaFromPayload,
  type PointInput,
  payloadFor,
  pointId,
} from '../../src/qdrant/points.js';

// Nothing here touches disk; KORTTY_HOME still points at a temp dir, as for every test.
process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-qdrant-pure-'));

// The pure parts of the adapter: ids, generations, payload mapping, collection checks, error
// classification and the retry loop (with an injected sleep, so no waiting).

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('point ids are deterministic RFC 4122 v5 UUIDs, distinct per store, source, generation and chunk', (t) => {
  const base = pointId('s', 'src', 'g1', 'c#0');
  t.regex(base, UUID_V5);
  t.is(pointId('s', 'src', 'g1', 'c#0'), base);
  const variants = [
    pointId('s2', 'src', 'g1', 'c#0'),
    pointId('s', 'src2', 'g1', 'c#0'),
    pointId('s', 'src', 'g2', 'c#0'),
    pointId('s', 'src', 'g1', 'c#1'),
    // No ambiguity from concatenation.
    pointId('s', 'srcg', '1', 'c#0'),
  ];
  t.is(new Set([base, ...variants]).size, 6);
  for (const v of variants) t.regex(v, UUID_V5);
});

test('generations follow content: ids, metadata and vector bytes', (t) => {
  const p = (text: string, x: number): PointInput => ({
    chunkId: 'c',
    vector: new Float32Array([x, 1, 0]),
    payload: { path: '/a', contentHash: 'h', text, lineStart: 1, lineEnd: 2 },
  });
  const g = generationOf('s', 'src', [p('a', 0)]);
  t.regex(g, /^g[0-9a-f]{24}$/);
  t.is(generationOf('s', 'src', [p('a', 0)]), g);
  t.not(generationOf('s', 'src', [p('b', 0)]), g);
  t.not(generationOf('s', 'src', [p('a', 1e-7)]), g);
  t.not(generationOf('s', 'other', [p('a', 0)]), g);
  t.not(generationOf('t', 'src', [p('a', 0)]), g);
  t.not(generationOf('s', 'src', []), g);
});

test('payload round trip; foreign payloads are recognised', (t) => {
  const meta = {
    path: '/x.pdf',
    contentHash: 'h',
    text: 't',
    chunkIndex: 3,
    tokens: 9,
    pageStart: 2,
    pageEnd: 3,
  };
  const back = metaFromPayload(payloadFor('s', 'src', 'g', 'c', meta));
  t.deepEqual(back, { storeId: 's', sourceId: 'src', generation: 'g', chunkId: 'c', meta });
  t.is(metaFromPayload({ city: 'London' }), null);
  t.is(metaFromPayload({ ...payloadFor('s', 'src', 'g', 'c', meta), store_id: 7 }), null);
  t.is(metaFromPayload(null), null);
});

test('collection checks name what differs', (t) => {
  const info = (vectors: unknown, payload_schema = {}) => ({
    config: { params: { vectors } },
    payload_schema,
  });
  t.is(collectionMismatch(info({ size: 8, distance: 'Cosine' }), 8), null);
  t.regex(collectionMismatch(info({ size: 9, distance: 'Cosine' }), 8)!, /9-dimensional/);
  t.regex(collectionMismatch(info({ size: 8, distance: 'Euclid' }), 8)!, /Euclid/);
  t.regex(collectionMismatch(info({ a: { size: 8, distance: 'Cosine' } }), 8)!, /named vectors \(a\)/);
  t.regex(collectionMismatch(info(undefined), 8)!, /no dense vector/);
  t.regex(
    collectionMismatch(
      info({ size: 8, distance: 'Cosine', multivector_config: { comparator: 'max_sim' } }),
      8,
    )!,
    /multivector/,
  );
  t.regex(collectionMismatch(info({ size: 8, distance: 'Cosine', datatype: 'uint8' }), 8)!, /uint8/);
  t.regex(
    collectionMismatch(info({ size: 8, distance: 'Cosine' }, { source_id: { data_type: 'integer' } }), 8)!,
    /"source_id" is indexed as integer/,
  );
});

test('failure classification: status, transience, and no secrets', (t) => {
  const api = (status: number, data: unknown) =>
    Object.assign(new Error('x'), { status, data, headers: new Headers() });
  t.like(classifyFailure(api(503, { status: { error: 'busy' } }), [], 1), {
    status: 503,
    transient: true,
    reason: 'HTTP 503: busy',
  });
  t.like(classifyFailure(api(400, { status: { error: 'Wrong input: x' } }), [], 1), { transient: false });
  t.like(
    classifyFailure(api(404, { status: { error: "Not found: Collection `c` doesn't exist!" } }), [], 1),
    {
      collectionMissing: true,
    },
  );
  t.like(classifyFailure(api(404, ''), [], 1), { collectionMissing: false });
  t.like(classifyFailure(api(403, 'key kq-1 is wrong'), ['kq-1'], 1), { transient: false });
  t.false(classifyFailure(api(403, 'key kq-1 is wrong'), ['kq-1'], 1).reason.includes('kq-1'));
  t.like(classifyFailure(new QdrantClientTimeoutError('aborted'), [], 250), {
    transient: true,
    reason: 'no response within 250 ms',
  });
  t.like(classifyFailure(new QdrantClientResourceExhaustedError('slow down', '2'), [], 1), {
    status: 429,
    transient: true,
    retryAfterMs: 2000,
  });
  t.like(classifyFailure(new QdrantClientResourceExhaustedError('slow down', '60'), [], 1), {
    transient: false,
  });
  const unexpected = classifyFailure(
    new QdrantClientUnexpectedResponseError(
      'Unexpected Response: 202 (Accepted)\nRaw response content:\n{"k":"kq-1"}',
    ),
    ['kq-1'],
    1,
  );
  t.is(unexpected.reason, 'unexpected response (HTTP 202)');
  const reset = Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
  });
  t.like(classifyFailure(reset, [], 1), { transient: true, reason: 'network error (ECONNRESET)' });
  const dns = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } });
  t.like(classifyFailure(dns, [], 1), { transient: false });
});

test('scrub removes secrets and header-like values, and bounds the text', (t) => {
  t.is(scrub('a SECRET b SECRET', ['SECRET']), 'a [redacted] b [redacted]');
  t.is(scrub('{"api-key":"zzz","x":1}', []), '{"api-key":"[redacted]","x":1}');
  t.is(scrub('Authorization: Bearer abc', []), 'Authorization: [redacted]');
  t.is(scrub('{"authorization":"Bearer abc"}', []), '{"authorization":"[redacted]"}');
  t.is(scrub('line1\nline2', []), 'line1 line2');
  t.is(scrub('x'.repeat(400), []).length, 301);
});

test('withRetry: transient failures retried with growing backoff, others thrown at once', async (t) => {
  const sleeps: number[] = [];
  const opts = {
    retries: 3,
    baseMs: 100,
    secrets: [],
    timeoutMs: 1,
    sleep: async (ms: number) => void sleeps.push(ms),
  };
  let calls = 0;
  const flaky = async () => {
    calls++;
    if (calls < 3) throw Object.assign(new Error('x'), { status: 502, data: '' });
    return 'ok';
  };
  t.is(await withRetry('op', flaky, opts), 'ok');
  t.is(calls, 3);
  t.is(sleeps.length, 2);
  t.true(sleeps[0]! >= 50 && sleeps[0]! <= 100 && sleeps[1]! >= 100 && sleeps[1]! <= 200, String(sleeps));

  calls = 0;
  const always = async () => {
    calls++;
    throw Object.assign(new Error('x'), { status: 500, data: '' });
  };
  const err = (await t.throwsAsync(withRetry('upsert', always, opts))) as KorttyError;
  t.true(isKorttyError(err, 'QDRANT_FAILED'));
  t.like(err.details, { op: 'upsert', status: 500, attempts: 4 });
  t.is(calls, 4);

  calls = 0;
  const bad = async () => {
    calls++;
    throw Object.assign(new Error('x'), { status: 400, data: '' });
  };
  t.like(((await t.throwsAsync(withRetry('op', bad, opts))) as KorttyError).details, { attempts: 1 });
  t.is(calls, 1);

  const ac = new AbortController();
  ac.abort();
  t.true(
    isKorttyError(
      await t.throwsAsync(withRetry('op', flaky, { ...opts, signal: ac.signal })),
      'JOB_CANCELLED',
    ),
  );
});
