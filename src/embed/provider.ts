import { basename } from 'node:path';
import type { LlamaEmbeddingContext, Token } from 'node-llama-cpp';
import { createError, isKorttyError } from '../errors.js';
import type { ModelFingerprint } from '../types.js';
import { usableCores } from '../util/cores.js';
import { EMBED_BATCH } from './batch.js';
import { computeFingerprint, describeFingerprint, fingerprintDiff } from './fingerprint.js';
import { acquireModel } from './llama-runtime.js';
import { type ModelInfo, readModelInfo } from './model-info.js';
import { l2Normalize } from './vectors.js';

export { computeFingerprint, describeFingerprint } from './fingerprint.js';
export { type ModelInfo, readModelInfo } from './model-info.js';

// Embedding provider over node-llama-cpp. Decisions (figures in src/embed/README.md, produced by
// bench/embed-bench.ts):
// - threads from the cgroup-aware core count, never node-llama-cpp's default (6 per embedding
//   context, max(4, cores) otherwise);
// - node-llama-cpp 3.21.1 has no multi-sequence embedding call (its native getEmbedding reads
//   sequence 0 only), so batching means `parallel` embedding contexts pulling chunks from one
//   queue. By default there is one single-threaded context per usable core: chunks are
//   independent, so this needs no thread barriers, and measured 3x faster than one context with
//   all threads when other processes compete for the cores (ggml's threads spin at every op);
// - contextSize = min(trained context, 2048) and batchSize = contextSize, so a chunk is always
//   evaluated in one batch (a chunk split across batches silently yields a different vector);
// - a chunk longer than the context is truncated to it, counted with the model's own tokenizer,
//   and reported (stats.truncated, warnings, onTruncated) rather than split: one chunk, one vector;
// - texts go through in batches of 32 for progress and cancellation; vectors are L2-normalised;
// - a context is never disposed while an embedding call on it is in flight: node-llama-cpp 3.21.1
//   reads the vector (`getEmbedding`) after its decode has released the dispose guard, so a
//   dispose that lands in that gap frees the llama context on a worker thread while the main
//   thread still reads it (SIGSEGV in llama_pooling_type). Cancelling a batch therefore waits for
//   the calls already running on the other contexts, and close() waits for every call in flight.

export const MAX_CONTEXT = 2048;

export interface EmbedderOptions {
  modelPath: string;
  /** Catalog id for the fingerprint; default `local:<file name>`. */
  modelId?: string;
  /** sha256 already verified by the caller (install record); hashed from the file otherwise. */
  sha256?: string;
  /** The store's fingerprint: a model that does not match it is refused before loading. */
  fingerprint?: ModelFingerprint;
  /** Store name used in refusal messages. */
  storeName?: string;
  /** Prompt prefixes; default the fingerprint's, else none. */
  documentPrefix?: string;
  queryPrefix?: string;
  /** Upper bound on the context; default min(trained context, 2048). */
  contextSize?: number;
  /** Total threads; default usableCores(). */
  threads?: number;
  /** Embedding contexts working in parallel (threads are split between them); default = threads. */
  parallel?: number;
  /** Texts per progress/cancellation batch; default 32. */
  batchSize?: number;
  /** Default: on for generated lexical models (attention is zero, so it is exact), off otherwise. */
  flashAttention?: boolean;
  signal?: AbortSignal;
}

export interface Truncation {
  /** Index of the text in the call. */
  index: number;
  tokens: number;
  kept: number;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /** Called after each batch with the number of texts done so far. */
  onBatch?: (done: number) => void;
  onTruncated?: (t: Truncation) => void;
}

export interface EmbedderStats {
  /** embedDocuments + embedQuery calls. */
  calls: number;
  /** Texts embedded. */
  texts: number;
  /** Tokens evaluated (after truncation, with special tokens). */
  tokens: number;
  truncated: number;
  /** Texts with no tokens at all (they get a fixed unit vector). */
  empty: number;
}

export interface Embedder {
  dimension: number;
  contextSize: number;
  /** Longest text, in model tokens, embedded without truncation (prefix included). */
  maxTextTokens: number;
  fingerprint: ModelFingerprint;
  info: ModelInfo;
  embedDocuments(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>;
  embedQuery(text: string, opts?: { signal?: AbortSignal }): Promise<Float32Array>;
  /** Tokens the model sees for `text` (no prefix, no special tokens). */
  countTokens(text: string): number;
  stats: EmbedderStats;
  /** Human-readable notes such as truncations (the most recent 100). */
  warnings: string[];
  close(): Promise<void>;
}

export async function createEmbedder(opts: EmbedderOptions): Promise<Embedder> {
  const { modelPath } = opts;
  const expected = opts.fingerprint;
  const info = await readModelInfo(modelPath);
  const label = opts.modelId ?? basename(modelPath);
  if (expected && info.dimension !== expected.dimension) {
    throw createError('MODEL_DIMENSION_MISMATCH', {
      model: label,
      got: info.dimension,
      want: expected.dimension,
      store: opts.storeName ?? '?',
    });
  }
  const fingerprint = await computeFingerprint({
    modelPath,
    info,
    modelId: opts.modelId ?? expected?.modelId,
    sha256: opts.sha256,
    documentPrefix: opts.documentPrefix ?? expected?.documentPrefix,
    queryPrefix: opts.queryPrefix ?? expected?.queryPrefix,
  });
  if (expected) {
    const fields = fingerprintDiff(fingerprint, expected);
    if (fields.length > 0) {
      throw createError('MODEL_FINGERPRINT_MISMATCH', {
        path: modelPath,
        got: describeFingerprint(fingerprint),
        want: describeFingerprint(expected),
        fields: fields.join(', '),
      });
    }
  }
  if (info.pooling === 'rank') {
    throw createError('MODEL_INVALID', {
      path: modelPath,
      reason: 'a reranking model (rank pooling) gives no embeddings',
    });
  }
  checkAborted(opts.signal);
  const contextSize = Math.min(info.contextLength, opts.contextSize ?? MAX_CONTEXT);
  const threads = Math.max(1, Math.floor(opts.threads ?? usableCores()));
  const parallel = Math.max(1, Math.min(threads, Math.floor(opts.parallel ?? threads)));
  const batch = Math.max(1, Math.floor(opts.batchSize ?? EMBED_BATCH));
  let lease: Awaited<ReturnType<typeof acquireModel>>;
  try {
    lease = await acquireModel(modelPath, {
      flashAttention: opts.flashAttention ?? info.generator === 'lexical-starter',
      signal: opts.signal,
    });
  } catch (err) {
    checkAborted(opts.signal);
    throw createError(
      'MODEL_INVALID',
      { path: modelPath, reason: `llama.cpp could not load it (${errText(err)})` },
      err,
    );
  }
  const contexts: LlamaEmbeddingContext[] = [];
  try {
    for (let i = 0; i < parallel; i++) {
      contexts.push(
        await lease.model.createEmbeddingContext({
          contextSize,
          batchSize: contextSize,
          threads: Math.max(1, Math.floor(threads / parallel)),
          ...(opts.signal ? { createSignal: opts.signal } : {}),
        }),
      );
    }
  } catch (err) {
    await Promise.all(contexts.map((c) => c.dispose()));
    await lease.release();
    throw isKorttyError(err)
      ? err
      : createError('MODEL_INVALID', { path: modelPath, reason: errText(err) }, err);
  }
  const model = lease.model;
  // node-llama-cpp adds [CLS]/[SEP] or BOS/EOS itself and refuses inputs >= contextSize tokens.
  const specials = contexts[0]!.calculateInputLength([]);
  const maxTextTokens = contextSize - 1 - specials;
  const stats: EmbedderStats = { calls: 0, texts: 0, tokens: 0, truncated: 0, empty: 0 };
  const warnings: string[] = [];
  const dimension = info.dimension;
  const emptyVector = new Float32Array(dimension).fill(1 / Math.sqrt(dimension));
  let closed = false;
  const inflight = new Set<Promise<unknown>>();

  const embedOne = async (ctx: LlamaEmbeddingContext, text: string, index: number, o: EmbedOptions) => {
    let tokens: Token[] = model.tokenize(text);
    if (tokens.length > maxTextTokens) {
      const t = { index, tokens: tokens.length, kept: maxTextTokens };
      stats.truncated++;
      warnings.push(
        `text ${index} has ${t.tokens} tokens; embedded its first ${t.kept} (model context ${contextSize})`,
      );
      if (warnings.length > 100) warnings.shift();
      o.onTruncated?.(t);
      tokens = tokens.slice(0, maxTextTokens);
    }
    stats.texts++;
    if (tokens.length === 0) {
      stats.empty++;
      return emptyVector.slice();
    }
    stats.tokens += tokens.length + specials;
    let vector: readonly number[];
    // No await between this check and the call: close() either sees the call in `inflight` or
    // the call sees `closed`.
    if (closed) throw createError('EMBEDDER_CLOSED', { model: label });
    const call = ctx.getEmbeddingFor(tokens);
    inflight.add(call);
    try {
      vector = (await call).vector;
    } catch (err) {
      if (closed) throw createError('EMBEDDER_CLOSED', { model: label }, err);
      throw createError('EMBED_FAILED', { what: `text ${index}`, model: label, reason: errText(err) }, err);
    } finally {
      inflight.delete(call);
    }
    if (vector.length !== dimension) {
      throw createError('EMBED_FAILED', {
        what: `text ${index}`,
        model: label,
        reason: `got ${vector.length} values, expected ${dimension}`,
      });
    }
    return l2Normalize(vector) ?? emptyVector.slice();
  };

  const run = async (texts: string[], o: EmbedOptions): Promise<Float32Array[]> => {
    if (closed) throw createError('EMBEDDER_CLOSED', { model: label });
    stats.calls++;
    const out: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < texts.length; start += batch) {
      const end = Math.min(texts.length, start + batch);
      let next = start;
      let failure: { err: unknown } | undefined;
      // Each context pulls the next text; the first failure (a cancel included) stops the others
      // at their next pull, and is thrown only once none of them is still inside the model.
      await Promise.all(
        contexts.map(async (ctx) => {
          while (!failure && next < end) {
            const i = next++;
            try {
              checkAborted(o.signal);
              out[i] = await embedOne(ctx, texts[i]!, i, o);
            } catch (err) {
              failure ??= { err };
            }
          }
        }),
      );
      if (failure) throw failure.err;
      o.onBatch?.(end);
    }
    return out;
  };

  return {
    dimension,
    contextSize,
    maxTextTokens,
    fingerprint,
    info,
    stats,
    warnings,
    countTokens: (text) => model.tokenize(text).length,
    embedDocuments: (texts, o = {}) =>
      run(
        texts.map((t) => fingerprint.documentPrefix + t),
        o,
      ),
    embedQuery: async (text, o = {}) => (await run([fingerprint.queryPrefix + text], o))[0]!,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inflight]);
      await Promise.all(contexts.map((c) => c.dispose()));
      await lease.release();
    },
  };
}

function checkAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw createError('JOB_CANCELLED', {}, signal.reason);
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));
