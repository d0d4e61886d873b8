import test from 'ava';
import { buildChatBody, resolveChatUrl } from '../../src/ai/backends/openai-request.js';
import { bodyExcerpt, redactSecret } from '../../src/ai/backends/redact.js';
import { SEARCH_KNOWLEDGE_TOOL } from '../../src/ai/backends/search-knowledge.js';
import { isKorttyError } from '../../src/errors.js';

test('endpoint: base URLs, bare hosts and full URLs resolve to /chat/completions', (t) => {
  const table: [string, string][] = [
    ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1/chat/completions'],
    ['http://127.0.0.1:11434/v1/', 'http://127.0.0.1:11434/v1/chat/completions'],
    ['http://localhost:8080', 'http://localhost:8080/v1/chat/completions'],
    ['http://[::1]:1234/v1/chat/completions', 'http://[::1]:1234/v1/chat/completions'],
    ['https://api.example.com/v1', 'https://api.example.com/v1/chat/completions'],
    ['https://example.com/openai/v1/chat/completions/', 'https://example.com/openai/v1/chat/completions'],
  ];
  for (const [input, want] of table) t.is(resolveChatUrl(input).href, want, input);
});

test('endpoint: plain http to a remote host, credentials and other schemes are refused', (t) => {
  for (const bad of [
    'http://api.example.com/v1',
    'http://10.0.0.5:11434/v1',
    'http://127.0.0.1@evil.example/v1',
    'https://user:secret@api.example.com/v1',
    'ftp://127.0.0.1/v1',
    'not a url',
  ]) {
    const err = t.throws(() => resolveChatUrl(bad), undefined, bad);
    t.true(isKorttyError(err, 'ENDPOINT_REFUSED'), `${bad}: ${err?.message}`);
    t.false(err!.message.includes('secret'));
  }
});

test('endpoint: a profile opt-in to insecure http waives only the loopback rule', (t) => {
  t.is(
    resolveChatUrl('http://10.0.0.5:11434/v1', { allowInsecureHttp: true }).href,
    'http://10.0.0.5:11434/v1/chat/completions',
  );
  for (const bad of ['http://user:pw@10.0.0.5/v1', 'http://10.0.0.5/v1?key=x', 'ftp://10.0.0.5/v1']) {
    t.true(
      isKorttyError(
        t.throws(() => resolveChatUrl(bad, { allowInsecureHttp: true })),
        'ENDPOINT_REFUSED',
      ),
      bad,
    );
  }
});

test('body: system first, history with tool calls and results, sampling options, tools', (t) => {
  const body = buildChatBody(
    'llama3',
    {
      system: 'contract',
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'search_knowledge', arguments: { query: 'x' }, rawArguments: '{"query":"x"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', name: 'search_knowledge', content: '<retrieved_context>…' },
      ],
      tools: [SEARCH_KNOWLEDGE_TOOL],
      maxTokens: 99,
      temperature: 0,
      seed: 7,
    },
    true,
  );
  t.deepEqual(body, {
    model: 'llama3',
    stream: true,
    max_tokens: 99,
    temperature: 0,
    seed: 7,
    messages: [
      { role: 'system', content: 'contract' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'search_knowledge', arguments: '{"query":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '<retrieved_context>…' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'search_knowledge',
          description: SEARCH_KNOWLEDGE_TOOL.description,
          parameters: SEARCH_KNOWLEDGE_TOOL.parameters,
        },
      },
    ],
    tool_choice: 'auto',
  });
  const plain = buildChatBody('m', { system: '', messages: [{ role: 'user', content: 'hi' }] }, false);
  t.deepEqual(plain, { model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] });
});

test('redact: exact, Bearer, and partially masked echoes of the key are removed', (t) => {
  const key = 'sk-test-4f9a8b7c6d5e4f3a2b1c';
  const cases = [
    `Incorrect API key provided: ${key}.`,
    `Incorrect API key provided: sk-test-4f9a**********2b1c.`,
    `header was "Authorization: Bearer ${key}"`,
    `key=${key.slice(3, 15)}…`,
  ];
  for (const c of cases) {
    const out = redactSecret(c, key);
    t.true(out.includes('[redacted]'), out);
    for (let i = 0; i + 6 <= key.length; i++)
      t.false(out.includes(key.slice(i, i + 6)), `${out} leaks ${key.slice(i, i + 6)}`);
  }
  t.is(redactSecret('nothing to hide here', key), 'nothing to hide here');
  t.is(redactSecret('Authorization: Bearer abc', undefined), 'Authorization: Bearer [redacted]');
});

test('body excerpt: JSON error message preferred, control characters flattened, bounded', (t) => {
  t.is(bodyExcerpt('{"error":{"message":"model \\"x\\" not found"}}'), 'model "x" not found');
  t.is(bodyExcerpt('{"error":"plain"}'), 'plain');
  t.is(bodyExcerpt('<html>\n\x1b[31mBad\tGateway</html>'), '<html> [31mBad Gateway</html>');
  t.is(bodyExcerpt('x'.repeat(500)).length, 201);
});
