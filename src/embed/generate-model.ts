import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { atomicWrite } from '../storage/atomic-write.js';
import { modelsDir } from '../storage/paths.js';
import { PRIVATE_DIR_MODE } from '../storage/private-files.js';
import { buildChatModel, type ChatModelParams } from './chat-model.js';
import { readGgufHeader } from './gguf-file.js';
import { parseGguf } from './gguf-reader.js';
import { encodeGguf } from './gguf-writer.js';
import { buildLexicalModel, type LexicalModelParams } from './lexical-model.js';
import { extractVocab } from './vocab-bundle.js';

// Writes generated models to disk: vocabulary from node-llama-cpp's bundle, weights from a seed,
// bytes from the deterministic GGUF writer, activation through atomicWrite. No network.

/**
 * Starter defaults. 384 dimensions keep random token vectors near-orthogonal (noise ~ 1/sqrt(384)
 * = 0.05 cosine) at the size of common small embedding models; a 2048-token context holds an
 * ~800-token chunk even when WordPiece splits code finely.
 */
export const STARTER_DEFAULTS: LexicalModelParams = {
  dimension: 384,
  seed: 0x6b6f7274, // "kort"
  contextLength: 2048,
  idfWeighting: true,
  name: 'kortty-lexical-starter',
  // Zero matrices as Q8_0: ~20 % faster than F16 on CPU in our measurement, and exact (all zero).
  zeroType: 'q8_0',
};

export const CHAT_DEFAULTS: ChatModelParams = {
  seed: 0x63686174, // "chat"
  vocabSize: 4096,
  dimension: 64,
  layers: 2,
  heads: 4,
  feedForward: 128,
  contextLength: 1024,
  name: 'kortty-tiny-chat',
};

export interface GeneratedModel {
  path: string;
  size: number;
  sha256: string;
}

export interface GenerateOptions {
  /** Where extracted vocabulary files are cached (default: `<models>/vocab`). */
  vocabCacheDir?: string;
}

export async function encodeLexicalModel(
  params: Partial<LexicalModelParams> = {},
  opts: GenerateOptions = {},
): Promise<Buffer> {
  const vocab = await readGgufHeader(await extractVocab('bert-bge', opts.vocabCacheDir ?? defaultVocabDir()));
  return encodeGguf(buildLexicalModel(vocab.metadata, { ...STARTER_DEFAULTS, ...params }));
}

export async function encodeChatModel(params: Partial<ChatModelParams> = {}, opts: GenerateOptions = {}) {
  const vocab = await readGgufHeader(await extractVocab('qwen2', opts.vocabCacheDir ?? defaultVocabDir()));
  return encodeGguf(buildChatModel(vocab.metadata, { ...CHAT_DEFAULTS, ...params }));
}

export async function generateLexicalModel(
  path: string,
  params: Partial<LexicalModelParams> = {},
  opts: GenerateOptions = {},
): Promise<GeneratedModel> {
  return writeModel(path, await encodeLexicalModel(params, opts));
}

export async function generateChatModel(
  path: string,
  params: Partial<ChatModelParams> = {},
  opts: GenerateOptions = {},
): Promise<GeneratedModel> {
  return writeModel(path, await encodeChatModel(params, opts));
}

async function writeModel(path: string, bytes: Buffer): Promise<GeneratedModel> {
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  await atomicWrite(path, bytes, { verify: (b) => void parseGguf(b, { label: path }) });
  return { path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const defaultVocabDir = () => join(modelsDir(), 'vocab');
