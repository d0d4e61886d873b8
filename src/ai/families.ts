// Model families select a prompt preset (src/ai/presets/<family>.json). Pure.

export const MODEL_FAMILIES = ['generic', 'qwen', 'llama', 'mistral', 'gemma', 'phi', 'deepseek'] as const;
export type ModelFamily = (typeof MODEL_FAMILIES)[number];

// First match wins: DeepSeek-R1 distills carry "qwen"/"llama" in their names but use DeepSeek's template.
const PATTERNS: [ModelFamily, RegExp][] = [
  ['deepseek', /deepseek/],
  ['qwen', /qwen|qwq/],
  ['mistral', /mistral|mixtral|codestral|devstral|magistral|ministral/],
  ['gemma', /gemma/],
  ['phi', /(^|[^a-z])phi[-_.]?\d/],
  ['llama', /llama/],
];

/** Guess the family from a model path or name (`qwen2.5-7b-instruct-q4_k_m.gguf` → qwen). */
export function detectFamily(model: string): ModelFamily {
  const base = model.toLowerCase().split(/[\\/]/).pop() ?? '';
  for (const [family, re] of PATTERNS) if (re.test(base)) return family;
  return 'generic';
}
