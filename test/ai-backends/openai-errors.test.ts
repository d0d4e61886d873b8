import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createOpenAIBackend, type OpenAIBackendOptions } from '../../src/ai/backends/openai.js';
import type { ChatRequest } from '../../src/ai/backends/types.js';
import { isKorttyError, type KorttyError } from '../../src/errors.js';
import { createFakeOpenAI, type FakeReply } from '../helpers/fake-openai.js';
import { quietPort } from '../helpers/ports.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-backends-'));

const KEY = 'sk-proj-Zq81Lm77Xc04Pv99Tt52';
const ask: ChatRequest = { system: 's', messages: [{ role: 'user', content: 'u' }] };

// The first fetch in a process loads undici (~250 ms here); timeout tests measure the server, not
// that. They run serially so other tests on this event loop do not delay the in-process server.
test.before(async () => {
  const fake = await createFakeOpenAI({ reply: () => 'warm' });
  await createOpenAIBackend({ endpoint: fake.url, model: 'm' }).chat(ask);
  await fake.close();
});

async function failWith(
  reply: FakeReply | (() => FakeReply),
  opts: Partial<OpenAIBackendOptions> = {},
  req: Partial<ChatRequest> = {},
  fakeOpts: { apiKey?: string; delayMs?: number } = {},
): Promise<{ err: KorttyError; tokens: string[] }> {
  const fake = await createFakeOpenAI({
    reply: typeof reply === 'function' ? reply : () => reply,
    ...fakeOpts,
  });
  const tokens: string[] = [];
  try {
    const backend = createOpenAIBackend({ endpoint: fake.url, model: 'm', ...opts });
    await backend.chat({ ...ask, onToken: (t) => tokens.push(t), ...req });
  } catch (err) {
    return { err: err as KorttyError, tokens };
  } finally {
    await fake.close();
  }
  throw new Error('expected the chat to fail');
}

function assertNoKey(t: { false: (v: boolean, m?: string) => void }, text: string) {
  for (let i = 0; i + 6 <= KEY.length; i++)
    t.false(text.includes(KEY.slice(i, i + 6)), `leaks "${KEY.slice(i, i + 6)}": ${text}`);
}

test('HTTP 500: CHAT_BACKEND_FAILED with the status and a short excerpt of the body', async (t) => {
  const { err } = await failWith({
    status: 500,
    errorBody: { error: { message: 'CUDA out of memory', type: 'server_error' } },
  });
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.is(err.details.status, 500);
  t.regex(err.message, /HTTP 500.*CUDA out of memory/);
  t.regex(err.message, /openai\(http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions, m\)/);
});

test('HTTP 502 with a long HTML body: excerpt is one bounded line', async (t) => {
  const { err } = await failWith({
    status: 502,
    errorBody: `<html>\n<body>${'Bad gateway '.repeat(200)}</body></html>`,
  });
  t.is(err.details.status, 502);
  t.false(err.message.includes('\n'));
  t.true(err.message.length < 400, `${err.message.length}`);
});

test('HTTP 401 echoing the key: the key never appears in the error (message or details)', async (t) => {
  const { err } = await failWith(
    'never',
    { apiKeyEnv: 'KORTTY_TEST_KEY', env: { KORTTY_TEST_KEY: KEY } },
    {},
    { apiKey: 'sk-proj-the-right-one' },
  );
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.is(err.details.status, 401);
  t.regex(err.message, /HTTP 401.*Incorrect API key provided: \[redacted\]/);
  assertNoKey(t, err.message);
  assertNoKey(t, JSON.stringify(err.details));
  assertNoKey(t, err.stack ?? '');
});

test('a masked echo of the key (sk-…****…) is redacted too', async (t) => {
  const masked = `${KEY.slice(0, 10)}${'*'.repeat(10)}${KEY.slice(-4)}`;
  const { err } = await failWith(
    { status: 401, errorBody: { error: { message: `Incorrect API key provided: ${masked}.` } } },
    { apiKeyEnv: 'K', env: { K: KEY } },
  );
  assertNoKey(t, err.message);
});

test('the key variable named in the profile is unset: a clear error naming the variable, no request', async (t) => {
  const fake = await createFakeOpenAI({ reply: () => 'x' });
  try {
    const backend = createOpenAIBackend({
      endpoint: fake.url,
      model: 'm',
      apiKeyEnv: 'KORTTY_UNSET_VAR',
      env: {},
    });
    const err = await t.throwsAsync(backend.chat(ask));
    t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
    t.regex(err!.message, /KORTTY_UNSET_VAR is not set/);
    t.is(fake.requests.length, 0);
  } finally {
    await fake.close();
  }
});

test.serial('timeout: a server that never sends headers gives CHAT_TIMEOUT', async (t) => {
  const started = Date.now();
  const { err } = await failWith({ hang: true }, { timeoutMs: 300 });
  t.true(isKorttyError(err, 'CHAT_TIMEOUT'), err.message);
  t.is(err.details.phase, 'waiting for the response');
  t.true(Date.now() - started < 5000);
});

test.serial(
  'timeout: a stream that stalls mid-answer gives CHAT_TIMEOUT after the tokens it did send',
  async (t) => {
    const { err, tokens } = await failWith(
      { tokens: ['a', 'b', 'c', 'd'], stallAfterTokens: 2 },
      { timeoutMs: 1000 },
    );
    t.true(isKorttyError(err, 'CHAT_TIMEOUT'), err.message);
    t.is(err.details.phase, 'streaming');
    t.deepEqual(tokens, ['a', 'b']);
  },
);

test.serial('a slow but steady stream is not a timeout (the timer is per gap, not per answer)', async (t) => {
  const fake = await createFakeOpenAI({
    // 40 gaps of at least 50 ms: the answer takes at least 2 s in all, each gap a thirtieth of the
    // 1.5 s timeout, so a loaded machine has ample slack per gap.
    reply: () => ({ tokens: Array.from({ length: 40 }, (_, i) => `t${i} `) }),
    delayMs: 50,
  });
  try {
    const backend = createOpenAIBackend({ endpoint: fake.url, model: 'm', timeoutMs: 1500 });
    const started = Date.now();
    const res = await backend.chat(ask);
    t.is(res.text, Array.from({ length: 40 }, (_, i) => `t${i} `).join(''));
    t.true(Date.now() - started > 1500, 'the whole answer took longer than the timeout');
  } finally {
    await fake.close();
  }
});

test.serial('abort mid-stream: CHAT_CANCELLED, and no tokens after the abort', async (t) => {
  const ac = new AbortController();
  const got: string[] = [];
  const { err } = await failWith(
    { tokens: Array.from({ length: 50 }, (_, i) => `w${i} `) },
    {},
    {
      signal: ac.signal,
      onToken: (tok) => {
        got.push(tok);
        if (got.length === 3) ac.abort();
      },
    },
    { delayMs: 5 },
  );
  t.true(isKorttyError(err, 'CHAT_CANCELLED'), err.message);
  t.deepEqual(got, ['w0 ', 'w1 ', 'w2 ']);
});

test('abort before the request: CHAT_CANCELLED without contacting the server', async (t) => {
  const fake = await createFakeOpenAI({ reply: () => 'x' });
  try {
    const backend = createOpenAIBackend({ endpoint: fake.url, model: 'm' });
    const err = await t.throwsAsync(backend.chat({ ...ask, signal: AbortSignal.abort() }));
    t.true(isKorttyError(err, 'CHAT_CANCELLED'));
    t.is(fake.requests.length, 0);
  } finally {
    await fake.close();
  }
});

test('a stream that ends without finish_reason or [DONE] is an error, not a silent partial answer', async (t) => {
  const { err, tokens } = await failWith({ tokens: ['half', ' an'], truncate: true });
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.regex(err.message, /ended before the answer finished/);
  t.deepEqual(tokens, ['half', ' an']);
});

test('an error object inside the stream fails the chat with its message', async (t) => {
  const { err } = await failWith({ tokens: ['x'], streamError: 'context length exceeded' });
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.regex(err.message, /server error: context length exceeded/);
});

test('a redirect is refused (it could carry the key elsewhere)', async (t) => {
  const { err } = await failWith({ status: 307, errorBody: '' });
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.regex(err.message, /HTTP 307 redirect/);
});

test('connection refused: CHAT_BACKEND_FAILED naming the endpoint and the cause', async (t) => {
  const port = await quietPort();
  const backend = createOpenAIBackend({
    endpoint: `http://127.0.0.1:${port}/v1`,
    model: 'm',
    apiKeyEnv: 'K',
    env: { K: KEY },
  });
  const err = await t.throwsAsync(backend.chat(ask));
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.regex(err!.message, new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
  assertNoKey(t, err!.message);
});

test('an exception thrown by onToken reaches the caller unchanged', async (t) => {
  const boom = new Error('renderer crashed');
  const { err } = await failWith(
    { tokens: ['a', 'b', 'c'] },
    {},
    {
      onToken: () => {
        throw boom;
      },
    },
  );
  t.is(err as unknown, boom);
});

test('an exception thrown by onToken on a non-stream answer reaches the caller too', async (t) => {
  const boom = new Error('renderer crashed');
  const { err } = await failWith(
    { content: 'whole', forceJson: true },
    {},
    {
      onToken: () => {
        throw boom;
      },
    },
  );
  t.is(err as unknown, boom);
});

test('remote plain-http endpoint is refused before any request', (t) => {
  const err = t.throws(() => createOpenAIBackend({ endpoint: 'http://chat.example.com/v1', model: 'm' }));
  t.true(isKorttyError(err, 'ENDPOINT_REFUSED'));
});
