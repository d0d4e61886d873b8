import type { FusionOptions } from './fuse.js';

// Default fusion weights by embedding model, from `npm run eval` on Cranfield (docs/EVAL.md).
// The lexical starter model's vectors are a noisier copy of BM25's own word-matching evidence:
// at 1:1 they reorder BM25's best hits and hybrid falls below lexical (nDCG@10 -0.018, MRR -0.039).
// At 0.15:1 hybrid matches lexical within noise. Weights are normalised to sum 2 so fused scores
// stay comparable with 1:1 stores when several stores are merged into one ranking.
// Semantic models keep RRF's standard k = 60 and equal weights.

const STARTER: FusionOptions = { k: 60, vectorWeight: 0.26, lexicalWeight: 1.74 };
const STANDARD: FusionOptions = { k: 60, vectorWeight: 1, lexicalWeight: 1 };

export function defaultFusionFor(modelId: string): FusionOptions {
  return modelId === 'kortty-lexical-starter' ? STARTER : STANDARD;
}
