import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { createError } from '../errors.js';
import { checkEndpoint, clientTarget } from './endpoint-policy.js';
import { classifyFailure, type QdrantFailureExtra, withRetry } from './failures.js';
import type { QdrantFilter } from './points.js';

// One validated connection to a Qdrant collection: option checks, the official client set up
// quietly and literally, and the retrying / sanitising call wrapper every operation goes through.

export interface QdrantStoreOptions {
  /** Checked by checkEndpoint: https, or plain http on loopback only. Taken literally (no port → 443/80). */
  url: string;
  /** From the vault. Sent as the `api-key` header; never logged, never in errors. */
  apiKey?: string;
  collection: string;
  dimension: number;
  /** Written into every point; all reads, writes and deletes filter on it. */
  storeId: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Retries of a transient failure (5xx, 408/429, timeouts, connection resets); default 3. */
  retries?: number;
  /** First backoff step; default 250 ms, doubled per retry, capped at 5 s. */
  retryBaseMs?: number;
  /** Points per upsert request; default 256. */
  batchSize?: number;
}

export interface Connection {
  client: QdrantClient;
  endpoint: URL;
  collection: string;
  dimension: number;
  storeId: string;
  batchSize: number;
  /** Runs one idempotent request with retries; failures become sanitised QDRANT_FAILED errors. */
  call<T>(op: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Maps Qdrant's "collection does not exist" to null (for deletes: nothing to delete). */
  tolerateMissing<T>(fn: () => Promise<T>): Promise<T | null>;
  /** With wait=true an update must come back `completed`. */
  requireCompleted(op: string, res: Schemas['UpdateResult'] | null, extra?: QdrantFailureExtra): void;
  deleteWhere(op: string, filter: QdrantFilter): Promise<void>;
}

const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;

export function openConnection(opts: QdrantStoreOptions): Connection {
  const endpoint = checkEndpoint(opts.url);
  const arg = (name: string, reason: string) => createError('INVALID_ARGUMENT', { name, reason });
  if (!COLLECTION_NAME.test(opts.collection ?? '')) {
    throw arg('collection', 'use 1-255 characters from A-Z a-z 0-9 _ . - (starting with a letter or digit)');
  }
  if (!Number.isInteger(opts.dimension) || opts.dimension < 1 || opts.dimension > 65536) {
    throw arg('dimension', 'must be an integer between 1 and 65536');
  }
  if (typeof opts.storeId !== 'string' || opts.storeId.length === 0)
    throw arg('storeId', 'must be non-empty');
  if (opts.apiKey !== undefined && (typeof opts.apiKey !== 'string' || /[\r\n\0]/.test(opts.apiKey))) {
    // The key itself is never part of the message.
    throw arg('apiKey', 'must be a single-line string');
  }
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const batchSize = opts.batchSize ?? 256;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 4096)
    throw arg('batchSize', 'must be 1..4096');
  const secrets = opts.apiKey ? [opts.apiKey] : [];
  const { collection } = opts;

  const target = clientTarget(endpoint);
  const client = new QdrantClient({
    url: target.url,
    ...(target.prefix ? { prefix: target.prefix } : {}),
    // Literal URL: without this the client silently switches a port-less URL to 6333.
    port: null,
    timeout: timeoutMs,
    // The version probe fires an unawaited request and console.warns: noise in a TUI.
    checkCompatibility: false,
    // As a header rather than `apiKey`, which console.warns over loopback http.
    ...(opts.apiKey ? { headers: { 'api-key': opts.apiKey } } : {}),
  });
  refuseRedirects(client);

  const conn: Connection = {
    client,
    endpoint,
    collection,
    dimension: opts.dimension,
    storeId: opts.storeId,
    batchSize,
    call: (op, fn, signal) =>
      withRetry(op, fn, {
        retries: opts.retries ?? 3,
        baseMs: opts.retryBaseMs ?? 250,
        secrets,
        timeoutMs,
        ...(signal ? { signal } : {}),
      }),
    async tolerateMissing(fn) {
      try {
        return await fn();
      } catch (err) {
        if (classifyFailure(err, secrets, timeoutMs).collectionMissing) return null;
        throw err;
      }
    },
    requireCompleted(op, res, extra = {}) {
      if (res && res.status !== 'completed') {
        throw createError('QDRANT_FAILED', {
          op,
          reason: `the server answered "${res.status}" instead of completed`,
          ...extra,
        });
      }
    },
    async deleteWhere(op, filter) {
      const res = await conn.call(op, () =>
        conn.tolerateMissing(() =>
          client.delete(collection, { wait: true, filter: filter as Schemas['Filter'] }),
        ),
      );
      conn.requireCompleted(op, res);
    },
  };
  return conn;
}

type ApiCall = ((payload: unknown, init?: RequestInit) => Promise<unknown>) & Record<string, unknown>;

/**
 * Node's fetch follows redirects, re-sending custom headers (our `api-key`) and the request body
 * (document text) to whatever a 3xx points at, on any origin and scheme. Qdrant's REST API never
 * redirects, so none is followed: every request the client makes goes through the functions of
 * `client.api()` (its methods call those too), and each now passes `redirect: 'manual'`, so a 3xx
 * comes back as an error (see failures.ts) before anything is sent elsewhere.
 */
export function refuseRedirects(client: QdrantClient): void {
  const api = client.api() as unknown as Record<string, ApiCall>;
  const names = Object.keys(api).filter((k) => typeof api[k] === 'function');
  // The client's layout is not public API: refuse to run unguarded if it changes.
  if (names.length === 0 || typeof api.upsertPoints !== 'function') {
    throw createError('QDRANT_FAILED', {
      op: 'connect',
      reason: 'this version of @qdrant/js-client-rest cannot be set to refuse redirects',
    });
  }
  for (const name of names) {
    const call = api[name]!;
    api[name] = Object.assign(
      (payload: unknown, init?: RequestInit) => call(payload, { ...init, redirect: 'manual' }),
      call,
    );
  }
}
