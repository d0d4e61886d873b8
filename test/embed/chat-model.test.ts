import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { LlamaChatSession } from 'node-llama-cpp';
import { getSharedLlama } from '../../src/embed/llama-runtime.js';
import { chatModel } from '../helpers/models.js';

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-chat-'));

test('the tiny chat model generates tokens through LlamaChatSession with its ChatML template', async (t) => {
  const llama = await getSharedLlama();
  const model = await llama.loadModel({ modelPath: await chatModel() });
  const context = await model.createContext({ contextSize: 512, threads: 1 });
  t.teardown(async () => {
    await context.dispose();
    await model.dispose();
  });
  const session = new LlamaChatSession({ contextSequence: context.getSequence() });
  t.is(session.chatWrapper.wrapperName, 'ChatML');
  let tokens = 0;
  const answer = await session.prompt('Explain [R1] please.', {
    maxTokens: 8,
    onToken: (chunk) => (tokens += chunk.length),
  });
  t.is(tokens, 8);
  t.true(answer.length > 0);
  // Greedy decoding of fixed weights is deterministic: the same prompt gives the same gibberish.
  session.resetChatHistory();
  t.is(await session.prompt('Explain [R1] please.', { maxTokens: 8 }), answer);
});
