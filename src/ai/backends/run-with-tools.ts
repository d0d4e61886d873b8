// The tool loop for backends that hand tool calls back (OpenAI-compatible HTTP): ask, run the
// requested tools, append their results, ask again. Backends that run tools themselves
// (node-llama-cpp function calling) implement `chatWithTools` and are delegated to.
import { createError } from '../../errors.js';
import type {
  ChatBackend,
  ChatMessage,
  ChatRequest,
  ToolCall,
  ToolHandlers,
  ToolLoopOptions,
  ToolLoopResult,
  ToolRun,
} from './types.js';

/** A model asking for dozens of searches at once gets the first few answered. */
export const MAX_CALLS_PER_ROUND = 4;

export async function runWithTools(
  backend: ChatBackend,
  req: ChatRequest,
  handlers: ToolHandlers,
  opts: ToolLoopOptions,
): Promise<ToolLoopResult> {
  const { maxRounds } = opts;
  if (!Number.isInteger(maxRounds) || maxRounds < 0) {
    throw createError('INVALID_ARGUMENT', {
      name: 'maxRounds',
      reason: `${maxRounds} is not a whole number >= 0`,
    });
  }
  for (const t of req.tools ?? []) {
    if (!handlers[t.name])
      throw createError('INVALID_ARGUMENT', { name: 'tools', reason: `no handler for ${t.name}` });
  }
  if (!req.tools?.length) {
    const res = await backend.chat(req);
    return { text: res.text, finishReason: res.finishReason, toolRuns: [], rounds: 1 };
  }
  if (backend.chatWithTools) return backend.chatWithTools(req, handlers, opts);

  const messages: ChatMessage[] = [...req.messages];
  const toolRuns: ToolRun[] = [];
  let text = '';
  for (let round = 0; ; round++) {
    const last = round >= maxRounds;
    const res = await backend.chat({
      ...req,
      messages,
      toolChoice: last ? 'none' : (req.toolChoice ?? 'auto'),
      onToken: req.onToken && separated(req.onToken, text),
    });
    text = join(text, res.text);
    if (res.toolCalls.length === 0)
      return { text, finishReason: res.finishReason, toolRuns, rounds: round + 1 };
    if (last) {
      throw createError('CHAT_TOOL_LIMIT', {
        backend: backend.name,
        tool: res.toolCalls[0]!.name,
        rounds: maxRounds,
      });
    }
    messages.push({ role: 'assistant', content: res.text, toolCalls: res.toolCalls });
    for (const [i, call] of res.toolCalls.entries()) {
      const result =
        i < MAX_CALLS_PER_ROUND
          ? await runOne(call, handlers)
          : `error: at most ${MAX_CALLS_PER_ROUND} tool calls per turn`;
      if (i < MAX_CALLS_PER_ROUND) toolRuns.push({ name: call.name, arguments: call.arguments, result });
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result });
    }
  }
}

/** Bad calls are answered with an error the model can read and correct; handler failures propagate. */
async function runOne(call: ToolCall, handlers: ToolHandlers): Promise<string> {
  const handler = Object.hasOwn(handlers, call.name) ? handlers[call.name] : undefined;
  if (!handler) return `error: unknown tool "${call.name}"; available: ${Object.keys(handlers).join(', ')}`;
  if (call.arguments === undefined) return 'error: the arguments were not valid JSON';
  return handler(call.arguments);
}

// Text from a round before a tool call ("Let me look that up.") and the final answer are
// joined with a newline, streamed the same way they are returned.
function join(before: string, after: string): string {
  if (!before || !after || /\s$/.test(before)) return before + after;
  return `${before}\n${after}`;
}

function separated(onToken: (t: string) => void, before: string): (t: string) => void {
  let first = true;
  return (t) => {
    if (first && t) {
      first = false;
      onToken(join(before, t).slice(before.length));
      return;
    }
    onToken(t);
  };
}
