import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback Qdrant-compatible REST server for contract tests (Qdrant itself cannot run here).
// It implements the endpoints @qdrant/js-client-rest 1.x calls for the adapter, with Qdrant's
// documented shapes: `{result, status: "ok", time}` envelopes, `{status: {error}, time}` errors
// with Qdrant's status codes (400 bad input, 404 missing collection, 409 already exists),
// `api-key` authentication (401 missing / 403 wrong, plain-text body), cosine vectors
// normalised at insert, filters (must / should / must_not / min_should, match value / any /
// except, range, has_id, is_empty, is_null, nested filters), id-ordered scroll pagination.
// Anything it does not implement is answered with 400 rather than guessed.
//
// Fault hooks: failNext (5xx), holdNext (no answer until the client gives up), resetNext (ECONNRESET),
// raceCreate (another creator wins → 409), echoHeadersNext (a proxy repeating request headers,
// whole or upper-cased, split, base64- or hex-encoded), redirectNext (a 3xx to another address),
// ignoreFilters (a broken server returning unfiltered results). startHeaderRecorder is a second
// loopback server that records what reaches it (the target of a redirect).

type Id = number | string;
// Request bodies are arbitrary client JSON; the fake validates what it uses, shape by shape.
// biome-ignore lint/suspicious/noExplicitAny: untyped wire JSON
type Json = any;

export interface FakePoint {
  id: Id;
  vector: number[];
  payload: Record<string, unknown>;
  version: number;
}

export interface FakeCollection {
  vectors: Json;
  points: Map<string, FakePoint>;
  payloadSchema: Record<string, { data_type: string; params?: Json; points: number }>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Json;
  hadApiKey: boolean;
  write: boolean;
}

type Match = (r: RecordedRequest) => boolean;
type Fault =
  | { kind: 'fail'; left: number; status: number; match?: Match }
  | { kind: 'hold'; left: number; match?: Match }
  | { kind: 'reset'; left: number; match?: Match }
  | { kind: 'race-create'; left: number; vectors?: Json; collection?: string }
  | { kind: 'echo'; left: number; status: number; shape: EchoShape }
  | {
      kind: 'redirect';
      left: number;
      status: number;
      location: (r: RecordedRequest) => string;
      match?: Match;
    };

/** How an echoing server repeats the request's headers. */
export type EchoShape = 'plain' | 'upper' | 'split' | 'base64' | 'basic' | 'hex';

export interface FakeQdrant {
  url: string;
  requests: RecordedRequest[];
  collections: Map<string, FakeCollection>;
  /** Mutating requests seen so far (optionally for one collection). */
  writes(collection?: string): RecordedRequest[];
  failNext(n: number, opts?: { status?: number; match?: Match }): void;
  /**
   * Handles the request (a write does happen), then holds the answer until the client closes the
   * connection: the client's timeout fires whatever the machine's speed (a lost acknowledgement).
   */
  holdNext(n: number, opts?: { match?: Match }): void;
  resetNext(n: number, opts?: { match?: Match }): void;
  /** The next create (of `collection`, if given) finds the collection created by someone else (with `vectors`, default: as requested) and gets 409. */
  raceCreate(vectors?: Json, collection?: string): void;
  echoHeadersNext(n: number, status?: number, shape?: EchoShape): void;
  /** Answers the next `n` requests with `status` and a Location (a function of the request, or a base URL the path is appended to). */
  redirectNext(
    n: number,
    location: string | ((r: RecordedRequest) => string),
    opts?: { status?: number; match?: Match },
  ): void;
  ignoreFilters: boolean;
  clearFaults(): void;
  close(): Promise<void>;
}

export const DISTANCES = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
const badInput = (m: string) => new HttpError(400, `Wrong input: ${m}`);
const formatError = (m: string) => new HttpError(400, `Format error in JSON body: ${m}`);

export async function startFakeQdrant(opts: { apiKey?: string; port?: number } = {}): Promise<FakeQdrant> {
  const collections = new Map<string, FakeCollection>();
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  let opId = 0;

  const takeFault = (req: RecordedRequest): Fault | undefined => {
    const i = faults.findIndex((f) => {
      if (f.left <= 0) return false;
      if (f.kind === 'race-create')
        return (
          req.method === 'PUT' &&
          /^\/collections\/[^/]+$/.test(req.path) &&
          (f.collection === undefined || req.path === `/collections/${encodeURIComponent(f.collection)}`)
        );
      return !('match' in f) || !f.match || f.match(req);
    });
    if (i < 0) return undefined;
    const f = faults[i]!;
    f.left--;
    if (f.left <= 0) faults.splice(i, 1);
    return f;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const started = process.hrtime.bigint();
    const u = new URL(req.url ?? '/', 'http://fake');
    let body: Json;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      body = Symbol.for('invalid-json');
    }
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      body,
      hadApiKey: req.headers['api-key'] !== undefined,
      write: isWrite(req.method ?? 'GET', u.pathname),
    };
    requests.push(rec);
    const time = () => Number(process.hrtime.bigint() - started) / 1e9;
    const send = (status: number, payload: Json) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const fault = takeFault(rec);
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'fail') {
      send(fault.status, {
        status: { error: `Service internal error: injected fault ${fault.status}` },
        time: time(),
      });
      return;
    }
    if (fault?.kind === 'echo') {
      send(fault.status, {
        status: { error: `upstream failed for request with headers ${echo(req.headers, fault.shape)}` },
        time: 0,
      });
      return;
    }
    if (fault?.kind === 'redirect') {
      res.writeHead(fault.status, { location: fault.location(rec), 'content-type': 'text/plain' });
      res.end(`Redirecting to ${fault.location(rec)}`);
      return;
    }
    if (opts.apiKey !== undefined) {
      const key = req.headers['api-key'];
      if (key === undefined) {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end('Must provide an API key or an Authorization bearer token');
        return;
      }
      if (key !== opts.apiKey) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('Invalid API key or JWT');
        return;
      }
    }
    let status = 200;
    let out: Json;
    try {
      if (body === Symbol.for('invalid-json')) throw formatError('invalid JSON');
      out = route(rec, fault);
    } catch (err) {
      status = err instanceof HttpError ? err.status : 500;
      out = { status: { error: err instanceof Error ? err.message : String(err) }, time: time() };
    }
    if (fault?.kind === 'hold' && !res.destroyed) await new Promise((r) => res.once('close', r));
    if (status === 404 && out.status.error === '') {
      res.writeHead(404);
      res.end();
    } else if (status === 200 && rec.path === '/') send(200, out);
    else if (status === 200) send(200, { result: out, status: 'ok', time: time() });
    else send(status, out);
  }

  function route(r: RecordedRequest, fault: Fault | undefined): Json {
    if (r.method === 'GET' && r.path === '/')
      return { title: 'qdrant - vector search engine', version: '1.15.0' };
    if (r.method === 'GET' && r.path === '/collections') {
      return { collections: [...collections.keys()].map((name) => ({ name })) };
    }
    const m = /^\/collections\/([^/]+)(\/.*)?$/.exec(r.path);
    if (!m) throw new HttpError(404, ''); // actix: unknown route → 404 with an empty body
    const name = decodeURIComponent(m[1]!);
    const rest = m[2] ?? '';
    const key = `${r.method} ${rest}`;
    if (key === 'GET /exists') return { exists: collections.has(name) };
    if (key === 'PUT ') return createCollection(name, r.body, fault);
    const c = collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    switch (key) {
      case 'GET ':
        return collectionInfo(c);
      case 'DELETE ':
        collections.delete(name);
        return true;
      case 'PUT /index':
        return createIndex(c, r);
      case 'PUT /points':
        return upsert(c, r);
      case 'POST /points/delete':
        return deletePoints(c, r);
      case 'POST /points/query':
        return { points: query(c, r.body?.query?.nearest ?? r.body?.query, r.body ?? {}) };
      case 'POST /points/search':
        return query(c, r.body?.vector, r.body ?? {});
      case 'POST /points/scroll':
        return scroll(c, r.body ?? {});
      case 'POST /points/count':
        return { count: select(c, r.body?.filter).length };
      default:
        throw new HttpError(404, '');
    }
  }

  function createCollection(name: string, body: Json, fault: Fault | undefined): Json {
    checkVectorsConfig(body?.vectors);
    if (fault?.kind === 'race-create' && !collections.has(name)) {
      collections.set(name, { vectors: fault.vectors ?? body.vectors, points: new Map(), payloadSchema: {} });
    }
    if (collections.has(name))
      throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    collections.set(name, { vectors: body.vectors, points: new Map(), payloadSchema: {} });
    return true;
  }

  function collectionInfo(c: FakeCollection): Json {
    for (const [field, s] of Object.entries(c.payloadSchema)) {
      s.points = [...c.points.values()].filter((p) => p.payload[field] !== undefined).length;
    }
    return {
      status: 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: 0,
      points_count: c.points.size,
      segments_count: 1,
      config: {
        params: {
          vectors: c.vectors,
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
          on_disk_payload: true,
        },
        hnsw_config: {
          m: 16,
          ef_construct: 100,
          full_scan_threshold: 10000,
          max_indexing_threads: 0,
          on_disk: false,
        },
        optimizer_config: {
          deleted_threshold: 0.2,
          vacuum_min_vector_number: 1000,
          default_segment_number: 0,
          max_segment_size: null,
          memmap_threshold: null,
          indexing_threshold: 20000,
          flush_interval_sec: 5,
          max_optimization_threads: null,
        },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        quantization_config: null,
      },
      payload_schema: structuredClone(c.payloadSchema),
    };
  }

  function updateResult(r: RecordedRequest): Json {
    return { operation_id: ++opId, status: r.query.wait === 'true' ? 'completed' : 'acknowledged' };
  }

  function createIndex(c: FakeCollection, r: RecordedRequest): Json {
    const field = r.body?.field_name;
    const schema = r.body?.field_schema;
    if (typeof field !== 'string' || field.length === 0) throw formatError('missing field `field_name`');
    const type = typeof schema === 'string' ? schema : schema?.type;
    const types = ['keyword', 'integer', 'float', 'geo', 'text', 'bool', 'datetime', 'uuid'];
    if (!types.includes(type)) throw formatError(`unknown variant \`${String(type)}\` for field_schema`);
    c.payloadSchema[field] = {
      data_type: type,
      ...(typeof schema === 'object' ? { params: schema } : {}),
      points: 0,
    };
    return updateResult(r);
  }

  function upsert(c: FakeCollection, r: RecordedRequest): Json {
    const b = r.body ?? {};
    let pts: { id: Json; vector: Json; payload?: Json }[];
    if (Array.isArray(b.points)) pts = b.points;
    else if (b.batch && Array.isArray(b.batch.ids)) {
      pts = b.batch.ids.map((id: Json, i: number) => ({
        id,
        vector: b.batch.vectors?.[i],
        payload: b.batch.payloads?.[i],
      }));
    } else throw formatError('expected `points` or `batch`');
    // Validate everything first: Qdrant rejects the whole request on one bad point.
    const prepared = pts.map((p) => ({
      id: normId(p.id),
      vector: checkVector(c, p.vector),
      payload: p.payload ?? {},
    }));
    for (const p of prepared) {
      c.points.set(idKey(p.id), {
        id: p.id,
        vector: p.vector,
        payload: structuredClone(p.payload),
        version: opId + 1,
      });
    }
    return updateResult(r);
  }

  function deletePoints(c: FakeCollection, r: RecordedRequest): Json {
    const b = r.body ?? {};
    if (Array.isArray(b.points)) for (const id of b.points) c.points.delete(idKey(normId(id)));
    else if (b.filter && typeof b.filter === 'object')
      for (const p of select(c, b.filter)) c.points.delete(idKey(p.id));
    else throw formatError('expected `points` or `filter`');
    return updateResult(r);
  }

  function select(c: FakeCollection, filter: Json, forQuery = false): FakePoint[] {
    if (filter !== undefined && filter !== null) checkFilter(filter);
    const all = [...c.points.values()].sort(byId);
    // `ignoreFilters` breaks only queries: a broken search must not also wipe data on delete.
    if (filter === undefined || filter === null || (forQuery && api.ignoreFilters)) return all;
    return all.filter((p) => matchesFilter(filter, p));
  }

  function query(c: FakeCollection, vector: Json, b: Json): Json {
    if (!Array.isArray(vector))
      throw new HttpError(400, 'Bad request: the fake only implements nearest-vector queries');
    if (Array.isArray(c.vectors) || typeof c.vectors?.size !== 'number') {
      throw badInput('the fake only queries unnamed vectors');
    }
    const q = checkVector(c, vector);
    const distance = c.vectors.distance as string;
    const limit = b.limit ?? 10;
    const offset = b.offset ?? 0;
    const scored = select(c, b.filter, true).map((p) => ({ p, score: score(distance, q, p.vector) }));
    const higherBetter = distance === 'Cosine' || distance === 'Dot';
    scored.sort((a, z) => (higherBetter ? z.score - a.score : a.score - z.score) || byId(a.p, z.p));
    const threshold = b.score_threshold;
    return scored
      .filter(
        (s) =>
          threshold === undefined ||
          threshold === null ||
          (higherBetter ? s.score >= threshold : s.score <= threshold),
      )
      .slice(offset, offset + limit)
      .map(({ p, score: s }) => ({
        id: p.id,
        version: p.version,
        score: Math.fround(s),
        ...shape(p, b, false),
      }));
  }

  function scroll(c: FakeCollection, b: Json): Json {
    const limit = b.limit ?? 10;
    let pts = select(c, b.filter);
    if (b.offset !== undefined && b.offset !== null) {
      const from = normId(b.offset);
      pts = pts.filter((p) => byId(p, { id: from } as FakePoint) >= 0);
    }
    const page = pts.slice(0, limit);
    return {
      points: page.map((p) => ({ id: p.id, ...shape(p, b, true) })),
      next_page_offset: pts[limit]?.id ?? null,
    };
  }

  function shape(p: FakePoint, b: Json, payloadDefault: boolean): Json {
    const out: Json = {};
    const wp = b.with_payload ?? payloadDefault;
    if (wp === true) out.payload = structuredClone(p.payload);
    else if (Array.isArray(wp))
      out.payload = Object.fromEntries(wp.filter((k) => k in p.payload).map((k) => [k, p.payload[k]]));
    else out.payload = null;
    out.vector = b.with_vector === true ? [...p.vector] : null;
    return out;
  }

  const api: FakeQdrant = {
    url: '',
    requests,
    collections,
    ignoreFilters: false,
    writes: (collection) =>
      requests.filter(
        (r) =>
          r.write &&
          (collection === undefined || r.path.startsWith(`/collections/${encodeURIComponent(collection)}`)),
      ),
    failNext: (n, o = {}) =>
      void faults.push({
        kind: 'fail',
        left: n,
        status: o.status ?? 503,
        ...(o.match ? { match: o.match } : {}),
      }),
    holdNext: (n, o = {}) =>
      void faults.push({ kind: 'hold', left: n, ...(o.match ? { match: o.match } : {}) }),
    resetNext: (n, o = {}) =>
      void faults.push({ kind: 'reset', left: n, ...(o.match ? { match: o.match } : {}) }),
    raceCreate: (vectors, collection) =>
      void faults.push({ kind: 'race-create', left: 1, vectors, ...(collection ? { collection } : {}) }),
    echoHeadersNext: (n, status = 500, shape = 'plain') =>
      void faults.push({ kind: 'echo', left: n, status, shape }),
    redirectNext: (n, location, o = {}) =>
      void faults.push({
        kind: 'redirect',
        left: n,
        status: o.status ?? 307,
        location: typeof location === 'string' ? (r) => `${location}${r.path}` : location,
        ...(o.match ? { match: o.match } : {}),
      }),
    clearFaults: () => void faults.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // a port asked for by number may be taken
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

function isWrite(method: string, path: string): boolean {
  if (method === 'GET') return false;
  if (method === 'POST')
    return !/\/points(\/(search|query|scroll|count|recommend|discover)(\/.*)?)?$/.test(path);
  return true;
}

function checkVectorsConfig(v: Json): void {
  const one = (p: Json) => {
    if (!p || !Number.isInteger(p.size) || p.size < 1)
      throw formatError('vectors.size must be a positive integer');
    if (!DISTANCES.includes(p.distance))
      throw formatError(`unknown variant \`${String(p?.distance)}\` for distance`);
  };
  if (v && typeof v === 'object' && 'size' in v) one(v);
  else if (v && typeof v === 'object') Object.values(v).forEach(one);
  else throw formatError('missing field `vectors`');
}

function checkVector(c: FakeCollection, v: Json): number[] {
  if (typeof c.vectors?.size !== 'number') throw badInput('the fake only stores unnamed vectors');
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    throw formatError('vector must be an array of numbers');
  }
  if (v.length !== c.vectors.size) {
    throw badInput(`Vector dimension error: expected dim: ${c.vectors.size}, got ${v.length}`);
  }
  if (c.vectors.distance !== 'Cosine') return v.map(Math.fround);
  // Qdrant normalises cosine vectors when they are stored (and queries when they are scored).
  const norm = Math.hypot(...v);
  return v.map((x) => Math.fround(norm === 0 ? 0 : x / norm));
}

function score(distance: string, q: number[], v: number[]): number {
  let dot = 0;
  let l2 = 0;
  let l1 = 0;
  for (let i = 0; i < q.length; i++) {
    dot += q[i]! * v[i]!;
    l2 += (q[i]! - v[i]!) ** 2;
    l1 += Math.abs(q[i]! - v[i]!);
  }
  return distance === 'Euclid' ? Math.sqrt(l2) : distance === 'Manhattan' ? l1 : dot;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function normId(id: Json): Id {
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  if (typeof id === 'string' && UUID.test(id)) {
    const h = id.replace(/-/g, '').toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  throw formatError(
    `value ${JSON.stringify(id)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
}
const idKey = (id: Id) => (typeof id === 'number' ? `n:${id}` : `u:${id}`);
/** Qdrant orders integer ids before UUIDs. */
function byId(a: FakePoint, b: FakePoint): number {
  if (typeof a.id === 'number' && typeof b.id === 'number') return a.id - b.id;
  if (typeof a.id === 'number') return -1;
  if (typeof b.id === 'number') return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const FILTER_KEYS = new Set(['must', 'should', 'must_not', 'min_should']);

function checkFilter(f: Json): void {
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw formatError('filter must be an object');
  for (const k of Object.keys(f))
    if (!FILTER_KEYS.has(k)) throw formatError(`unknown field \`${k}\` in filter`);
  const conds = [...list(f.must), ...list(f.should), ...list(f.must_not), ...list(f.min_should?.conditions)];
  for (const c of conds) {
    if (!c || typeof c !== 'object') throw formatError('condition must be an object');
    if (Object.keys(c).some((k) => FILTER_KEYS.has(k))) checkFilter(c);
    else if (
      !('has_id' in c || 'is_empty' in c || 'is_null' in c || ('key' in c && ('match' in c || 'range' in c)))
    ) {
      throw formatError(`data did not match any variant of untagged enum Condition: ${JSON.stringify(c)}`);
    }
    if (
      'match' in c &&
      !('value' in c.match || 'any' in c.match || 'except' in c.match || 'text' in c.match)
    ) {
      throw formatError('data did not match any variant of untagged enum Match');
    }
  }
}

function list(x: Json): Json[] {
  if (x === undefined || x === null) return [];
  return Array.isArray(x) ? x : [x];
}

function matchesFilter(f: Json, p: FakePoint): boolean {
  const must = list(f.must);
  const should = list(f.should);
  const mustNot = list(f.must_not);
  if (!must.every((c) => matchesCondition(c, p))) return false;
  if (should.length > 0 && !should.some((c) => matchesCondition(c, p))) return false;
  if (mustNot.some((c) => matchesCondition(c, p))) return false;
  if (f.min_should) {
    const hits = list(f.min_should.conditions).filter((c) => matchesCondition(c, p)).length;
    if (hits < (f.min_should.min_count ?? 1)) return false;
  }
  return true;
}

function matchesCondition(c: Json, p: FakePoint): boolean {
  if (Object.keys(c).some((k) => FILTER_KEYS.has(k))) return matchesFilter(c, p);
  if ('has_id' in c) return list(c.has_id).some((id) => idKey(normId(id)) === idKey(p.id));
  if ('is_empty' in c) {
    const v = fieldValues(p.payload, c.is_empty.key);
    return v.length === 0;
  }
  if ('is_null' in c) {
    const raw = p.payload[c.is_null.key];
    return raw === null || (Array.isArray(raw) && raw.some((x) => x === null));
  }
  const values = fieldValues(p.payload, c.key);
  if (c.match) {
    const m = c.match;
    if ('value' in m) return values.some((v) => v === m.value);
    if ('any' in m) return values.some((v) => list(m.any).includes(v));
    if ('except' in m) return values.length > 0 && values.every((v) => !list(m.except).includes(v));
    if ('text' in m) return values.some((v) => typeof v === 'string' && v.includes(m.text));
  }
  if (c.range) {
    const r = c.range;
    return values.some(
      (v) =>
        typeof v === 'number' &&
        (r.gt === undefined || r.gt === null || v > r.gt) &&
        (r.gte === undefined || r.gte === null || v >= r.gte) &&
        (r.lt === undefined || r.lt === null || v < r.lt) &&
        (r.lte === undefined || r.lte === null || v <= r.lte),
    );
  }
  return false;
}

/** Values at a dotted payload path; arrays match element-wise, as in Qdrant. */
function fieldValues(payload: Record<string, unknown>, key: string): unknown[] {
  let cur: unknown[] = [payload];
  for (const part of String(key).split('.')) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (v && typeof v === 'object' && !Array.isArray(v) && part in (v as object)) {
        const x = (v as Record<string, unknown>)[part];
        if (Array.isArray(x)) next.push(...x);
        else next.push(x);
      }
    }
    cur = next;
  }
  return cur.filter((v) => v !== null && v !== undefined);
}

function echo(headers: IncomingMessage['headers'], shape: EchoShape): string {
  const json = JSON.stringify(headers);
  const key = String(headers['api-key'] ?? '');
  switch (shape) {
    case 'plain':
      return json;
    case 'upper':
      return json.toUpperCase();
    case 'split': {
      const half = key.length >> 1;
      return `key begins ${key.slice(0, half)} and ends\n${key.slice(half)}`;
    }
    case 'base64':
      return Buffer.from(json).toString('base64');
    case 'basic':
      return `Authorization was: Basic ${Buffer.from(`qdrant:${key}`).toString('base64')}`;
    case 'hex':
      return Buffer.from(json).toString('hex');
  }
}

export interface HeaderRecorder {
  url: string;
  /** Every request that reached it, with all its headers. */
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

/** A loopback server that records each request and answers like Qdrant would (200, empty result). */
export async function startHeaderRecorder(): Promise<HeaderRecorder> {
  const requests: HeaderRecorder['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: { exists: true }, status: 'ok', time: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
