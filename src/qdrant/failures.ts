import { createError, type ErrorDetails, isKorttyError, type KorttyError } from '../errors.js';
import { redactSecrets } from '../util/redact-secret.js';

// Turning whatever the Qdrant client throws into a KorttyError that is safe to show, log and
// persist, and deciding what is worth a retry. Pure.
//
// The client's errors carry response bodies, response headers and URLs, and a server or proxy
// may echo request headers (the `api-key`) into a body. So nothing of the original error is kept
// as `cause`: only a status, a known error code, or the server's short message with every secret
// removed survive.

export interface FailureInfo {
  /** HTTP status when the server answered. */
  status?: number;
  /** Safe one-line explanation. */
  reason: string;
  transient: boolean;
  /** Qdrant said the collection does not exist (404 with its JSON error envelope). */
  collectionMissing: boolean;
  /** Server-requested wait before a retry (429 Retry-After). */
  retryAfterMs?: number;
}

const MAX_RETRY_AFTER_MS = 10_000;

const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

export function classifyFailure(err: unknown, secrets: readonly string[], timeoutMs: number): FailureInfo {
  const e = err as { name?: unknown; status?: unknown; data?: unknown; code?: unknown; cause?: unknown };
  if (e && typeof e === 'object' && typeof e.status === 'number' && 'data' in e) {
    const status = e.status;
    const serverMsg = serverMessage(e.data);
    // Only Qdrant's own answer counts; a bare 404 may be a proxy or a wrong path prefix.
    const collectionMissing =
      status === 404 && serverMsg !== undefined && /^Not found: Collection\b/i.test(serverMsg);
    let reason: string;
    if (status >= 300 && status < 400) {
      // Not followed (connection.ts): the key and the documents go to the configured endpoint only.
      const to = redirectOrigin(e, secrets);
      reason = `HTTP ${status}: the server redirected the request${to ? ` to ${to}` : ''}; redirects are refused, so the API key and the documents are only ever sent to the configured endpoint`;
    } else if (status === 401 || status === 403) {
      // Never echo an auth failure body: it is where proxies repeat the credentials they saw.
      reason = `HTTP ${status}: the server refused the credentials; check the API key for this store`;
    } else {
      reason = `HTTP ${status}${serverMsg ? `: ${scrub(serverMsg, secrets)}` : ''}`;
    }
    return { status, reason, transient: TRANSIENT_STATUS.has(status), collectionMissing };
  }
  if (e && typeof e === 'object' && e.name === 'QdrantClientResourceExhaustedError') {
    // 429 with Retry-After (the client turns it into this error and drops the status).
    const after = Number((e as { retry_after?: unknown }).retry_after);
    const wait = Number.isFinite(after) && after > 0 ? after * 1000 : undefined;
    return {
      status: 429,
      reason: `rate limited by the server${wait ? `; retry after ${after} s` : ''}`,
      // A long Retry-After is not worth blocking a job for; report it instead.
      transient: wait === undefined || wait <= MAX_RETRY_AFTER_MS,
      collectionMissing: false,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    };
  }
  if (e && typeof e === 'object' && e.name === 'QdrantClientTimeoutError') {
    return { reason: `no response within ${timeoutMs} ms`, transient: true, collectionMissing: false };
  }
  if (e && typeof e === 'object' && e.name === 'QdrantClientUnexpectedResponseError') {
    // Its message embeds the raw body; the status line is all we keep.
    const m = /Unexpected Response: (\d{3})/.exec(String((e as Error).message));
    return {
      reason: `unexpected response${m ? ` (HTTP ${m[1]})` : ''}`,
      transient: false,
      collectionMissing: false,
    };
  }
  const code = networkCode(err);
  if (code) {
    return {
      reason: `network error (${code})`,
      transient: TRANSIENT_CODES.has(code),
      collectionMissing: false,
    };
  }
  const name = e && typeof e === 'object' && typeof e.name === 'string' ? e.name : 'error';
  const msg = e && typeof e === 'object' && 'message' in e ? String((e as Error).message) : String(err);
  return { reason: `${name}: ${scrub(msg, secrets)}`, transient: false, collectionMissing: false };
}

/** Details a caller adds to a QDRANT_FAILED (which source, which batch…). */
export type QdrantFailureExtra = Omit<Partial<ErrorDetails['QDRANT_FAILED']>, 'op' | 'reason'>;

/** QDRANT_FAILED with only safe details; the original error is deliberately not attached. */
export function qdrantFailure(op: string, info: FailureInfo, extra: QdrantFailureExtra = {}): KorttyError {
  return createError('QDRANT_FAILED', {
    op,
    reason: info.reason,
    ...(info.status !== undefined ? { status: info.status } : {}),
    ...extra,
  });
}

export interface RetryOptions {
  retries: number;
  baseMs: number;
  secrets: readonly string[];
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * Runs `fn`, retrying transient failures with exponential backoff (base·2^n, jittered, capped at
 * 5 s). Every operation passed here is idempotent (deterministic point ids, deletes by filter,
 * create-or-validate), so repeating one whose reply was lost is safe.
 */
export async function withRetry<T>(op: string, fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted) throw createError('JOB_CANCELLED');
    try {
      return await fn();
    } catch (err) {
      if (isKorttyError(err)) throw err;
      const info = classifyFailure(err, opts.secrets, opts.timeoutMs);
      if (!info.transient || attempt >= opts.retries) {
        throw qdrantFailure(op, info, { attempts: attempt + 1 });
      }
      const backoff = Math.min(5000, opts.baseMs * 2 ** attempt);
      await sleep(Math.max(info.retryAfterMs ?? 0, backoff / 2 + Math.random() * (backoff / 2)));
    }
  }
}

/** Removes every secret, in any shape (src/util/redact-secret.ts), and anything that looks like an `api-key:` header, from server text. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = redactSecrets(text, secrets);
  out = out.replace(
    /(api[-_]?key|authorization)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"',}]+/gi,
    '$1$2[redacted]',
  );
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

function serverMessage(data: unknown): string | undefined {
  if (typeof data === 'string') return data.length > 0 ? data : undefined;
  const status = (data as { status?: unknown } | null)?.status;
  if (status && typeof status === 'object' && typeof (status as { error?: unknown }).error === 'string') {
    return (status as { error: string }).error;
  }
  return undefined;
}

function networkCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The origin a refused redirect pointed at (never its path or query: a key may ride there). */
function redirectOrigin(err: unknown, secrets: readonly string[]): string | undefined {
  const headers = (err as { headers?: unknown }).headers;
  const location = headers instanceof Headers ? headers.get('location') : null;
  if (!location) return undefined;
  try {
    const u = new URL(location, (err as { url?: unknown }).url as string | undefined);
    return scrub(`${u.protocol}//${u.host}`, secrets);
  } catch {
    return undefined;
  }
}
