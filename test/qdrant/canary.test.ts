import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import test from 'ava';
import { createQdrantStore, type QdrantStoreOptions } from '../../src/qdrant/adapter.js';
import { startFakeQdrant } from '../helpers/fake-qdrant.js';
import { quietPort } from '../helpers/ports.js';
import { vec } from './target.js';

// A canary API key goes through the adapter on good and failing paths. It must reach the server
// (so the test can tell it was used) and must appear in no thrown error — message, stack,
// JSON, inspect output, cause chain — and nothing the process prints.

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-canary-'));

const CANARY = `kq-CANARY-${randomBytes(12).toString('hex')}`;

function renderings(err: unknown): string[] {
  const out: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    const e = cur as Error;
    out.push(
      String(e),
      String(e.message),
      String(e.stack),
      JSON.stringify(e),
      inspect(e, { depth: 10, showHidden: true }),
    );
    cur = (e as { cause?: unknown }).cause;
  }
  return out;
}

test.serial('the API key never appears in errors or output, on any path', async (t) => {
  const printed: string[] = [];
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const orig = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      printed.push(String(chunk));
      return (orig as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = orig;
    });
  }
  for (const level of ['log', 'warn', 'error', 'info', 'debug'] as const) {
    const orig = console[level];
    console[level] = (...args: unknown[]) => {
      printed.push(args.map(String).join(' '));
    };
    restore.push(() => {
      console[level] = orig;
    });
  }

  const good = await startFakeQdrant({ apiKey: CANARY });
  const other = await startFakeQdrant({ apiKey: 'kq-some-other-key' });
  const dead = await quietPort();
  const errors: [string, unknown][] = [];
  const attempt = async (label: string, fn: () => Promise<unknown> | unknown) => {
    try {
      await fn();
      errors.push([label, undefined]);
    } catch (err) {
      errors.push([label, err]);
    }
  };
  const opts = (url: string, extra: Partial<QdrantStoreOptions> = {}): QdrantStoreOptions => ({
    url,
    apiKey: CANARY,
    collection: 'canary',
    dimension: 4,
    storeId: 'st',
    retryBaseMs: 1,
    retries: 1,
    ...extra,
  });
  const point = { chunkId: 'c', vector: vec(4, 0), payload: { path: '/p', contentHash: 'h', text: 't' } };

  try {
    // The happy path, to be sure the key is really in use.
    const s = createQdrantStore(opts(good.url));
    const { generation } = await s.replaceSource('src', [point]);
    t.is((await s.search(vec(4, 0), 1, [{ sourceId: 'src', generation }])).length, 1);
    t.true(good.requests.length > 0 && good.requests.every((r) => r.hadApiKey));
    t.false(JSON.stringify(s).includes(CANARY));
    t.false(inspect(s, { depth: 10, showHidden: true }).includes(CANARY));

    // Failing paths.
    await attempt('403 wrong key', () => createQdrantStore(opts(other.url)).ensureCollection());
    good.echoHeadersNext(10);
    await attempt('5xx echoing request headers', () =>
      s.search(vec(4, 0), 1, [{ sourceId: 'src', generation }]),
    );
    good.echoHeadersNext(10, 400);
    await attempt('4xx echoing request headers', () => s.replaceSource('src', [point]));
    good.clearFaults();
    good.holdNext(5);
    await attempt('timeout', () => createQdrantStore(opts(good.url, { timeoutMs: 100 })).countSource('src'));
    good.clearFaults();
    good.resetNext(5);
    await attempt('connection reset', () => s.deleteSource('src'));
    good.clearFaults();
    await attempt('connection refused', () =>
      createQdrantStore(opts(`http://127.0.0.1:${dead}`)).ensureCollection(),
    );
    await attempt('key in the URL', () =>
      createQdrantStore(opts(`https://user:${CANARY}@qdrant.example.com`)),
    );
    await attempt('key in the URL (http)', () => createQdrantStore(opts(`http://${CANARY}@127.0.0.1:6333`)));
    await attempt('multi-line key', () =>
      createQdrantStore(opts(good.url, { apiKey: `${CANARY}\nX-Other: 1` })),
    );
    await attempt('mismatching collection', async () => {
      await createQdrantStore(opts(good.url, { dimension: 3 })).ensureCollection();
    });
  } finally {
    for (const r of restore.reverse()) r();
    await good.close();
    await other.close();
  }

  for (const [label, err] of errors) {
    t.truthy(err, `${label} should have failed`);
    for (const text of renderings(err)) t.false(text.includes(CANARY), `${label}: ${text.slice(0, 300)}`);
    t.false(renderings(err).join('\n').includes('kq-CANARY'), label);
  }
  // The echoing server really did send the key back; it was removed, not merely absent.
  const echoed = errors.find(([l]) => l.startsWith('5xx'))![1] as Error;
  t.regex(echoed.message, /\[redacted\]/);
  t.false(printed.join('\n').includes(CANARY));
});
