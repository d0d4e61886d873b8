import { createError } from '../errors.js';
import type { ModelFingerprint } from '../types.js';
import { readGgufHeader } from './gguf-file.js';
import { type GgufFile, metadataMap } from './gguf-format.js';

// What an embedding model will produce, read from its GGUF header before the model is loaded,
// so a store can refuse a model of the wrong dimension without spending a load.

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

/** Pure: model facts from a parsed header. */
export function modelInfoFromGguf(file: GgufFile & { fileSize: number }, label: string): ModelInfo {
  const m = metadataMap(file);
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
    fileSize: file.fileSize,
  };
}

/** Read a model's facts from its GGUF header without loading it. */
export async function readModelInfo(path: string): Promise<ModelInfo> {
  const header = await readGgufHeader(path);
  if (header.tensors.length === 0) {
    throw createError('MODEL_INVALID', { path, reason: 'the file holds no tensors (vocabulary only)' });
  }
  return modelInfoFromGguf(header, path);
}
