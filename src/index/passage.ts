import type { TermWalk } from './term-walk.js';

// Passage evidence after Callan (1994), "Passage-level evidence in document retrieval" (pure).
// A chunk of a manual holds a dozen option paragraphs, and a question about one option is
// answered by one of them, while the chunk's BM25 adds up words scattered over all of them. The
// best paragraph's BM25 over the query's stems is added to the chunk's score:
//   passage = max over paragraphs p of Σ_t idf_t × (k1 + 1) × tf_t,p / (tf_t,p + k1 × (1 − b + b × len_p / avglen))
// Paragraphs end at blank lines (term-walk.ts). avglen is the mean paragraph length of the hits
// being re-ranked, so no corpus statistic is needed in the snapshot.

/** Paragraph length normalisation: a long paragraph should not win by its length alone. */
export const PASSAGE_B = 0.9;

/** The best paragraph's BM25 (before the caller's weight) for query stems with their idf. */
export function passageScore(
  walk: TermWalk,
  idfOf: ReadonlyMap<string, number>,
  k1: number,
  avgLength: number,
  b = PASSAGE_B,
): number {
  let best = 0;
  let i = 0;
  const n = walk.terms.length;
  while (i < n) {
    const p = walk.paragraphs[i]!;
    const tf = new Map<string, number>();
    for (; i < n && walk.paragraphs[i] === p; i++) {
      const term = walk.terms[i]!;
      if (idfOf.has(term)) tf.set(term, (tf.get(term) ?? 0) + 1);
    }
    const norm = 1 - b + (b * walk.paragraphLengths[p]!) / (avgLength || 1);
    let score = 0;
    for (const [term, f] of tf) score += (idfOf.get(term)! * (k1 + 1) * f) / (f + k1 * norm);
    if (score > best) best = score;
  }
  return best;
}

/** Mean paragraph length over several walks (1 when there are no paragraphs). */
export function meanParagraphLength(walks: readonly TermWalk[]): number {
  let sum = 0;
  let n = 0;
  for (const { paragraphLengths } of walks) {
    for (const l of paragraphLengths) sum += l;
    n += paragraphLengths.length;
  }
  return n > 0 ? sum / n : 1;
}
