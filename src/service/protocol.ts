// The query service's wire protocol. Pure: no sockets, no files.
//
// Newline-delimited JSON over a Unix stream socket, one JSON object per line, UTF-8.
//
//   client → service   {"v":1,"id":"a1","op":"search","build":"…","args":{"query":"…","stores":["Notes"]}}
//   service → client   {"v":1,"id":"a1","type":"accepted","server":{"pid":123,"build":"…"}}
//                      {"v":1,"id":"a1","type":"working"}          (every HEARTBEAT_MS while it works)
//                      {"v":1,"id":"a1","type":"result","result":{…}}
//                   or {"v":1,"id":"a1","type":"error","error":{"code":"…","message":"…","final":true}}
//
// A connection may carry several requests; they are answered in order. Requests are validated
// strictly (unknown fields are refused, so a newer client talking to an older service falls back
// instead of being half-understood); a line longer than MAX_REQUEST_BYTES is refused without being
// buffered. `final` errors are the answer (the same error the command would raise in-process, e.g.
// an unknown store); other errors mean "do it in-process". Responses are checked for the fields
// the client reads; extra fields pass through.

import type { SearchMode, StoreFailure } from '../retrieve/search.js';
import { EXPLAIN_SHARES } from '../types.js';

export const PROTOCOL_VERSION = 1;
/** Longest request line (a query can be a whole terminal selection). */
export const MAX_REQUEST_BYTES = 1 << 20;
/** Longest response line the client accepts (a block is ~16 KB; candidates add a few MB at most). */
export const MAX_RESPONSE_BYTES = 32 << 20;
/** How often a busy service tells a waiting client it is alive. */
export const HEARTBEAT_MS = 200;

const MAX_QUERY_CHARS = 512 * 1024;
const MAX_STORES = 256;
const MAX_CANDIDATES = 1000;
const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const MODES: readonly SearchMode[] = ['hybrid', 'vector', 'lexical'];

export interface SearchArgs {
  query: string;
  /** Store names or ids; absent = every store. */
  stores?: string[];
  mode?: SearchMode;
  contextWindow?: number;
  firstMarker?: number;
  /** How many fused candidates (beyond the bounded excerpts) to return; default 0. */
  candidates?: number;
  /** false: search the raw text, not the shaped query. Sent only when false, so a request with
   * shaping on is one an older service understands. */
  shape?: boolean;
}

export type Request =
  | { v: 1; id: string; op: 'search'; build?: string; args: SearchArgs }
  | { v: 1; id: string; op: 'status'; build?: string }
  | { v: 1; id: string; op: 'stop'; build?: string };

export interface ServerInfo {
  pid: number;
  build: string;
}

export interface WireError {
  code: string;
  message: string;
  /** True: this is the answer (the in-process command would fail the same way). */
  final: boolean;
}

export type Frame =
  | { v: 1; id: string; type: 'accepted'; server: ServerInfo }
  | { v: 1; id: string; type: 'working' }
  | { v: 1; id: string; type: 'result'; result: unknown }
  | { v: 1; id: string | null; type: 'error'; error: WireError };

/** Protocol-level failures (not errors of the work itself). */
export const PROTOCOL_ERRORS = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',
  TOO_LARGE: 'TOO_LARGE',
  OUTDATED: 'OUTDATED',
  BUSY: 'BUSY',
  INTERNAL: 'INTERNAL',
} as const;

export type Parsed<T> =
  | { ok: true; value: T }
  | { ok: false; id: string | null; code: string; reason: string };

export function encodeFrame(frame: Frame | Request): string {
  return `${JSON.stringify(frame)}\n`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

function onlyKeys(o: Obj, allowed: readonly string[], where: string): string | undefined {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  return extra.length
    ? `${where}: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`
    : undefined;
}

/** Validates one request line (without its newline). */
export function parseRequest(line: string): Parsed<Request> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return bad(null, 'BAD_REQUEST', 'not a JSON object');
  }
  if (!isObj(raw)) return bad(null, 'BAD_REQUEST', 'not a JSON object');
  const id = typeof raw.id === 'string' && ID.test(raw.id) ? raw.id : null;
  if (raw.v !== PROTOCOL_VERSION) {
    return bad(
      id,
      'UNSUPPORTED_VERSION',
      `version ${JSON.stringify(raw.v)}; this service speaks ${PROTOCOL_VERSION}`,
    );
  }
  if (id === null) return bad(null, 'BAD_REQUEST', 'id must be 1-64 characters of A-Z a-z 0-9 _ . -');
  if (raw.build !== undefined && (typeof raw.build !== 'string' || raw.build.length > 64)) {
    return bad(id, 'BAD_REQUEST', 'build must be a short string');
  }
  const common = ['v', 'id', 'op', 'build'];
  switch (raw.op) {
    case 'status':
    case 'stop': {
      const extra = onlyKeys(raw, common, 'request');
      if (extra) return bad(id, 'BAD_REQUEST', extra);
      return {
        ok: true,
        value: { v: 1, id, op: raw.op, ...(raw.build ? { build: raw.build as string } : {}) },
      };
    }
    case 'search': {
      const extra = onlyKeys(raw, [...common, 'args'], 'request');
      if (extra) return bad(id, 'BAD_REQUEST', extra);
      const args = parseSearchArgs(raw.args);
      if (typeof args === 'string') return bad(id, 'BAD_REQUEST', args);
      return {
        ok: true,
        value: { v: 1, id, op: 'search', ...(raw.build ? { build: raw.build as string } : {}), args },
      };
    }
    default:
      return bad(id, 'BAD_REQUEST', `unknown op ${JSON.stringify(raw.op)}`);
  }
}

function parseSearchArgs(a: unknown): SearchArgs | string {
  if (!isObj(a)) return 'args must be an object';
  const extra = onlyKeys(
    a,
    ['query', 'stores', 'mode', 'contextWindow', 'firstMarker', 'candidates', 'shape'],
    'args',
  );
  if (extra) return extra;
  if (typeof a.query !== 'string' || a.query.trim() === '') return 'args.query must be a non-empty string';
  if (a.query.length > MAX_QUERY_CHARS) return `args.query is longer than ${MAX_QUERY_CHARS} characters`;
  const out: SearchArgs = { query: a.query };
  if (a.stores !== undefined) {
    if (
      !Array.isArray(a.stores) ||
      a.stores.length > MAX_STORES ||
      !a.stores.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 256)
    ) {
      return `args.stores must be a list of at most ${MAX_STORES} store names`;
    }
    out.stores = a.stores as string[];
  }
  if (a.mode !== undefined) {
    if (!MODES.includes(a.mode as SearchMode)) return `args.mode must be one of ${MODES.join(', ')}`;
    out.mode = a.mode as SearchMode;
  }
  if (a.contextWindow !== undefined) {
    if (!isInt(a.contextWindow, 1, 2 ** 31)) return 'args.contextWindow must be a positive integer';
    out.contextWindow = a.contextWindow;
  }
  if (a.firstMarker !== undefined) {
    if (!isInt(a.firstMarker, 1, 100_000)) return 'args.firstMarker must be a positive integer';
    out.firstMarker = a.firstMarker;
  }
  if (a.shape !== undefined) {
    if (typeof a.shape !== 'boolean') return 'args.shape must be true or false';
    out.shape = a.shape;
  }
  if (a.candidates !== undefined) {
    if (!isInt(a.candidates, 0, MAX_CANDIDATES))
      return `args.candidates must be an integer 0..${MAX_CANDIDATES}`;
    out.candidates = a.candidates;
  }
  if (a.shape !== undefined) {
    if (typeof a.shape !== 'boolean') return 'args.shape must be true or false';
    out.shape = a.shape;
  }
  return out;
}

/** Validates one response line; the result payload is checked by the op's own validator. */
export function parseFrame(line: string): Parsed<Frame> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return bad(null, 'BAD_REQUEST', 'response is not JSON');
  }
  if (!isObj(raw) || raw.v !== PROTOCOL_VERSION) return bad(null, 'UNSUPPORTED_VERSION', 'response version');
  const id = typeof raw.id === 'string' ? raw.id : null;
  switch (raw.type) {
    case 'accepted': {
      const s = raw.server;
      if (id === null || !isObj(s) || !isInt(s.pid, 1, 2 ** 31) || typeof s.build !== 'string') break;
      return { ok: true, value: { v: 1, id, type: 'accepted', server: { pid: s.pid, build: s.build } } };
    }
    case 'working':
      if (id === null) break;
      return { ok: true, value: { v: 1, id, type: 'working' } };
    case 'result':
      if (id === null || !('result' in raw)) break;
      return { ok: true, value: { v: 1, id, type: 'result', result: raw.result } };
    case 'error': {
      const e = raw.error;
      if (!isObj(e) || typeof e.code !== 'string' || typeof e.message !== 'string') break;
      return {
        ok: true,
        value: {
          v: 1,
          id,
          type: 'error',
          error: { code: e.code, message: e.message.slice(0, 4096), final: e.final === true },
        },
      };
    }
  }
  return bad(id, 'BAD_REQUEST', 'malformed response frame');
}

function bad(
  id: string | null,
  code: string,
  reason: string,
): { ok: false; id: string | null; code: string; reason: string } {
  return { ok: false, id, code, reason };
}

// --- results ------------------------------------------------------------------------------

export interface SearchResultWire {
  /** The query retrieval used (search.ts's shapedQuery); an answer without it is from an older
   * service, and the client searches in-process instead. */
  shapedQuery: string;
  block: string;
  excerpts: Obj[];
  candidates?: Obj[];
  timings: { embedMs: number; searchMs: number; assembleMs: number };
  /** The service's store generation this answer was computed on (bumps on every store change). */
  generation: number;
  /** Stores this search had to leave out, with reason and fix (absent from an older service). */
  failedStores?: StoreFailure[];
  /** One line per store left out: damaged store.json files, then the failed stores. */
  warnings?: string[];
}

const FAILURE_STRINGS = ['storeId', 'storeName', 'kind', 'reason', 'fix'] as const;

const CANDIDATE_STRINGS = [
  'key',
  'storeId',
  'storeName',
  'sourceId',
  'path',
  'text',
  'chunkId',
  'contentSha256',
];
const CANDIDATE_NUMBERS = ['tokens', 'fusedScore'];
const CANDIDATE_OPTIONAL = [
  'lineStart',
  'lineEnd',
  'pageStart',
  'pageEnd',
  'vectorRank',
  'lexicalRank',
  'vectorScore',
  'lexicalScore',
];

/** A lexical hit's explanation (matched terms, each signal's share of its score). */
function explainProblem(x: unknown): string | undefined {
  if (x === undefined) return undefined;
  if (!isObj(x) || !Array.isArray(x.matched) || !x.matched.every((m) => typeof m === 'string'))
    return 'explain.matched is not a list of terms';
  const s = x.shares;
  if (!isObj(s) || !EXPLAIN_SHARES.every((k) => typeof s[k] === 'number'))
    return 'explain.shares is not six numbers';
  return undefined;
}

function candidateProblem(c: unknown, excerpt: boolean): string | undefined {
  if (!isObj(c)) return 'not an object';
  const ex = explainProblem(c.explain);
  if (ex) return ex;
  for (const k of CANDIDATE_STRINGS) if (typeof c[k] !== 'string') return `${k} is not a string`;
  for (const k of CANDIDATE_NUMBERS) if (typeof c[k] !== 'number') return `${k} is not a number`;
  for (const k of CANDIDATE_OPTIONAL)
    if (c[k] !== undefined && typeof c[k] !== 'number') return `${k} is not a number`;
  if (excerpt) {
    if (typeof c.marker !== 'string' || !/^R\d+$/.test(c.marker)) return 'marker is not R<n>';
    if (typeof c.rank !== 'number' || typeof c.originalTokens !== 'number') return 'rank is not a number';
    if (typeof c.trimmed !== 'boolean') return 'trimmed is not a boolean';
  }
  return undefined;
}

/** Checks a search result from the wire; returns it typed, or why it is unusable. */
export function checkSearchResult(r: unknown): SearchResultWire | string {
  if (!isObj(r)) return 'result is not an object';
  if (typeof r.shapedQuery !== 'string') return 'result.shapedQuery is not a string';
  if (typeof r.block !== 'string') return 'result.block is not a string';
  if (!Array.isArray(r.excerpts) || r.excerpts.length > 1000) return 'result.excerpts is not a list';
  for (const [i, e] of r.excerpts.entries()) {
    const p = candidateProblem(e, true);
    if (p) return `result.excerpts[${i}]: ${p}`;
  }
  if (r.candidates !== undefined) {
    if (!Array.isArray(r.candidates) || r.candidates.length > MAX_CANDIDATES) return 'result.candidates';
    for (const [i, c] of r.candidates.entries()) {
      const p = candidateProblem(c, false);
      if (p) return `result.candidates[${i}]: ${p}`;
    }
  }
  const t = r.timings;
  if (!isObj(t) || !['embedMs', 'searchMs', 'assembleMs'].every((k) => typeof t[k] === 'number')) {
    return 'result.timings';
  }
  if (!isInt(r.generation, 0, Number.MAX_SAFE_INTEGER)) return 'result.generation';
  if (
    r.failedStores !== undefined &&
    (!Array.isArray(r.failedStores) ||
      r.failedStores.length > MAX_STORES ||
      !r.failedStores.every((f) => isObj(f) && FAILURE_STRINGS.every((k) => typeof f[k] === 'string')))
  )
    return 'result.failedStores';
  if (
    r.warnings !== undefined &&
    (!Array.isArray(r.warnings) ||
      r.warnings.length > 1000 ||
      !r.warnings.every((w) => typeof w === 'string'))
  )
    return 'result.warnings';
  return r as unknown as SearchResultWire;
}

/**
 * Which side is out of date when builds differ. Builds are the modification times of the
 * installed protocol module (a rebuild rewrites every file), so the newer install wins: an older
 * service retires, an older client works in-process.
 */
export function buildVerdict(
  client: string | undefined,
  server: string,
): 'same' | 'service-older' | 'client-older' {
  if (client === undefined || client === server) return 'same';
  return Number(client) > Number(server) ? 'service-older' : 'client-older';
}
