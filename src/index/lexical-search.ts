import type { LexicalExplain } from '../types.js';
import {
  type Bm25Index,
  bm25Idf,
  DEFAULT_WEIGHTS,
  findTerm,
  type LexicalWeights,
  type NameMatch,
  queryTerms,
  searchBm25F,
} from './bm25.js';
import { meanParagraphLength, passageScore } from './passage.js';
import { proximityBonus } from './proximity.js';
import type { SearchHit } from './snapshot-types.js';
import { walkTerms } from './term-walk.js';

// Lexical ranking of a snapshot (pure): BM25F and the name match (bm25.ts) pick the best
// RERANK_DEPTH chunks, a proximity bonus (proximity.ts) and the best paragraph's score
// (passage.ts) re-order them, and each hit says why it scored (matched terms, each signal's
// share). Only the top of the BM25F list is re-ranked, so the cost of reading positions is bounded
// whatever the store's size.

/** How many BM25F hits the proximity and passage signals re-rank (at least the k asked for). */
export const RERANK_DEPTH = 40;

export interface LexicalHit extends SearchHit {
  explain: LexicalExplain;
}

export function searchLexical(
  index: Bm25Index,
  query: string,
  k: number,
  textOf: (ordinal: number) => string,
  allowed?: Uint8Array,
  weights: LexicalWeights = DEFAULT_WEIGHTS,
  names: readonly NameMatch[] = [],
): LexicalHit[] {
  const terms = queryTerms(query, weights);
  const hits = searchBm25F(index, terms, Math.max(k, RERANK_DEPTH), allowed, weights, names);
  const idfOf = new Map<string, number>();
  for (const { term, primary } of terms) {
    const t = primary ? findTerm(index, term) : -1;
    if (t >= 0) idfOf.set(term, bm25Idf(index.docCount, index.df[t]!));
  }
  const { k1, b } = index.params;
  const avgdl = index.totalLength / index.docCount || 1;
  const matchedOf = hits.map((h) => {
    const matchedStems = new Map<string, number>();
    for (const qi of h.matched) {
      const idf = idfOf.get(terms[qi]!.term);
      if (idf !== undefined) matchedStems.set(terms[qi]!.term, idf);
    }
    return matchedStems;
  });
  const positional = weights.proximity > 0 || weights.passage > 0;
  const walks = hits.map((h, i) =>
    positional && matchedOf[i]!.size > 0 ? walkTerms(textOf(h.chunkOrdinal), matchedOf[i]!) : undefined,
  );
  const avgParagraph = meanParagraphLength(walks.filter((w) => w !== undefined));
  const ranked = hits.map((h, i) => {
    const matchedStems = matchedOf[i]!;
    const walk = walks[i];
    const norm = 1 - b + (b * index.docLengths[h.chunkOrdinal]!) / avgdl;
    const proximity =
      walk && weights.proximity > 0 && matchedStems.size > 1
        ? weights.proximity * proximityBonus(walk, matchedStems, k1, norm)
        : 0;
    const passage =
      walk && weights.passage > 0 ? weights.passage * passageScore(walk, matchedStems, k1, avgParagraph) : 0;
    const score = h.score + proximity + passage;
    const share = (x: number) => (score > 0 ? x / score : 0);
    const explain: LexicalExplain = {
      matched: h.matched.map((qi) => terms[qi]!.term),
      shares: {
        title: share(h.titleScore),
        headings: share(h.headingScore),
        body: share(h.score - h.titleScore - h.headingScore - h.nameScore),
        proximity: share(proximity),
        passage: share(passage),
        name: share(h.nameScore),
      },
    };
    return { chunkOrdinal: h.chunkOrdinal, score, explain };
  });
  ranked.sort((a, b) => b.score - a.score || a.chunkOrdinal - b.chunkOrdinal);
  return ranked.slice(0, k);
}
