// A scripted OpenAI-compatible chat server on loopback, for driving the real HTTP backend (and
// `kortty-rag ask`) without a model server. It follows the wire format of POST /v1/chat/completions:
// `stream: true` → text/event-stream of `chat.completion.chunk` objects (role delta, content
// deltas, tool_calls deltas by index, finish_reason, `data: [DONE]`); otherwise one `chat.completion`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (to script malformed arguments). */
  arguments: unknown;
  id?: string;
}

export interface FakeReplySpec {
  content?: string;
  /** How `content` is cut into deltas; default: word by word, whitespace kept. */
  tokens?: string[];
  toolCalls?: FakeToolCall[];
  finishReason?: string;
  /** Reply with this HTTP status and `errorBody` instead of a completion. */
  status?: number;
  errorBody?: string | object;
  /** Send the headers and this many content deltas, then hold the connection silent. */
  stallAfterTokens?: number;
  /** Never answer at all (not even headers). */
  hang?: boolean;
  /** End the stream without finish_reason and without [DONE] (a server that died mid-answer). */
  truncate?: boolean;
  /** Answer with a non-stream chat.completion even when streaming was asked for. */
  forceJson?: boolean;
  /** Emit `data: {"error": …}` mid-stream after the content. */
  streamError?: string;
  /** Content type of a streamed reply (default `text/event-stream; charset=utf-8`; '' sends none). */
  contentType?: string;
  /**
   * A hostile stream, sent until the client hangs up (at most `hostileBytes`, default 1 GiB):
   * `endless`: valid content deltas forever (never a finish_reason); `no-blank-line`: `data:` lines
   * of one event whose blank line never comes; `huge-event`: one `data:` line of 100 MB.
   */
  hostile?: HostileMode;
  hostileBytes?: number;
}

export type HostileMode = 'endless' | 'no-blank-line' | 'huge-event';
export const HOSTILE_MODES: readonly HostileMode[] = ['endless', 'no-blank-line', 'huge-event'];

export type FakeReply = string | FakeReplySpec;

export interface ChatBody {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: unknown;
  [k: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatBody;
}

export interface FakeOpenAIOptions {
  reply?: (
    body: ChatBody,
    ctx: { index: number; headers: IncomingHttpHeaders },
  ) => FakeReply | Promise<FakeReply>;
  /** Require `Authorization: Bearer <apiKey>`; anything else gets a 401 that echoes the key it got. */
  apiKey?: string;
  /** `'events'`: one write per SSE event (default); a number: the byte stream cut into writes of that size. */
  split?: 'events' | number;
  /** Pause between writes so they reach the client as separate reads. Default 1 ms; 0 only yields. */
  delayMs?: number;
  /** Interleave `: keep-alive` comment lines and use CRLF line ends. */
  noisy?: boolean;
  port?: number;
  host?: string;
}

export interface FakeOpenAI {
  /** Base URL, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function createFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const script = opts.reply ?? ((body: ChatBody) => defaultReply(body));
  const server = createServer(async (req, res) => {
    res.socket?.setNoDelay(true);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: ChatBody = {};
    try {
      body = JSON.parse(raw) as ChatBody;
    } catch {
      return sendJson(res, 400, {
        error: { message: 'request body is not JSON', type: 'invalid_request_error' },
      });
    }
    const index = requests.length;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (req.method !== 'POST' || !/\/v1\/chat\/completions$/.test((req.url ?? '').split('?')[0]!)) {
      return sendJson(res, 404, {
        error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' },
      });
    }
    if (opts.apiKey !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${opts.apiKey}`) {
        const got = auth.replace(/^Bearer\s+/i, '');
        return sendJson(res, 401, {
          error: {
            message: `Incorrect API key provided: ${got}.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        });
      }
    }
    let spec: FakeReplySpec;
    try {
      const r = await script(body, { index, headers: req.headers });
      spec = typeof r === 'string' ? { content: r } : r;
    } catch (err) {
      return sendJson(res, 500, { error: { message: `script failed: ${(err as Error).message}` } });
    }
    if (spec.hang) return; // closeAllConnections() ends it
    if (spec.status && spec.status >= 300) {
      const eb = spec.errorBody ?? {
        error: { message: `scripted failure ${spec.status}`, type: 'server_error' },
      };
      res.writeHead(spec.status, {
        'content-type': typeof eb === 'string' ? 'text/plain' : 'application/json',
      });
      return res.end(typeof eb === 'string' ? eb : JSON.stringify(eb));
    }
    const model = body.model ?? 'fake-model';
    if (!body.stream || spec.forceJson) return sendJson(res, 200, completion(model, spec));
    await stream(res, model, spec, opts);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, status: number, obj: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

function wordTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

function argsText(a: unknown): string {
  return typeof a === 'string' ? a : JSON.stringify(a);
}

function completion(model: string, spec: FakeReplySpec): unknown {
  const toolCalls = (spec.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function',
    function: { name: c.name, arguments: argsText(c.arguments) },
  }));
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: spec.content ?? null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: spec.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
      },
    ],
  };
}

/** The SSE events (JSON payloads) of a streamed reply, in order. */
export function streamEvents(model: string, spec: FakeReplySpec): string[] {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const events = [chunk({ role: 'assistant', content: '' })];
  const tokens = spec.tokens ?? wordTokens(spec.content ?? '');
  for (const t of tokens) events.push(chunk({ content: t }));
  for (const [i, c] of (spec.toolCalls ?? []).entries()) {
    events.push(
      chunk({
        tool_calls: [
          { index: i, id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      }),
    );
    // Arguments arrive in small pieces, as real servers send them.
    const args = argsText(c.arguments);
    for (let p = 0; p < args.length; p += 7) {
      events.push(chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(p, p + 7) } }] }));
    }
  }
  if (spec.streamError)
    events.push(JSON.stringify({ error: { message: spec.streamError, type: 'server_error' } }));
  if (spec.truncate) return events;
  events.push(chunk({}, spec.finishReason ?? (spec.toolCalls?.length ? 'tool_calls' : 'stop')));
  events.push('[DONE]');
  return events;
}

async function stream(
  res: ServerResponse,
  model: string,
  spec: FakeReplySpec,
  opts: FakeOpenAIOptions,
): Promise<void> {
  let open = true;
  res.on('close', () => {
    open = false;
  });
  const type = spec.contentType ?? 'text/event-stream; charset=utf-8';
  res.writeHead(200, { ...(type ? { 'content-type': type } : {}), 'cache-control': 'no-cache' });
  res.flushHeaders();
  if (spec.hostile)
    return hostileStream(res, model, spec.hostile, spec.hostileBytes ?? 1024 ** 3, () => open);
  const eol = opts.noisy ? '\r\n' : '\n';
  const events = streamEvents(model, spec);
  if (spec.stallAfterTokens !== undefined) events.splice(1 + spec.stallAfterTokens);
  const frames = events.map(
    (e, i) => `${opts.noisy && i % 2 ? `: keep-alive${eol}` : ''}data: ${e}${eol}${eol}`,
  );
  const delay = opts.delayMs ?? 1;
  const writes: Buffer[] = [];
  if (typeof opts.split === 'number') {
    const all = Buffer.from(frames.join(''), 'utf8');
    for (let p = 0; p < all.length; p += opts.split) writes.push(all.subarray(p, p + opts.split));
  } else {
    for (const f of frames) writes.push(Buffer.from(f, 'utf8'));
  }
  for (const w of writes) {
    if (!open) return;
    res.write(w);
    // Even with no delay, yield so each write leaves as its own segment instead of coalescing.
    await (delay > 0 ? sleep(delay) : new Promise((r) => setImmediate(r)));
  }
  if (spec.stallAfterTokens !== undefined) return; // silent until the client gives up
  res.end();
}

/** Writes a hostile stream with backpressure (so this server never buffers it) until the client leaves. */
async function hostileStream(
  res: ServerResponse,
  model: string,
  mode: HostileMode,
  maxBytes: number,
  open: () => boolean,
): Promise<void> {
  const piece = (): string => {
    if (mode === 'endless') {
      const [, delta] = streamEvents(model, { tokens: [`${'lorem ipsum '.repeat(80)}`] });
      return `data: ${delta}\n\n`;
    }
    if (mode === 'no-blank-line') return `data: ${'y'.repeat(1000)}\n`;
    return 'x'.repeat(64 * 1024);
  };
  let sent = 0;
  const write = async (text: string) => {
    sent += text.length;
    if (res.write(text)) return;
    await new Promise<void>((r) => {
      const done = () => {
        res.off('drain', done).off('close', done);
        r();
      };
      res.on('drain', done).on('close', done);
    });
  };
  if (mode === 'huge-event') {
    await write('data: ');
    maxBytes = Math.min(maxBytes, 100 * 1024 * 1024);
  }
  while (open() && sent < maxBytes) await write(piece());
  if (open()) res.end(mode === 'huge-event' ? '\n\n' : '');
}

/** All text the model was given (system, user, assistant and tool messages), in order. */
export function requestText(body: ChatBody): string {
  return (body.messages ?? []).map((m) => m.content ?? '').join('\n');
}

export interface DefaultReplyOptions {
  /** `{marker}` is replaced by the first [Rn] marker in the request. */
  template?: string;
  /** Without a marker in the request. */
  noContext?: string;
  /** When the request offers search_knowledge and no tool result is present yet, call it first. */
  toolFirst?: boolean;
}

export const DEFAULT_TEMPLATE =
  'According to the retrieved context {marker}, this is what the selection is about.';
export const DEFAULT_NO_CONTEXT = 'No retrieved context was provided, so this answer cites nothing.';

/**
 * The default script: answer citing the first excerpt marker found in the prompt, which is what a
 * well-behaved model does with a `<retrieved_context>` block.
 */
export function defaultReply(body: ChatBody, o: DefaultReplyOptions = {}): FakeReply {
  const messages = body.messages ?? [];
  const offersTool = (body.tools ?? []).some((t) => t.function?.name === 'search_knowledge');
  if (o.toolFirst && offersTool && !messages.some((m) => m.role === 'tool')) {
    const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return { toolCalls: [{ name: 'search_knowledge', arguments: { query: user.slice(0, 200) } }] };
  }
  const marker = firstContextMarker(requestText(body));
  if (!marker) return o.noContext ?? DEFAULT_NO_CONTEXT;
  return (o.template ?? DEFAULT_TEMPLATE).split('{marker}').join(marker);
}

/**
 * The first [Rn] marker inside a `<retrieved_context>` block (a contract that merely mentions
 * "[R1]" as an example does not count).
 */
export function firstContextMarker(text: string): string | undefined {
  for (const m of text.matchAll(/<retrieved_context\b[^>]*>([\s\S]*?)(?:<\/retrieved_context>|$)/g)) {
    const marker = /\[R\d+\]/.exec(m[1] ?? '')?.[0];
    if (marker) return marker;
  }
  return undefined;
}
