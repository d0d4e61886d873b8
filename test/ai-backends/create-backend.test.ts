import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { backendConfig, createChatBackend } from '../../src/ai/backends/create-backend.js';
import type { AiProfile } from '../../src/types.js';
import { createFakeOpenAI } from '../helpers/fake-openai.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-backends-'));

const base: Omit<AiProfile, 'backend' | 'model'> = {
  name: 'p',
  contextWindow: 4096,
  family: 'generic',
  requireCitations: true,
  retrievalMode: 'tool',
};

test('profile → backend: an openai profile talks to its baseUrl with its key variable', async (t) => {
  const fake = await createFakeOpenAI({ apiKey: 'k-123456789', reply: () => 'hello [R1]' });
  try {
    const profile: AiProfile = {
      ...base,
      backend: 'openai',
      model: 'qwen',
      baseUrl: fake.url,
      apiKeyEnv: 'MY_KEY',
    };
    const backend = await createChatBackend(backendConfig(profile, { env: { MY_KEY: 'k-123456789' } }));
    const res = await backend.chat({ system: 's', messages: [{ role: 'user', content: 'u' }] });
    t.is(res.text, 'hello [R1]');
    t.is(fake.requests[0]!.body.model, 'qwen');
    await backend.close();
  } finally {
    await fake.close();
  }
});

test('profile → backend: a llama profile maps model path and context window', (t) => {
  const profile: AiProfile = { ...base, backend: 'llama', model: '/models/chat.gguf' };
  t.deepEqual(backendConfig(profile), { kind: 'llama', modelPath: '/models/chat.gguf', contextSize: 4096 });
});
