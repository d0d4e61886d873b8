import { createError } from '../errors.js';
import { GgmlType, type GgufKv, GgufType } from './gguf-format.js';
import type { GgufTensorInput, GgufWriteInput } from './gguf-writer.js';
import { createGaussian } from './prng.js';

// A tiny llama-architecture chat model with seeded random weights: its answers are gibberish,
// but node-llama-cpp loads it, applies its chat template and generates tokens, so the local chat
// path can be exercised end to end. The Qwen2 byte-level BPE vocabulary is cut to its first
// `vocabSize` tokens (BPE ids follow merge order, so merges among kept tokens stay valid; longer
// merges fall back to byte tokens) plus the ChatML control tokens.

export interface ChatModelParams {
  seed: number;
  /** Regular tokens kept from the vocabulary (the first N ids). */
  vocabSize: number;
  dimension: number;
  layers: number;
  heads: number;
  feedForward: number;
  contextLength: number;
  name: string;
}

export const CHAT_GENERATOR_VERSION = 1;
const CONTROL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
const CONTROL_TYPE = 3;

/** Qwen2's ChatML template (as shipped in the Qwen2 vocabulary). */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}" +
  "{{ '<|im_start|>system\nYou are a helpful assistant<|im_end|>\n' }}{% endif %}" +
  "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/** Cut a byte-level BPE vocabulary to its first `keep` tokens plus the ChatML control tokens. */
export function truncateBpeVocab(vocab: GgufKv[], keep: number) {
  const get = (key: string) => vocab.find((kv) => kv.key === key)?.value;
  const tokens = get('tokenizer.ggml.tokens') as string[] | undefined;
  const merges = get('tokenizer.ggml.merges') as string[] | undefined;
  if (get('tokenizer.ggml.model') !== 'gpt2' || !tokens || !merges) {
    throw createError('INVALID_ARGUMENT', {
      name: 'model parameters',
      reason: 'truncateBpeVocab needs a byte-level BPE vocabulary with merges',
    });
  }
  const kept = tokens.slice(0, keep);
  const index = new Map(kept.map((t, i) => [t, i]));
  const keptMerges = merges.filter((m) => {
    const sp = m.indexOf(' ');
    const a = m.slice(0, sp);
    const b = m.slice(sp + 1);
    return index.has(a) && index.has(b) && index.has(a + b);
  });
  return {
    tokens: [...kept, ...CONTROL],
    types: [...kept.map(() => 1), ...CONTROL.map(() => CONTROL_TYPE)],
    merges: keptMerges,
    pre: (get('tokenizer.ggml.pre') as string | undefined) ?? 'qwen2',
  };
}

export function buildChatModel(vocab: GgufKv[], p: ChatModelParams): GgufWriteInput {
  const v = truncateBpeVocab(vocab, p.vocabSize);
  const n = v.tokens.length;
  const eot = n - 3; // <|endoftext|>
  const d = p.dimension;
  const headDim = d / p.heads;
  if (!Number.isInteger(headDim) || headDim % 2 !== 0)
    throw createError('INVALID_ARGUMENT', {
      name: 'model parameters',
      reason: 'dimension / heads must be an even integer',
    });
  const gauss = createGaussian(p.seed);
  const rand = (count: number, std: number) => {
    const a = new Float32Array(count);
    for (let i = 0; i < count; i++) a[i] = gauss() * std;
    return a;
  };
  const t = (name: string, dims: number[], data: Float32Array): GgufTensorInput => ({
    name,
    dims,
    type: GgmlType.F32,
    data,
  });
  const ones = () => new Float32Array(d).fill(1);
  const std = 1 / Math.sqrt(d);
  const output = rand(d * n, std);
  // Zero output rows for control tokens: their logit is 0 while the best random logit is positive,
  // so greedy decoding keeps producing text until maxTokens instead of stopping at once.
  output.fill(0, (n - CONTROL.length) * d);
  const tensors: GgufTensorInput[] = [
    t('token_embd.weight', [d, n], rand(d * n, 1)),
    t('output_norm.weight', [d], ones()),
    t('output.weight', [d, n], output),
  ];
  for (let l = 0; l < p.layers; l++) {
    tensors.push(
      t(`blk.${l}.attn_norm.weight`, [d], ones()),
      t(`blk.${l}.attn_q.weight`, [d, d], rand(d * d, std)),
      t(`blk.${l}.attn_k.weight`, [d, d], rand(d * d, std)),
      t(`blk.${l}.attn_v.weight`, [d, d], rand(d * d, std)),
      t(`blk.${l}.attn_output.weight`, [d, d], rand(d * d, std)),
      t(`blk.${l}.ffn_norm.weight`, [d], ones()),
      t(`blk.${l}.ffn_gate.weight`, [d, p.feedForward], rand(d * p.feedForward, std)),
      t(`blk.${l}.ffn_up.weight`, [d, p.feedForward], rand(d * p.feedForward, std)),
      t(
        `blk.${l}.ffn_down.weight`,
        [p.feedForward, d],
        rand(p.feedForward * d, 1 / Math.sqrt(p.feedForward)),
      ),
    );
  }
  const u32 = (key: string, value: number): GgufKv => ({ key, type: GgufType.UINT32, value });
  const str = (key: string, value: string): GgufKv => ({ key, type: GgufType.STRING, value });
  const strs = (key: string, value: string[]): GgufKv => ({
    key,
    type: GgufType.ARRAY,
    itemType: GgufType.STRING,
    value,
  });
  const metadata: GgufKv[] = [
    str('general.architecture', 'llama'),
    str('general.name', p.name),
    u32('general.file_type', 0), // all F32
    u32('llama.block_count', p.layers),
    u32('llama.context_length', p.contextLength),
    u32('llama.embedding_length', d),
    u32('llama.feed_forward_length', p.feedForward),
    u32('llama.attention.head_count', p.heads),
    u32('llama.attention.head_count_kv', p.heads),
    u32('llama.rope.dimension_count', headDim),
    { key: 'llama.rope.freq_base', type: GgufType.FLOAT32, value: 10000 },
    { key: 'llama.attention.layer_norm_rms_epsilon', type: GgufType.FLOAT32, value: 1e-6 },
    u32('llama.vocab_size', n),
    str('kortty.generator', 'tiny-chat'),
    u32('kortty.generator_version', CHAT_GENERATOR_VERSION),
    u32('kortty.seed', p.seed >>> 0),
    str('tokenizer.ggml.model', 'gpt2'),
    str('tokenizer.ggml.pre', v.pre),
    strs('tokenizer.ggml.tokens', v.tokens),
    { key: 'tokenizer.ggml.token_type', type: GgufType.ARRAY, itemType: GgufType.INT32, value: v.types },
    strs('tokenizer.ggml.merges', v.merges),
    u32('tokenizer.ggml.bos_token_id', eot),
    u32('tokenizer.ggml.eos_token_id', eot + 2), // <|im_end|> ends a turn
    u32('tokenizer.ggml.padding_token_id', eot),
    { key: 'tokenizer.ggml.add_bos_token', type: GgufType.BOOL, value: false },
    str('tokenizer.chat_template', CHATML_TEMPLATE),
  ];
  return { metadata, tensors };
}
