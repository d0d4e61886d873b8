// Pure construction of OpenAI-compatible chat requests: the endpoint URL and the JSON body.
import { isKorttyError } from '../../errors.js';
import { checkEndpoint } from '../../qdrant/endpoint-policy.js';
import type { ChatMessage, ChatRequest } from './types.js';

/**
 * Accepts a base URL (`http://127.0.0.1:11434/v1`), a bare host (`http://localhost:8080`, which
 * gets `/v1`), or the full `…/chat/completions` URL, and returns the chat-completions URL.
 */
export function resolveChatUrl(endpoint: string, opts: { allowInsecureHttp?: boolean } = {}): URL {
  const url = checkChatEndpoint(endpoint, opts.allowInsecureHttp === true);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) url.pathname = path;
  else if (path === '') url.pathname = '/v1/chat/completions';
  else url.pathname = `${path}/chat/completions`;
  return url;
}

/**
 * Prompts carry terminal selections and document excerpts, requests carry the API key: https for
 * remote hosts, plain http only for a canonically written loopback host, unless the profile
 * explicitly allows insecure http (then only the loopback rule is waived, not credentials in the
 * URL or non-canonical hosts).
 */
function checkChatEndpoint(endpoint: string, allowInsecureHttp: boolean): URL {
  try {
    return checkEndpoint(endpoint);
  } catch (err) {
    if (allowInsecureHttp && isKorttyError(err, 'ENDPOINT_REFUSED') && err.details.rule === 'not-loopback') {
      return new URL(endpoint);
    }
    throw err;
  }
}

function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.rawArguments },
      })),
    };
  }
  return { role: m.role, content: m.content };
}

export function buildChatBody(model: string, req: ChatRequest, stream: boolean): Record<string, unknown> {
  const messages = [
    ...(req.system ? [{ role: 'system', content: req.system }] : []),
    ...req.messages.map(wireMessage),
  ];
  const body: Record<string, unknown> = { model, messages, stream };
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    body.tool_choice = req.toolChoice ?? 'auto';
  }
  return body;
}
