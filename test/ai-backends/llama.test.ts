// The local chat path end to end on a generated tiny chat GGUF (seeded random weights: the text is
// gibberish, but loading, the chat template, sampling, streaming and function calling are real).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createChatBackend } from '../../src/ai/backends/create-backend.js';
import { createLlamaBackend, type LlamaBackendOptions } from '../../src/ai/backends/llama.js';
import { runWithTools } from '../../src/ai/backends/run-with-tools.js';
import {
  createSearchKnowledgeHandler,
  SEARCH_KNOWLEDGE,
  toolsFor,
} from '../../src/ai/backends/search-knowledge.js';
import type { ChatBackend, ChatRequest } from '../../src/ai/backends/types.js';
import { generateChatModel } from '../../src/embed/generate-model.js';
import { isKorttyError } from '../../src/errors.js';
import { steerTowards } from './steer.js';

const home = mkdtempSync(join(tmpdir(), 'kortty-llama-chat-'));
process.env.KORTTY_HOME = home;
let modelPath = '';
const backends: ChatBackend[] = [];
/** One loaded model for the tests that need no steering (loading costs more than a short turn). */
let shared: ChatBackend;

function backend(opts: Partial<LlamaBackendOptions> = {}): ChatBackend {
  const b = createLlamaBackend({ modelPath, contextSize: 1024, threads: 1, ...opts });
  backends.push(b);
  return b;
}

test.before(async () => {
  modelPath = (await generateChatModel(join(home, 'models', 'tiny-chat.gguf'))).path;
  shared = backend();
});

test.after.always(async () => {
  await Promise.all(backends.map((b) => b.close()));
});

const ask: ChatRequest = {
  system: 'You answer from the knowledge stores and cite [R1].',
  messages: [{ role: 'user', content: 'Why does the lock go stale?' }],
  maxTokens: 12,
  temperature: 0,
};

// The function-call syntax of node-llama-cpp's ChatML wrapper, then the query inside the arguments.
const CALL = ['||call: search_knowledge(', '"query":"stale lockfile"'];

test.serial(
  'local: tokens stream in order, the turn finishes at maxTokens, and greedy output repeats',
  async (t) => {
    const b = shared;
    t.is(b.name, 'llama(tiny-chat.gguf)');
    const chunks: string[] = [];
    const first = await b.chat({ ...ask, onToken: (x) => chunks.push(x) });
    t.true(chunks.length > 1, `streamed in ${chunks.length} chunk(s)`);
    t.is(chunks.join(''), first.text);
    t.true(first.text.length > 0);
    t.is(first.finishReason, 'length');
    t.deepEqual(first.toolCalls, []);
    const again = await b.chat(ask);
    t.is(again.text, first.text);
  },
);

test.serial('local: earlier turns change the answer (history reaches the model)', async (t) => {
  const b = shared;
  const plain = await b.chat(ask);
  const withHistory = await b.chat({
    ...ask,
    messages: [
      { role: 'user', content: 'Earlier question about tmux popups.' },
      { role: 'assistant', content: 'An earlier answer [R2].' },
      ...ask.messages,
    ],
  });
  t.not(withHistory.text, plain.text);
});

test.serial(
  "local 'tool' mode: node-llama-cpp function calling runs search_knowledge and continues",
  async (t) => {
    const b = backend({ tuning: steerTowards(CALL) });
    const queries: string[] = [];
    const streamed: string[] = [];
    const res = await runWithTools(
      b,
      { ...ask, maxTokens: 60, tools: toolsFor('tool'), onToken: (x) => streamed.push(x) },
      {
        [SEARCH_KNOWLEDGE]: createSearchKnowledgeHandler(async (q) => {
          queries.push(q);
          return '<retrieved_context>\n[R1] notes/locks.md:3\nstale locks\n</retrieved_context>';
        }),
      },
      { maxRounds: 2 },
    );
    t.deepEqual(queries, ['stale lockfile']);
    t.deepEqual(res.toolRuns, [
      {
        name: SEARCH_KNOWLEDGE,
        arguments: { query: 'stale lockfile' },
        result: '<retrieved_context>\n[R1] notes/locks.md:3\nstale locks\n</retrieved_context>',
      },
    ]);
    t.is(res.rounds, 2);
    t.true(res.text.length > 0, 'the model kept answering after the result');
    t.is(streamed.join(''), res.text);
    t.false(res.text.includes('||call'), 'the call syntax is not part of the answer');
  },
);

test.serial('local: a model that keeps calling the tool is stopped with CHAT_TOOL_LIMIT', async (t) => {
  const b = backend({ tuning: steerTowards(CALL, 6) });
  let calls = 0;
  const err = await t.throwsAsync(
    runWithTools(
      b,
      { ...ask, maxTokens: 400, tools: toolsFor('tool') },
      {
        [SEARCH_KNOWLEDGE]: async () => {
          calls++;
          return '<retrieved_context>\n[R1] a.md:1\nx\n</retrieved_context>';
        },
      },
      { maxRounds: 1 },
    ),
  );
  t.true(isKorttyError(err, 'CHAT_TOOL_LIMIT'), err?.message);
  t.is(calls, 1, 'calls past the limit never reach the handler');
});

test.serial('local: a failing search handler fails the run with its own error', async (t) => {
  const b = backend({ tuning: steerTowards(CALL) });
  const boom = new Error('index damaged');
  const err = await t.throwsAsync(
    runWithTools(
      b,
      { ...ask, maxTokens: 60, tools: toolsFor('tool') },
      {
        [SEARCH_KNOWLEDGE]: async () => {
          throw boom;
        },
      },
      { maxRounds: 2 },
    ),
  );
  t.is(err, boom);
});

test.serial('local: abort mid-answer gives CHAT_CANCELLED and the backend stays usable', async (t) => {
  const b = shared;
  const ac = new AbortController();
  const chunks: string[] = [];
  const err = await t.throwsAsync(
    b.chat({
      ...ask,
      maxTokens: 200,
      signal: ac.signal,
      onToken: (x) => {
        chunks.push(x);
        if (chunks.length === 2) ac.abort();
      },
    }),
  );
  t.true(isKorttyError(err, 'CHAT_CANCELLED'), err?.message);
  t.true(chunks.length < 10);
  const after = await b.chat(ask);
  t.is(after.finishReason, 'length');
});

test.serial(
  'local: a prompt that does not fit the context is refused instead of silently shifted',
  async (t) => {
    const b = backend({ contextSize: 256 });
    const err = await t.throwsAsync(
      b.chat({ ...ask, messages: [{ role: 'user', content: 'stale lock '.repeat(200) }], maxTokens: 16 }),
    );
    t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
    t.regex(err!.message, /exceeds the 256-token context/);
  },
);

test.serial('local: tools without handlers, a missing model file, use after close', async (t) => {
  const b = shared;
  const withTools = await t.throwsAsync(b.chat({ ...ask, tools: toolsFor('tool') }));
  t.true(isKorttyError(withTools, 'INVALID_ARGUMENT'));

  const missing = createLlamaBackend({ modelPath: join(home, 'nope.gguf') });
  const loadErr = await t.throwsAsync(missing.chat(ask));
  t.true(isKorttyError(loadErr, 'CHAT_BACKEND_FAILED'));
  t.regex(loadErr!.message, /cannot load .*nope\.gguf/);
  await missing.close();

  const viaFactory = await createChatBackend({ kind: 'llama', modelPath, contextSize: 512, threads: 1 });
  const res = await viaFactory.chat({ ...ask, maxTokens: 4 });
  t.is(res.finishReason, 'length');
  await viaFactory.close();
  await viaFactory.close(); // idempotent
  const closed = await t.throwsAsync(viaFactory.chat(ask));
  t.true(isKorttyError(closed, 'CHAT_BACKEND_FAILED'));
  t.regex(closed!.message, /closed/);
});
