import { stat } from 'node:fs/promises';
import { createError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import type { ModelFingerprint } from '../types.js';
import { readGgufHeader } from './gguf-file.js';

// What an embedding model will produce, read from its GGUF header before the model is loaded,
// so a store can refuse a model of the wrong dimension without spending a load. The header is
// read by node-llama-cpp's own GGUF reader (the runtime that will load the file), after our own
// reader (gguf-reader.ts) has walked it with every count checked against the bytes left; ours also
// serves the model generator, which needs each value's GGUF type to copy a vocabulary.

export type Pooling = ModelFingerprint['pooling'];

export interface ModelInfo {
  arch: string;
  name?: string;
  /** Length of the vectors the model outputs (`<arch>.embedding_length_out`, else `embedding_length`). */
  dimension: number;
  /**
   * Pooling node-llama-cpp will apply: the GGUF's `<arch>.pooling_type`; when it is absent or
   * `none`, node-llama-cpp returns the last token's vector, reported as `last`.
   */
  pooling: Pooling;
  /** Pooling as declared in the file (`unspecified` when the key is absent). */
  declaredPooling: Pooling | 'unspecified';
  /** Trained context (`<arch>.context_length`). */
  contextLength: number;
  blockCount?: number;
  vocabSize?: number;
  tokenizer?: string;
  /** Non-causal (encoder) attention, as in BERT-style models. */
  causal: boolean;
  hasChatTemplate: boolean;
  /** `kortty.generator` for models this project generated. */
  generator?: string;
  fileSize: number;
}

const POOLING: Record<number, Pooling> = { 0: 'none', 1: 'mean', 2: 'cls', 3: 'last', 4: 'rank' };

/** Pure: model facts from header metadata keyed by the full dotted name. */
export function modelInfoFromMetadata(
  m: ReadonlyMap<string, unknown>,
  fileSize: number,
  label: string,
): ModelInfo {
  const arch = m.get('general.architecture');
  if (typeof arch !== 'string' || arch.length === 0) {
    throw createError('MODEL_INVALID', { path: label, reason: 'general.architecture is missing' });
  }
  const num = (key: string): number | undefined => {
    const v = m.get(key);
    return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
  };
  const dimension = num(`${arch}.embedding_length_out`) ?? num(`${arch}.embedding_length`);
  if (!dimension || dimension < 1) {
    throw createError('MODEL_INVALID', { path: label, reason: `${arch}.embedding_length is missing` });
  }
  const contextLength = num(`${arch}.context_length`);
  if (!contextLength || contextLength < 1) {
    throw createError('MODEL_INVALID', { path: label, reason: `${arch}.context_length is missing` });
  }
  const poolingId = num(`${arch}.pooling_type`);
  const declaredPooling = poolingId === undefined ? 'unspecified' : POOLING[poolingId];
  if (declaredPooling === undefined) {
    throw createError('MODEL_INVALID', { path: label, reason: `unknown pooling type ${poolingId}` });
  }
  const tokens = m.get('tokenizer.ggml.tokens');
  const causal = m.get(`${arch}.attention.causal`);
  const name = m.get('general.name');
  const generator = m.get('kortty.generator');
  return {
    arch,
    ...(typeof name === 'string' ? { name } : {}),
    dimension,
    pooling: declaredPooling === 'unspecified' || declaredPooling === 'none' ? 'last' : declaredPooling,
    declaredPooling,
    contextLength,
    ...(num(`${arch}.block_count`) !== undefined ? { blockCount: num(`${arch}.block_count`) } : {}),
    ...(Array.isArray(tokens) ? { vocabSize: tokens.length } : {}),
    ...(typeof m.get('tokenizer.ggml.model') === 'string'
      ? { tokenizer: m.get('tokenizer.ggml.model') as string }
      : {}),
    causal: typeof causal === 'boolean' ? causal : true,
    hasChatTemplate: typeof m.get('tokenizer.chat_template') === 'string',
    ...(typeof generator === 'string' ? { generator } : {}),
    fileSize,
  };
}

/** Read a model's facts from its GGUF header without loading it. */
export async function readModelInfo(path: string): Promise<ModelInfo> {
  const st = await stat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT')
      throw createError('MODEL_INVALID', { path, reason: 'file does not exist' }, err);
    throw createError('IO_FAILED', { path, op: 'stat', reason: errReason(err) }, err);
  });
  if (!st.isFile()) throw createError('MODEL_INVALID', { path, reason: 'not a regular file' });
  // Our bounded walk first: node-llama-cpp's reader trusts the header's counts (a 177-byte file
  // claiming 2^62 vocabulary entries would make it read and allocate without end).
  await readGgufHeader(path);
  // Loaded here: node-llama-cpp is large, and most commands never read a model header.
  const { readGgufFileInfo } = await import('node-llama-cpp');
  const info = await readGgufFileInfo(path, { readTensorInfo: true, logWarnings: false }).catch((err) => {
    throw createError('GGUF_INVALID', { path, reason: errReason(err) }, err);
  });
  const tensors = info.tensorInfo ?? [];
  if (tensors.length === 0) {
    throw createError('MODEL_INVALID', { path, reason: 'the file holds no tensors (vocabulary only)' });
  }
  if (tensors.some((t) => Number(t.fileOffset) > st.size)) {
    throw createError('GGUF_INVALID', { path, reason: 'tensor data lies beyond the end of the file' });
  }
  return modelInfoFromMetadata(flatten(info.metadata), st.size, path);
}

/** node-llama-cpp nests metadata by key segment; the facts above are looked up by full key. */
function flatten(meta: object, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [k, v] of Object.entries(meta)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v))
      flatten(v, key, out);
    else out.set(key, v);
  }
  return out;
}
