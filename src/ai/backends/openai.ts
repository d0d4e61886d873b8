// OpenAI-compatible chat adapter (Ollama, llama.cpp server, LM Studio, hosted APIs): POST
// /v1/chat/completions over global fetch, streamed as server-sent events.
import { createError, isKorttyError, type KorttyError } from '../../errors.js';
import { answerCharCap } from '../answer-bounds.js';
import { CompletionPayloadError, createCompletionAccumulator, parseCompletion } from './openai-chunks.js';
import { buildChatBody, resolveChatUrl } from './openai-request.js';
import { bodyExcerpt, displayUrl, redactSecret } from './redact.js';
import { createSseParser, type SseEvent, SseLimitError } from './sse.js';
import type { ChatBackend, ChatRequest, ChatResult } from './types.js';

export interface OpenAIBackendOptions {
  /** `http://127.0.0.1:11434/v1`, `https://api.example.com/v1`, or a full `…/chat/completions` URL. */
  endpoint: string;
  model: string;
  /** Name of the environment variable that holds the API key. The key itself is never configured. */
  apiKeyEnv?: string;
  /** Give up after this many ms without a byte from the server (connecting, headers, between chunks). */
  timeoutMs?: number;
  /** `false` for servers whose streaming is broken; the answer then arrives as one token. */
  stream?: boolean;
  /** The profile's explicit opt-in to plain http for a non-loopback host. */
  allowInsecureHttp?: boolean;
  /** Where `apiKeyEnv` is looked up; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Cap on a non-stream or error body we read into memory. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Answer tokens assumed when a request names none (for the answer's character cap). */
const DEFAULT_ANSWER_TOKENS = 4096;
/**
 * Bytes read from one event stream, keep-alive comments included: a server that streams forever
 * without saying anything is cut here (memory stays flat; this only bounds the time).
 */
const MAX_STREAM_BYTES = 64 * 1024 * 1024;

export function createOpenAIBackend(opts: OpenAIBackendOptions): ChatBackend {
  const url = resolveChatUrl(opts.endpoint, { allowInsecureHttp: opts.allowInsecureHttp });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const name = `openai(${displayUrl(url)}, ${opts.model})`;
  const env = opts.env ?? process.env;

  function apiKey(): string | undefined {
    if (!opts.apiKeyEnv) return undefined;
    const key = env[opts.apiKeyEnv];
    if (!key) {
      throw createError('CHAT_BACKEND_FAILED', {
        backend: name,
        reason: `the API key variable ${opts.apiKeyEnv} is not set`,
      });
    }
    return key;
  }

  async function chat(req: ChatRequest): Promise<ChatResult> {
    const key = apiKey();
    const fail = (reason: string, extra: Record<string, unknown> = {}): KorttyError =>
      createError('CHAT_BACKEND_FAILED', { backend: name, reason: redactSecret(reason, key), ...extra });
    if (req.signal?.aborted) throw createError('CHAT_CANCELLED', { backend: name });

    const ac = new AbortController();
    const onAbort = () => ac.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    let phase = 'waiting for the response';
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    // An idle timer, re-armed on every byte: a slow but steady stream is fine, a silent one is not.
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        ac.abort();
      }, timeoutMs);
    };
    let callbackError: { error: unknown } | undefined;
    const emit = (text: string) => {
      if (!text || !req.onToken) return;
      try {
        req.onToken(text);
      } catch (error) {
        callbackError = { error };
        ac.abort();
      }
    };

    // A throwing onToken is the caller's bug: it ends the request and reaches them unchanged.
    const rethrowCallback = (result: ChatResult): ChatResult => {
      if (callbackError) throw callbackError.error;
      return result;
    };

    const caps = {
      answerChars: answerCharCap(req.maxTokens ?? DEFAULT_ANSWER_TOKENS),
      streamBytes: MAX_STREAM_BYTES,
    };
    const stream = opts.stream ?? true;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream, application/json' : 'application/json',
    };
    if (key) headers.authorization = `Bearer ${key}`;

    try {
      arm();
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(buildChatBody(opts.model, req, stream)),
        signal: ac.signal,
        // A redirect could carry the key somewhere else (or downgrade to http): refuse it.
        redirect: 'manual',
      });
      phase = 'reading the response';
      arm();
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        throw fail(`HTTP ${res.status} redirect; configure the final URL instead`, { status: res.status });
      }
      if (!res.ok) {
        const text = await readText(res, 64 * 1024, arm);
        throw fail(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}: ${bodyExcerpt(text)}`, {
          status: res.status,
        });
      }
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        const text = await readText(res, MAX_BODY_BYTES, arm);
        if (text.length > MAX_BODY_BYTES) throw fail(`response larger than ${MAX_BODY_BYTES} bytes`);
        // An event stream sent without its content type (some proxies strip it).
        if (/^\s*(data|event|id|retry)?:/.test(text))
          return rethrowCallback(await decodeStream([text], emit, fail, caps));
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          throw fail(
            `expected JSON or an event stream, got ${type || 'no content type'}: ${bodyExcerpt(text)}`,
          );
        }
        const result = parseCompletion(json);
        if (result.text.length > caps.answerChars) throw fail(answerCapReason(caps.answerChars));
        emit(result.text);
        return rethrowCallback(result);
      }
      phase = 'streaming';
      if (!res.body) throw fail('response has no body');
      return rethrowCallback(
        await decodeStream(res.body, emit, fail, caps, arm, () => callbackError !== undefined),
      );
    } catch (err) {
      if (callbackError) throw callbackError.error;
      if (isKorttyError(err)) throw err;
      if (req.signal?.aborted) throw createError('CHAT_CANCELLED', { backend: name });
      if (timedOut) throw createError('CHAT_TIMEOUT', { backend: name, ms: timeoutMs, phase });
      if (err instanceof CompletionPayloadError) throw fail(`server error: ${bodyExcerpt(err.message)}`);
      throw fail(`${phase} ${displayUrl(url)}: ${describe(err)}`);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      // Releases the socket if we stopped reading early ([DONE], error, cancel).
      ac.abort();
    }
  }

  return { name, chat, close: async () => {} };
}

function answerCapReason(chars: number): string {
  return `the answer passed the ${chars}-character cap (the server ignored max_tokens?); stopped reading`;
}

/**
 * Feeds an event stream through the SSE parser and the chunk accumulator; stops at [DONE]. Every
 * cap (one event, the answer, the whole stream) ends it with an error naming the cap; returning
 * cancels the body and the caller aborts the request.
 */
async function decodeStream(
  body: AsyncIterable<Uint8Array | string> | Iterable<string>,
  emit: (text: string) => void,
  fail: (reason: string) => Error,
  caps: { answerChars: number; streamBytes: number },
  onData: () => void = () => {},
  stopped: () => boolean = () => false,
): Promise<ChatResult> {
  const acc = createCompletionAccumulator();
  const parser = createSseParser();
  let done = false;
  let answerChars = 0;
  let streamBytes = 0;
  const guard = (parse: () => SseEvent[]) => {
    try {
      return parse();
    } catch (err) {
      if (err instanceof SseLimitError) throw fail(`${err.message}; stopped reading`);
      throw err;
    }
  };
  const handle = (data: string) => {
    if (done) return;
    if (data.trim() === '[DONE]') {
      done = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw fail(`invalid JSON in the event stream: ${bodyExcerpt(data, 120)}`);
    }
    const text = acc.apply(json);
    answerChars += text.length;
    if (answerChars > caps.answerChars) throw fail(answerCapReason(caps.answerChars));
    emit(text);
  };
  for await (const chunk of body) {
    onData();
    streamBytes += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    if (streamBytes > caps.streamBytes)
      throw fail(`the event stream passed the ${caps.streamBytes}-byte cap; stopped reading`);
    for (const ev of guard(() => parser.push(chunk))) handle(ev.data);
    // Leaving the loop cancels the body, which releases the connection.
    if (done || stopped()) break;
  }
  if (!done && !stopped()) for (const ev of guard(() => parser.end())) handle(ev.data);
  if (!done && !acc.finished) throw fail('the event stream ended before the answer finished');
  return acc.result();
}

async function readText(res: Response, maxBytes: number, onData: () => void): Promise<string> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of res.body) {
    onData();
    bytes += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    if (bytes > maxBytes) break;
  }
  return text + decoder.decode();
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err.message;
}
