import test from 'ava';
import { toHistory } from '../../src/ai/backends/llama-history.js';
import { isKorttyError } from '../../src/errors.js';

test('history: system item, earlier turns, tool results folded into the call, last user message as prompt', (t) => {
  const { history, prompt } = toHistory('contract', [
    { role: 'user', content: 'first' },
    {
      role: 'assistant',
      content: 'looking',
      toolCalls: [
        { id: 'c1', name: 'search_knowledge', arguments: { query: 'q' }, rawArguments: '{"query":"q"}' },
      ],
    },
    { role: 'tool', toolCallId: 'c1', name: 'search_knowledge', content: '<retrieved_context>…' },
    { role: 'assistant', content: 'answer [R1]' },
    { role: 'user', content: 'follow-up' },
  ]);
  t.is(prompt, 'follow-up');
  t.deepEqual(history, [
    { type: 'system', text: 'contract' },
    { type: 'user', text: 'first' },
    {
      type: 'model',
      response: [
        'looking',
        {
          type: 'functionCall',
          name: 'search_knowledge',
          params: { query: 'q' },
          result: '<retrieved_context>…',
        },
      ],
    },
    { type: 'model', response: ['answer [R1]'] },
  ]);
});

test('history: no system prompt, and a conversation that does not end with the user is refused', (t) => {
  t.deepEqual(toHistory('', [{ role: 'user', content: 'x' }]), { history: [], prompt: 'x' });
  const err = t.throws(() => toHistory('s', [{ role: 'assistant', content: 'x' }]));
  t.true(isKorttyError(err, 'CHAT_BACKEND_FAILED'));
  t.throws(() => toHistory('s', []));
});
