import test from 'ava';
import {
  CompletionPayloadError,
  createCompletionAccumulator,
  parseCompletion,
} from '../../src/ai/backends/openai-chunks.js';

const chunk = (delta: object, finish: string | null = null) => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

test('chunks: content deltas accumulate and each apply returns its piece', (t) => {
  const acc = createCompletionAccumulator();
  t.is(acc.apply(chunk({ role: 'assistant', content: '' })), '');
  t.is(acc.apply(chunk({ content: 'Hello' })), 'Hello');
  t.is(acc.apply(chunk({ content: ', world' })), ', world');
  t.false(acc.finished);
  acc.apply(chunk({}, 'stop'));
  t.true(acc.finished);
  t.deepEqual(acc.result(), { text: 'Hello, world', toolCalls: [], finishReason: 'stop' });
});

test('chunks: parallel tool calls are accumulated by index, interleaved pieces included', (t) => {
  const acc = createCompletionAccumulator();
  acc.apply(
    chunk({
      tool_calls: [
        { index: 0, id: 'a', type: 'function', function: { name: 'search_knowledge', arguments: '' } },
      ],
    }),
  );
  acc.apply(
    chunk({
      tool_calls: [
        { index: 1, id: 'b', type: 'function', function: { name: 'search_knowledge', arguments: '{"qu' } },
      ],
    }),
  );
  acc.apply(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":' } }] }));
  acc.apply(chunk({ tool_calls: [{ index: 1, function: { arguments: 'ery":"beta"}' } }] }));
  acc.apply(chunk({ tool_calls: [{ index: 0, function: { arguments: '"alpha"}' } }] }));
  acc.apply(chunk({}, 'tool_calls'));
  const r = acc.result();
  t.is(r.finishReason, 'tool_calls');
  t.deepEqual(
    r.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      ['a', 'search_knowledge', { query: 'alpha' }],
      ['b', 'search_knowledge', { query: 'beta' }],
    ],
  );
});

test('chunks: servers that omit index, repeat the name, or send object arguments', (t) => {
  const acc = createCompletionAccumulator();
  acc.apply(
    chunk({ tool_calls: [{ id: 'x1', function: { name: 'search_knowledge', arguments: '{"query"' } }] }),
  );
  acc.apply(chunk({ tool_calls: [{ function: { name: 'search_knowledge', arguments: ':"one"}' } }] }));
  acc.apply(
    chunk({
      tool_calls: [{ id: 'x2', function: { name: 'search_knowledge', arguments: { query: 'two' } } }],
    }),
  );
  // Ollama reports "stop" even when it called tools.
  acc.apply(chunk({}, 'stop'));
  const r = acc.result();
  t.is(r.finishReason, 'tool_calls');
  t.deepEqual(
    r.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      ['x1', 'search_knowledge', { query: 'one' }],
      ['x2', 'search_knowledge', { query: 'two' }],
    ],
  );
});

test('chunks: malformed arguments keep the raw text and parse to undefined; empty means {}', (t) => {
  const acc = createCompletionAccumulator();
  acc.apply(
    chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"query": "unterminated' } }] }),
  );
  acc.apply(chunk({ tool_calls: [{ index: 1, function: { name: 'g' } }] }));
  const [bad, empty] = acc.result().toolCalls;
  t.is(bad!.arguments, undefined);
  t.is(bad!.rawArguments, '{"query": "unterminated');
  t.is(bad!.id, 'call_0');
  t.deepEqual(empty!.arguments, {});
});

test('chunks: an error payload mid-stream throws, usage-only chunks are ignored', (t) => {
  const acc = createCompletionAccumulator();
  t.is(acc.apply({ object: 'chat.completion.chunk', choices: [], usage: { total_tokens: 3 } }), '');
  t.throws(() => acc.apply({ error: { message: 'model overloaded' } }), {
    instanceOf: CompletionPayloadError,
    message: 'model overloaded',
  });
});

test('chunks: length and content_filter finish reasons pass through', (t) => {
  for (const reason of ['length', 'content_filter']) {
    const acc = createCompletionAccumulator();
    acc.apply(chunk({ content: 'x' }, reason));
    t.is(acc.result().finishReason, reason);
  }
});

test('non-stream completion: content and tool calls', (t) => {
  t.deepEqual(
    parseCompletion({
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi [R1]' }, finish_reason: 'stop' }],
    }),
    { text: 'Hi [R1]', toolCalls: [], finishReason: 'stop' },
  );
  const r = parseCompletion({
    choices: [
      {
        message: {
          content: null,
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'search_knowledge', arguments: '{"query":"q"}' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
  });
  t.is(r.text, '');
  t.deepEqual(r.toolCalls, [
    { id: 'c', name: 'search_knowledge', arguments: { query: 'q' }, rawArguments: '{"query":"q"}' },
  ]);
  t.throws(() => parseCompletion({ error: 'bad model' }), { message: 'bad model' });
  t.throws(() => parseCompletion({ choices: [] }), { message: /no choices/ });
});
