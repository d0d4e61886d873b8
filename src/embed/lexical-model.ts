import { createError } from '../errors.js';
import { GgmlType, type GgufKv, GgufType, tensorByteSize } from './gguf-format.js';
import type { GgufTensorInput, GgufWriteInput } from './gguf-writer.js';
import { createGaussian } from './prng.js';

// The lexical starter embedding model: a real one-layer BERT that llama.cpp runs, built so that
// its mean-pooled output is a weighted bag of random token vectors.
//
// Why it works: position and token-type embeddings are zero, so a token's input is its own row.
// Attention (Q, K, V, output) and FFN weights are zero, so each sub-block adds nothing and the
// residual stream carries the row unchanged through three LayerNorms (embedding, attention-out,
// layer-out; weight 1, bias 0). Random rows in hundreds of dimensions are nearly orthogonal, so
// cosine(mean(a), mean(b)) tracks the (weighted) overlap of the two token multisets.
//
// Term weighting: LayerNorm maps a centred row of variance v to variance v/(v+eps). With a large
// eps (1.0) this is not a no-op: three passes give f(v) = g(g(g(v))), monotone in v. Each row's
// variance is chosen so its output norm is proportional to a weight w(token); w is an IDF proxy
// taken from the WordPiece vocabulary order, which is by corpus frequency (Zipf: idf ~ log rank).
// Special tokens ([CLS], [SEP], [PAD], [MASK]) have zero rows and contribute nothing.

export interface LexicalModelParams {
  /** Embedding dimension (`bert.embedding_length`). */
  dimension: number;
  seed: number;
  /** Trained context (`bert.context_length`): the longest chunk embedded without truncation. */
  contextLength: number;
  /** Weight tokens by an IDF proxy (true) or equally (false). */
  idfWeighting: boolean;
  name: string;
  /** Sharpness of the IDF proxy: weight = (log rank / log vocabulary)^exponent. */
  idfExponent?: number;
  /** Storage of the all-zero attention/FFN matrices; quantised zeros multiply faster on CPU. */
  zeroType?: 'f16' | 'q8_0' | 'q4_0';
}

export const LEXICAL_GENERATOR_VERSION = 1;
const EPS = 1.0;
const FFN = 32;
const FIRST_WORD_ID = 1996; // BERT uncased: [unused*], specials and single characters come first

const g = (v: number) => v / (v + EPS);
const layerNormChain = (v: number) => g(g(g(v)));
const V_TOP = 100; // f(100) is within 0.4 % of the supremum 1/3

/** Variance whose three-LayerNorm output norm is `w` times that of V_TOP (bisection, exact floats only). */
export function varianceForWeight(w: number): number {
  if (w <= 0) return 0;
  const target = w * w * layerNormChain(V_TOP);
  let lo = 0;
  let hi = V_TOP;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (layerNormChain(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const LETTER = /^\p{L}$/u;
const LATIN_LETTER = /^[a-z]$/;
const DIGIT = /^\p{N}$/u;

/** Relative weight of a token in (0, 1], or 0 for tokens that must not count. */
export function tokenWeight(
  id: number,
  text: string,
  type: number,
  vocabSize: number,
  idf: boolean,
  exponent = 1,
): number {
  if (type === 3) return 0; // control tokens: [PAD] [CLS] [SEP] [MASK]
  if (!idf) return 1;
  if (text === '[UNK]') return 0.1;
  if (id < FIRST_WORD_ID) {
    const ch = text.replace(/^\u2581/, '');
    if (LATIN_LETTER.test(ch)) return 0.25;
    if (DIGIT.test(ch)) return 0.4;
    if (LETTER.test(ch)) return 0.7; // CJK and other scripts split per character
    return 0.05; // punctuation and symbols
  }
  const rank = id - FIRST_WORD_ID + 1;
  return Math.min(1, Math.log(1 + rank) / Math.log(1 + vocabSize - FIRST_WORD_ID)) ** exponent;
}

const f32 = (name: string, dims: number[], data: Float32Array): GgufTensorInput => ({
  name,
  dims,
  type: GgmlType.F32,
  data,
});
const f16 = (name: string, dims: number[], data: Float32Array): GgufTensorInput => ({
  name,
  dims,
  type: GgmlType.F16,
  data,
});

const ZERO_TYPES = { f16: GgmlType.F16, q8_0: GgmlType.Q8_0, q4_0: GgmlType.Q4_0 } as const;

/** An all-zero matrix. For block types all-zero bytes decode to 0 (scale 0). */
function zeroMatrix(name: string, dims: number[], kind: keyof typeof ZERO_TYPES): GgufTensorInput {
  const type = ZERO_TYPES[kind];
  const size = tensorByteSize(type, dims)!;
  return { name, dims, type, bytes: new Uint8Array(size) };
}

/** Build the complete model from a BERT WordPiece vocabulary GGUF's metadata. Pure and deterministic. */
export function buildLexicalModel(vocab: GgufKv[], p: LexicalModelParams): GgufWriteInput {
  const tokenizer = vocab.filter((kv) => kv.key.startsWith('tokenizer.'));
  const get = (key: string) => tokenizer.find((kv) => kv.key === key)?.value;
  const tokens = get('tokenizer.ggml.tokens') as string[] | undefined;
  const types = get('tokenizer.ggml.token_type') as number[] | undefined;
  if (get('tokenizer.ggml.model') !== 'bert' || !tokens || !types) {
    throw createError('INVALID_ARGUMENT', {
      name: 'model parameters',
      reason: 'buildLexicalModel needs a BERT WordPiece vocabulary',
    });
  }
  const d = p.dimension;
  const n = tokens.length;
  if (!Number.isInteger(d) || d < 8 || (p.zeroType !== 'f16' && p.zeroType !== undefined && d % 32 !== 0)) {
    throw createError('INVALID_ARGUMENT', {
      name: 'model parameters',
      reason: `dimension ${d} must be an integer >= 8 (a multiple of 32 for quantised zero matrices)`,
    });
  }
  const gauss = createGaussian(p.seed);
  const emb = new Float32Array(d * n);
  const row = new Float64Array(d);
  for (let t = 0; t < n; t++) {
    // Draw every row (even zero-weight ones) so each token's vector depends only on (seed, id).
    let mean = 0;
    for (let i = 0; i < d; i++) mean += row[i] = gauss();
    mean /= d;
    let variance = 0;
    for (let i = 0; i < d; i++) variance += (row[i]! - mean) ** 2;
    variance /= d;
    const w = tokenWeight(t, tokens[t]!, types[t]!, n, p.idfWeighting, p.idfExponent);
    const scale = w === 0 ? 0 : Math.sqrt(varianceForWeight(w) / variance);
    for (let i = 0; i < d; i++) emb[t * d + i] = (row[i]! - mean) * scale;
  }
  const ones = new Float32Array(d).fill(1);
  const zeros = new Float32Array(d);
  const u32 = (key: string, value: number): GgufKv => ({ key, type: GgufType.UINT32, value });
  const metadata: GgufKv[] = [
    { key: 'general.architecture', type: GgufType.STRING, value: 'bert' },
    { key: 'general.name', type: GgufType.STRING, value: p.name },
    u32('general.file_type', 1), // mostly F16
    u32('bert.block_count', 1),
    u32('bert.context_length', p.contextLength),
    u32('bert.embedding_length', d),
    u32('bert.feed_forward_length', FFN),
    // One head: output is independent of heads (attention is zero) and the KQ buffer stays small.
    u32('bert.attention.head_count', 1),
    { key: 'bert.attention.layer_norm_epsilon', type: GgufType.FLOAT32, value: EPS },
    { key: 'bert.attention.causal', type: GgufType.BOOL, value: false },
    u32('bert.pooling_type', 1), // mean
    { key: 'kortty.generator', type: GgufType.STRING, value: 'lexical-starter' },
    u32('kortty.generator_version', LEXICAL_GENERATOR_VERSION),
    u32('kortty.seed', p.seed >>> 0),
    { key: 'kortty.idf_weighting', type: GgufType.BOOL, value: p.idfWeighting },
    ...tokenizer,
  ];
  const typeCount = (get('tokenizer.ggml.token_type_count') as number | undefined) ?? 2;
  const zt = p.zeroType ?? 'f16';
  const tensors: GgufTensorInput[] = [
    f16('token_embd.weight', [d, n], emb),
    f32('token_types.weight', [d, typeCount], new Float32Array(d * typeCount)),
    f16('position_embd.weight', [d, p.contextLength], new Float32Array(d * p.contextLength)),
    f32('token_embd_norm.weight', [d], ones),
    f32('token_embd_norm.bias', [d], zeros),
    zeroMatrix('blk.0.attn_q.weight', [d, d], zt),
    zeroMatrix('blk.0.attn_k.weight', [d, d], zt),
    zeroMatrix('blk.0.attn_v.weight', [d, d], zt),
    zeroMatrix('blk.0.attn_output.weight', [d, d], zt),
    f32('blk.0.attn_output_norm.weight', [d], ones),
    f32('blk.0.attn_output_norm.bias', [d], zeros),
    zeroMatrix('blk.0.ffn_up.weight', [d, FFN], zt),
    zeroMatrix('blk.0.ffn_down.weight', [FFN, d], zt),
    f32('blk.0.layer_output_norm.weight', [d], ones),
    f32('blk.0.layer_output_norm.bias', [d], zeros),
  ];
  return { metadata, tensors };
}
