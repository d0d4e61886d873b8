import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { isKorttyError } from '../../src/errors.js';
import { createQdrantStore, type QdrantStore } from '../../src/qdrant/adapter.js';
import { encodedForms } from '../../src/util/redact-secret.js';
import {
  type EchoShape,
  type RecordedRequest,
  startFakeQdrant,
  startHeaderRecorder,
} from '../helpers/fake-qdrant.js';
import { check, createRow, type SuiteRow } from './common.js';

// The Qdrant API key stays with the configured endpoint. The real client (@qdrant/js-client-rest)
// talks to the loopback fake, which answers with a redirect (301, 302, 303, 307, 308) on each
// operation of the adapter: to a second loopback server that records everything it receives (a
// different origin, which the endpoint policy would accept), to another path of the same server,
// and to remote addresses the policy refuses (plain http off loopback, another https host). No
// redirect may be followed: the recorder must see no request at all (no key, no document text),
// the fake no request to the redirected path, and the operation must fail with a message that
// says a redirect was refused. Then the fake echoes the request headers back in error bodies in
// six shapes (as sent, upper-cased, split in two, base64 of the headers, a Basic credential,
// hex): no thrown error may carry the key in any of those shapes.

export interface RedirectSuiteOptions {
  log?: (line: string) => void;
}

const STATUSES = [301, 302, 303, 307, 308];
const SHAPES: EchoShape[] = ['plain', 'upper', 'split', 'base64', 'basic', 'hex'];
const DIM = 4;
const vector = (i: number) => Float32Array.from({ length: DIM }, (_, j) => (j === i % DIM ? 1 : 0.1));

/** A run of 8 characters of the key, or of its base64/hex encodings, anywhere in `text` (any case). */
export function leakedForm(text: string, key: string): string | undefined {
  const lower = text.toLowerCase();
  for (const form of [key, ...encodedForms(key)]) {
    const f = form.toLowerCase();
    for (let i = 0; i + 8 <= f.length; i++) if (lower.includes(f.slice(i, i + 8))) return f.slice(i, i + 8);
  }
  return undefined;
}

function renderings(err: unknown): string {
  const out: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    const e = cur as Error;
    out.push(String(e), String(e.message), String(e.stack), JSON.stringify(e), inspect(e, { depth: 10 }));
    cur = (e as { cause?: unknown }).cause;
  }
  return out.join('\n');
}

export async function runQdrantRedirectSuite(opts: RedirectSuiteOptions = {}): Promise<SuiteRow[]> {
  const redirectRow = createRow(
    'Qdrant 3xx on every operation: never followed, the key stays at the endpoint',
  );
  const echoRow = createRow('Qdrant key echoed (as sent, upper-case, split, base64, Basic, hex): redacted');
  const key = `kq-${randomBytes(12).toString('hex')}-Key`;
  const fake = await startFakeQdrant({ apiKey: key });
  const recorder = await startHeaderRecorder();
  try {
    const store = (collection: string): QdrantStore =>
      createQdrantStore({
        url: fake.url,
        apiKey: key,
        collection,
        dimension: DIM,
        storeId: 'st',
        retries: 1,
        retryBaseMs: 1,
      });
    const points = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        chunkId: `c${i}`,
        vector: vector(i),
        payload: { path: `/docs/secret-plan-${i}.md`, contentHash: `h${i}`, text: `document text ${i}` },
      }));
    // A collection with one live generation, so reads and deletes have something to act on.
    const base = store('redirects');
    const { generation } = await base.replaceSource('src', points(3));
    const active = [{ sourceId: 'src', generation }];
    const operations: [string, (s: QdrantStore) => Promise<unknown>][] = [
      ['ensureCollection', (s) => s.ensureCollection()],
      ['replaceSource', (s) => s.replaceSource('src', points(2))],
      ['search', (s) => s.search(vector(0), 2, active)],
      ['listSource', (s) => s.listSource('src', generation)],
      ['countSource', (s) => s.countSource('src')],
      ['pruneSource', (s) => s.pruneSource('src', generation)],
      ['deleteSource', (s) => s.deleteSource('src')],
      ['deleteStorePoints', (s) => s.deleteStorePoints(['src'])],
    ];
    const targets: [string, (r: RecordedRequest) => string, RegExp][] = [
      ['another loopback server', (r) => `${recorder.url}${r.path}`, new RegExp(`to ${recorder.url}`)],
      ['the same server, another path', (r) => `/moved${r.path}`, new RegExp(`to ${fake.url}`)],
      [
        'plain http off loopback',
        (r) => `http://203.0.113.7:6333${r.path}`,
        /to http:\/\/203\.0\.113\.7:6333/,
      ],
      [
        'another https host',
        (r) => `https://qdrant.example.net${r.path}`,
        /to https:\/\/qdrant\.example\.net/,
      ],
    ];
    for (const status of STATUSES) {
      for (const [target, location, names] of targets) {
        for (const [op, run] of operations) {
          await redirectRow.trial(async () => {
            const before = fake.requests.length;
            const reached = recorder.requests.length;
            fake.clearFaults();
            fake.redirectNext(100, location, { status });
            let err: unknown;
            try {
              await run(store('redirects'));
            } catch (e) {
              err = e;
            }
            fake.clearFaults();
            check(recorder.requests.length === reached, () => {
              const r = recorder.requests[reached]!;
              return `${r.method} ${r.path} reached the redirect target with api-key=${r.headers['api-key'] === key ? 'THE KEY' : r.headers['api-key']}`;
            });
            const moved = fake.requests.slice(before).filter((r) => r.path.startsWith('/moved'));
            check(moved.length === 0, `the redirect to ${moved[0]?.path} was followed`);
            check(isKorttyError(err, 'QDRANT_FAILED'), `expected QDRANT_FAILED, got ${String(err)}`);
            const message = (err as Error).message;
            check(/HTTP 3\d\d: the server redirected the request/.test(message), message);
            check(names.test(message), `the message does not name the target: ${message}`);
            const text = renderings(err);
            const leak = leakedForm(text, key);
            check(leak === undefined, () => `the key (${leak}) appears in: ${text}`);
          }, `${status} to ${target}, ${op}`);
        }
      }
      opts.log?.(`redirects ${status}: ${redirectRow.failures} failure(s)`);
    }

    for (const shape of SHAPES) {
      for (const [status, op] of [
        [500, 'search'],
        [400, 'replaceSource'],
        [503, 'countSource'],
      ] as const) {
        await echoRow.trial(async () => {
          fake.clearFaults();
          fake.echoHeadersNext(100, status, shape);
          let err: unknown;
          try {
            await operations.find(([name]) => name === op)![1](base);
          } catch (e) {
            err = e;
          }
          fake.clearFaults();
          check(isKorttyError(err, 'QDRANT_FAILED'), `expected QDRANT_FAILED, got ${String(err)}`);
          const text = renderings(err);
          // The server really answered with the headers (the redaction removed something).
          check(
            /\[redacted\]/.test((err as Error).message),
            `nothing was redacted: ${(err as Error).message}`,
          );
          const leak = leakedForm(text, key);
          check(leak === undefined, () => `the key (${leak}) appears in: ${text}`);
        }, `${shape} echo on HTTP ${status} (${op})`);
      }
    }
    opts.log?.(`echoes: ${echoRow.failures} failure(s)`);
  } finally {
    await recorder.close();
    await fake.close();
  }
  return [redirectRow, echoRow];
}
