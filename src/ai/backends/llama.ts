// Local GGUF chat through node-llama-cpp: LlamaChatSession with streamed text chunks, and
// function calling (defineChatSessionFunction) for the search_knowledge tool.
import {
  type ChatSessionModelFunctions,
  defineChatSessionFunction,
  getLlama,
  type LLamaChatPromptOptions,
  type Llama,
  LlamaChatSession,
  type LlamaContext,
  type LlamaContextSequence,
  LlamaLogLevel,
  type LlamaModel,
} from 'node-llama-cpp';
import { readGgufHeader } from '../../embed/gguf-file.js';
import { createError, isKorttyError } from '../../errors.js';
import { usableCores } from '../../util/cores.js';
import { toHistory } from './llama-history.js';
import type {
  ChatBackend,
  ChatRequest,
  ChatResult,
  FinishReason,
  ToolHandlers,
  ToolLoopOptions,
  ToolLoopResult,
  ToolRun,
} from './types.js';

export interface LlamaBackendOptions {
  modelPath: string;
  /** Context window in tokens; bounded by the model's training context. Default 4096. */
  contextSize?: number;
  /** Default 0 (greedy, deterministic); a request's temperature wins. */
  temperature?: number;
  seed?: number;
  /** Default answer length cap; a request's maxTokens wins. Default: a quarter of the context. */
  maxTokens?: number;
  threads?: number;
  /**
   * Per-model sampling tuning (top-k/p, penalties, token bias), computed per turn. Tests use the
   * token bias to steer a random-weight model into emitting a function call.
   */
  tuning?: (ctx: { model: LlamaModel; sequence: LlamaContextSequence }) => LlamaTuning;
}

export type LlamaTuning = Pick<
  LLamaChatPromptOptions,
  'topK' | 'topP' | 'minP' | 'repeatPenalty' | 'tokenBias' | 'customStopTriggers'
>;

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
}

const DEFAULT_CONTEXT = 4096;

export function createLlamaBackend(opts: LlamaBackendOptions): ChatBackend {
  const file = opts.modelPath.split('/').pop() ?? opts.modelPath;
  const name = `llama(${file})`;
  const fail = (reason: string, cause?: unknown) =>
    createError('CHAT_BACKEND_FAILED', { backend: name, reason }, cause);
  let loading: Promise<Loaded> | undefined;
  // One context with one sequence: turns run one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function load(): Promise<Loaded> {
    // Our bounded header walk before node-llama-cpp reads it (that reader trusts the counts).
    await readGgufHeader(opts.modelPath).catch((err: Error) => {
      throw fail(`cannot load ${opts.modelPath}: ${err.message}`, err);
    });
    const threads = opts.threads ?? usableCores();
    const llama = await getLlama({
      gpu: false,
      build: 'never',
      maxThreads: threads,
      logLevel: LlamaLogLevel.error,
    });
    try {
      const model = await llama.loadModel({ modelPath: opts.modelPath, gpuLayers: 0 });
      const contextSize = Math.min(opts.contextSize ?? DEFAULT_CONTEXT, model.trainContextSize);
      const context = await model.createContext({ contextSize, sequences: 1, threads });
      return { llama, model, context };
    } catch (err) {
      await llama.dispose();
      throw fail(`cannot load ${opts.modelPath}: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  function serial<T>(fn: (l: Loaded) => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(fail('backend is closed'));
    loading ??= load();
    const run = queue.then(async () => fn(await loading!));
    queue = run.catch(() => {});
    return run;
  }

  async function turn(
    req: ChatRequest,
    functions: ChatSessionModelFunctions | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; finishReason: FinishReason }> {
    if (req.signal?.aborted) throw createError('CHAT_CANCELLED', { backend: name });
    return serial(async ({ model, context }) => {
      const { history, prompt } = toHistory(req.system, req.messages, name);
      const maxTokens = req.maxTokens ?? opts.maxTokens ?? Math.floor(context.contextSize / 4);
      const sequence = context.getSequence();
      const session = new LlamaChatSession({ contextSequence: sequence });
      try {
        session.setChatHistory(history);
        // Context shift would silently drop the oldest text (the contract, the excerpts): measure the
        // exact templated prompt, tool documentation included, and refuse what does not fit.
        const state = session.chatWrapper.generateContextState({
          chatHistory: [...history, { type: 'user', text: prompt }, { type: 'model', response: [] }],
          availableFunctions: functions,
        });
        const inputTokens = state.contextText.tokenize(model.tokenizer).length;
        if (inputTokens + maxTokens > context.contextSize) {
          throw fail(
            `the prompt (${inputTokens} tokens) plus ${maxTokens} answer tokens exceeds the ${context.contextSize}-token context`,
          );
        }
        const meta = await session.promptWithMeta(prompt, {
          ...opts.tuning?.({ model, sequence }),
          functions,
          onTextChunk: req.onToken,
          maxTokens,
          temperature: req.temperature ?? opts.temperature ?? 0,
          seed: req.seed ?? opts.seed,
          signal,
        });
        const finishReason =
          meta.stopReason === 'maxTokens' ? 'length' : meta.stopReason === 'abort' ? 'abort' : 'stop';
        return { text: meta.responseText, finishReason };
      } catch (err) {
        if (isKorttyError(err)) throw err;
        if (req.signal?.aborted) throw createError('CHAT_CANCELLED', { backend: name });
        if (signal?.aborted && signal.reason && isKorttyError(signal.reason)) throw signal.reason;
        throw fail(err instanceof Error ? err.message : String(err), err);
      } finally {
        session.dispose();
        sequence.dispose();
      }
    });
  }

  return {
    name,
    async chat(req: ChatRequest): Promise<ChatResult> {
      if (req.tools?.length) {
        throw createError('INVALID_ARGUMENT', {
          name: 'tools',
          reason: `${name} runs tools itself; call runWithTools with handlers`,
        });
      }
      const { text, finishReason } = await turn(req, undefined, req.signal);
      return { text, toolCalls: [], finishReason };
    },

    async chatWithTools(req: ChatRequest, handlers: ToolHandlers, { maxRounds }: ToolLoopOptions) {
      const stop = new AbortController();
      const onAbort = () => stop.abort(createError('CHAT_CANCELLED', { backend: name }));
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const toolRuns: ToolRun[] = [];
      let calls = 0;
      let handlerError: { error: unknown } | undefined;
      const functions: Record<string, ChatSessionModelFunctions[string]> = {};
      for (const tool of req.tools ?? []) {
        const handler = handlers[tool.name]!;
        functions[tool.name] = defineChatSessionFunction({
          description: tool.description,
          params: tool.parameters as never,
          async handler(params: unknown) {
            calls++;
            // Past the limit the model is told to answer; if it keeps calling, stop it.
            if (calls > maxRounds + 2) {
              stop.abort(
                createError('CHAT_TOOL_LIMIT', { backend: name, tool: tool.name, rounds: maxRounds }),
              );
              return 'error: stop';
            }
            if (calls > maxRounds) return 'error: no more searches allowed; answer now with what you have';
            let result: string;
            try {
              result = await handler(params);
            } catch (error) {
              // A broken search fails the run with its own error, as in the HTTP tool loop.
              handlerError = { error };
              stop.abort(error);
              throw error;
            }
            toolRuns.push({ name: tool.name, arguments: params, result });
            return result;
          },
        });
      }
      try {
        const { text, finishReason } = await turn({ ...req, tools: undefined }, functions, stop.signal);
        return {
          text,
          finishReason,
          toolRuns,
          rounds: Math.min(calls, maxRounds) + 1,
        } satisfies ToolLoopResult;
      } catch (err) {
        throw handlerError ? handlerError.error : err;
      } finally {
        req.signal?.removeEventListener('abort', onAbort);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await queue;
      if (!loading) return;
      const loaded = await loading.catch(() => undefined);
      if (!loaded) return;
      await loaded.context.dispose();
      await loaded.model.dispose();
      await loaded.llama.dispose();
    },
  };
}
