import type { TermWalk } from './term-walk.js';

// Term proximity after Büttcher, Clarke & Lushman (2006), "Term proximity scoring for ad-hoc
// retrieval on very large text collections" (pure). Walking the body's occurrences of the query's
// stems in order (term-walk.ts), each pair of neighbouring occurrences of two different terms at
// distance d adds idf(other) / d² to both terms' accumulators; a term's bonus saturates like BM25:
//   bonus = Σ_t min(1, idf_t) × (k1 + 1) × acc_t / (acc_t + K),   K = k1 × (1 − b + b × len / avglen)
// so a phrase (d = 1) of rare terms earns most, far-apart terms almost nothing, and one term
// alone nothing. Title and headings are not walked: their terms already weigh through BM25F.

/** The proximity bonus (before the caller's weight) of a walk over query stems with their idf. */
export function proximityBonus(
  walk: TermWalk,
  idfOf: ReadonlyMap<string, number>,
  k1: number,
  lengthNorm: number,
): number {
  if (idfOf.size < 2) return 0;
  const acc = new Map<string, number>();
  let lastTerm = '';
  let lastPos = -1;
  for (let i = 0; i < walk.terms.length; i++) {
    const term = walk.terms[i]!;
    const idf = idfOf.get(term);
    if (idf === undefined) continue;
    const pos = walk.positions[i]!;
    if (lastTerm !== '' && lastTerm !== term) {
      const d = Math.max(1, pos - lastPos);
      const dd = d * d;
      acc.set(term, (acc.get(term) ?? 0) + idfOf.get(lastTerm)! / dd);
      acc.set(lastTerm, (acc.get(lastTerm) ?? 0) + idf / dd);
    }
    lastTerm = term;
    lastPos = pos;
  }
  const K = k1 * lengthNorm;
  let bonus = 0;
  for (const [term, a] of acc) bonus += (Math.min(1, idfOf.get(term)!) * (k1 + 1) * a) / (a + K);
  return bonus;
}
