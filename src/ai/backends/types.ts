// Plain data shared by the chat backends (OpenAI-compatible HTTP, local GGUF) and the tool loop.

/** JSON schema of a tool's arguments (an object schema; kept loose so both backends can take it). */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. Local models turn it into a grammar, so keep it simple. */
  parameters: JsonSchema;
}

export interface ToolCall {
  /** The backend's call id (OpenAI `tool_calls[].id`), or one we made up when the server sent none. */
  id: string;
  name: string;
  /** Parsed arguments; `undefined` when `rawArguments` is not valid JSON. */
  arguments: unknown;
  /** Arguments exactly as the model produced them. */
  rawArguments: string;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string; name: string };

/** Why generation stopped. `stop`, `length` and `tool_calls` are normalised; servers may send others. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Ask the model not to call tools this turn (the tool loop's last round). */
  toolChoice?: 'auto' | 'none';
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
  /** Answer text as it arrives, in order. Tool-call argument text is not streamed. */
  onToken?: (text: string) => void;
}

export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

/** A tool implementation: gets the parsed arguments, returns the text the model sees. */
export type ToolHandler = (args: unknown) => Promise<string>;
export type ToolHandlers = Record<string, ToolHandler>;

export interface ToolRun {
  name: string;
  arguments: unknown;
  result: string;
}

export interface ToolLoopResult {
  /** Everything the model said across rounds, as streamed through `onToken`. */
  text: string;
  finishReason: FinishReason;
  /** Each executed tool call, in order. */
  toolRuns: ToolRun[];
  /** Model turns taken (1 when no tool was called). */
  rounds: number;
}

export interface ToolLoopOptions {
  /** At most this many rounds of tool calls; the round after must answer. */
  maxRounds: number;
}

export interface ChatBackend {
  /** Short display name, e.g. `openai(http://127.0.0.1:11434/v1, llama3)` or `llama(model.gguf)`. */
  readonly name: string;
  /** One model turn. The HTTP backend returns tool calls for the caller to run. */
  chat(req: ChatRequest): Promise<ChatResult>;
  /**
   * Backends that execute tools themselves (node-llama-cpp function calling) implement this;
   * `runWithTools` then delegates to it instead of looping over `chat`.
   */
  chatWithTools?(req: ChatRequest, handlers: ToolHandlers, opts: ToolLoopOptions): Promise<ToolLoopResult>;
  close(): Promise<void>;
}
