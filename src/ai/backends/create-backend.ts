// Builds a backend from plain configuration or from an AI profile (src/ai/profiles.ts).
import type { AiProfile } from '../../types.js';
import type { LlamaBackendOptions } from './llama.js';
import { createOpenAIBackend, type OpenAIBackendOptions } from './openai.js';
import type { ChatBackend } from './types.js';

export type ChatBackendConfig =
  | ({ kind: 'openai' } & OpenAIBackendOptions)
  | ({ kind: 'llama' } & LlamaBackendOptions);

export async function createChatBackend(config: ChatBackendConfig): Promise<ChatBackend> {
  if (config.kind === 'openai') return createOpenAIBackend(config);
  // Loaded on demand: node-llama-cpp is slow to import and the HTTP path does not need it.
  const { createLlamaBackend } = await import('./llama.js');
  return createLlamaBackend(config);
}

/** A profile's backend settings; `overrides` adds what profiles do not carry (timeouts, env). */
export function backendConfig(
  profile: AiProfile,
  overrides: Partial<OpenAIBackendOptions & LlamaBackendOptions> = {},
): ChatBackendConfig {
  if (profile.backend === 'openai') {
    return {
      kind: 'openai',
      endpoint: profile.baseUrl ?? '',
      model: profile.model,
      apiKeyEnv: profile.apiKeyEnv,
      allowInsecureHttp: profile.allowInsecureHttp,
      ...overrides,
    };
  }
  return { kind: 'llama', modelPath: profile.model, contextSize: profile.contextWindow, ...overrides };
}
