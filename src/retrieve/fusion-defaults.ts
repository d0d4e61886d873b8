import type { FusionOptions } from './fuse.js';

// Default fusion weights by embedding model, from `npm run eval` on Cranfield (docs/EVAL.md).
// The lexical starter model's vectors carry words only: a noisier copy of the lexical side's own
// word-matching evidence. Against BM25F with stems, fields and proximity, no fusion weight makes
// its vector list help (Cranfield nDCG@10: 1:1 -0.038, 0.15:1 -0.001, MRR -0.011; the best grid
// cells gain +0.003, within noise), and on a held-out set of man-page questions fusing it in cost
// 0.03 recall@6 and 0.05 MRR. So the starter family ranks lexically: its vector hits only fill
// the list after every lexical hit (a query with no word in the store still gets an answer).
// Weights sum to 2 so fused scores stay comparable with 1:1 stores when several stores are
// merged into one ranking. Semantic models keep RRF's standard k = 60 and equal weights.

const STARTER: FusionOptions = { k: 60, vectorWeight: 0, lexicalWeight: 2 };
const STANDARD: FusionOptions = { k: 60, vectorWeight: 1, lexicalWeight: 1 };

export function defaultFusionFor(modelId: string): FusionOptions {
  return modelId === 'kortty-lexical-starter' ? STARTER : STANDARD;
}
