// Pure conversion of our chat messages into node-llama-cpp chat history.
import type { ChatHistoryItem } from 'node-llama-cpp';
import { createError } from '../../errors.js';
import type { ChatMessage } from './types.js';

/**
 * Chat history for LlamaChatSession: system item, earlier turns (tool results folded into the
 * model turn that asked for them), and the final user message as the prompt.
 */
export function toHistory(
  system: string,
  messages: ChatMessage[],
  backend = 'llama',
): { history: ChatHistoryItem[]; prompt: string } {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user') {
    throw createError('CHAT_BACKEND_FAILED', { backend, reason: 'the last message must be from the user' });
  }
  const history: ChatHistoryItem[] = system ? [{ type: 'system', text: system }] : [];
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m.content);
  for (const m of messages.slice(0, -1)) {
    if (m.role === 'user') history.push({ type: 'user', text: m.content });
    else if (m.role === 'assistant') {
      const response: ChatHistoryItem & { type: 'model' } = { type: 'model', response: [] };
      if (m.content) response.response.push(m.content);
      for (const c of m.toolCalls ?? []) {
        response.response.push({
          type: 'functionCall',
          name: c.name,
          params: c.arguments,
          result: results.get(c.id) ?? '',
        });
      }
      history.push(response);
    }
  }
  return { history, prompt: last.content };
}
