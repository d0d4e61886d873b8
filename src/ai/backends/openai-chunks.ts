// Pure decoding of OpenAI-compatible chat completions: streamed `chat.completion.chunk` deltas
// (content, tool_calls accumulated by index) and whole non-stream `chat.completion` objects.
import type { ChatResult, FinishReason, ToolCall } from './types.js';

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export interface CompletionAccumulator {
  /** Apply one parsed `data:` payload; returns the answer text it added ('' for none). */
  apply(chunk: unknown): string;
  /** True once a finish_reason arrived. */
  readonly finished: boolean;
  result(): ChatResult;
}

/** Thrown for an `{"error": …}` payload; the adapter turns it into CHAT_BACKEND_FAILED. */
export class CompletionPayloadError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createCompletionAccumulator(): CompletionAccumulator {
  let text = '';
  let finish: string | undefined;
  const calls: PartialCall[] = [];
  const byIndex = new Map<number, PartialCall>();

  function callFor(delta: Obj): PartialCall {
    const id = str(delta.id);
    if (typeof delta.index === 'number') {
      let c = byIndex.get(delta.index);
      if (!c) {
        c = { id: '', name: '', args: '' };
        byIndex.set(delta.index, c);
        calls.push(c);
      }
      return c;
    }
    // Servers that omit `index`: a new id starts a new call, otherwise continue the last one.
    const last = calls[calls.length - 1];
    if (last && (id === '' || id === last.id)) return last;
    const c = { id: '', name: '', args: '' };
    calls.push(c);
    return c;
  }

  function applyToolDelta(delta: Obj): void {
    const c = callFor(delta);
    if (str(delta.id)) c.id = str(delta.id);
    const fn = isObj(delta.function) ? delta.function : {};
    const name = str(fn.name);
    // Some servers repeat the full name in every delta; others could split it.
    if (name && name !== c.name) c.name += name;
    if (typeof fn.arguments === 'string') c.args += fn.arguments;
    else if (isObj(fn.arguments)) c.args += JSON.stringify(fn.arguments);
  }

  return {
    apply(chunk) {
      if (!isObj(chunk)) return '';
      if (chunk.error !== undefined) throw new CompletionPayloadError(errorText(chunk.error));
      const choice = Array.isArray(chunk.choices) ? chunk.choices.find(isObj) : undefined;
      if (!choice) return ''; // usage-only chunks
      const delta = isObj(choice.delta) ? choice.delta : {};
      const piece = str(delta.content);
      text += piece;
      if (Array.isArray(delta.tool_calls)) for (const d of delta.tool_calls) if (isObj(d)) applyToolDelta(d);
      if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
      return piece;
    },
    get finished() {
      return finish !== undefined;
    },
    result() {
      return finalize(text, calls, finish);
    },
  };
}

/** Decode a non-stream `chat.completion` (servers that ignore `stream: true`). */
export function parseCompletion(body: unknown): ChatResult {
  if (!isObj(body)) throw new CompletionPayloadError('response is not a JSON object');
  if (body.error !== undefined) throw new CompletionPayloadError(errorText(body.error));
  const choice = Array.isArray(body.choices) ? body.choices.find(isObj) : undefined;
  if (!choice) throw new CompletionPayloadError('response has no choices');
  const msg = isObj(choice.message) ? choice.message : {};
  const calls: PartialCall[] = [];
  if (Array.isArray(msg.tool_calls)) {
    for (const tc of msg.tool_calls) {
      if (!isObj(tc)) continue;
      const fn = isObj(tc.function) ? tc.function : {};
      const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
      calls.push({ id: str(tc.id), name: str(fn.name), args });
    }
  }
  return finalize(str(msg.content), calls, str(choice.finish_reason) || 'stop');
}

function finalize(text: string, calls: PartialCall[], finish: string | undefined): ChatResult {
  const toolCalls: ToolCall[] = calls
    .filter((c) => c.name !== '')
    .map((c, i) => ({
      id: c.id || `call_${i}`,
      name: c.name,
      arguments: parseArgs(c.args),
      rawArguments: c.args,
    }));
  return { text, toolCalls, finishReason: normaliseFinish(finish, toolCalls.length > 0) };
}

function parseArgs(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function normaliseFinish(reason: string | undefined, hasCalls: boolean): FinishReason {
  // Ollama and older servers report "stop" (or legacy "function_call") alongside tool calls.
  if (hasCalls) return 'tool_calls';
  return reason ?? 'stop';
}

function errorText(err: unknown): string {
  if (typeof err === 'string') return err;
  if (isObj(err) && typeof err.message === 'string') return err.message;
  return JSON.stringify(err);
}
