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

// Lexical ranking of a snapshot (pure): BM25F and the name match (bm25.ts), a chunk of a long
// document damped (MANY_CHUNKS_DAMPING), pick the best RERANK_DEPTH chunks, a proximity bonus (proximity.ts) and the best paragraph's score
// (passage.ts) re-order them, a document's title match stays with its best chunk only, and each hit
// says why it scored (matched terms, each signal's share). Only the top of the BM25F list is
// re-ranked, so the cost of reading positions is bounded whatever the store's size.

/** How many BM25F hits the proximity and passage signals re-rank (at least the k asked for). */
export const RERANK_DEPTH = 40;

export interface LexicalHit extends SearchHit {
  explain: LexicalExplain;
}

/**
 * The k best chunks for `query`, explained. `documentOf[ordinal]` is a chunk's document: with it,
 * a document's title match counts for its best chunk only.
 */
export function searchLexical(
  index: Bm25Index,
  query: string,
  k: number,
  textOf: (ordinal: number) => string,
  allowed?: Uint8Array,
  weights: LexicalWeights = DEFAULT_WEIGHTS,
  names: readonly NameMatch[] = [],
  documentOf?: Uint32Array,
): LexicalHit[] {
  const terms = queryTerms(query, weights);
  const damping = documentOf ? dampingOf(documentOf) : undefined;
  const hits = searchBm25F(index, terms, Math.max(k, RERANK_DEPTH), allowed, weights, names, damping);
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
  const scored = hits.map((h, i) => {
    const matchedStems = matchedOf[i]!;
    const walk = walks[i];
    const norm = 1 - b + (b * index.docLengths[h.chunkOrdinal]!) / avgdl;
    const proximity =
      walk && weights.proximity > 0 && matchedStems.size > 1
        ? weights.proximity * proximityBonus(walk, matchedStems, k1, norm)
        : 0;
    const passage =
      walk && weights.passage > 0 ? weights.passage * passageScore(walk, matchedStems, k1, avgParagraph) : 0;
    const f = damping ? damping[h.chunkOrdinal]! : 1;
    return {
      h,
      proximity: proximity * f,
      passage: passage * f,
      titleMatch: h.titleMatchScore,
      score: h.score + (proximity + passage) * f,
    };
  });
  byScore(scored);
  // The title match is the document's, not each chunk's: only its best chunk keeps it, so a page
  // whose title fits the question does not fill the block with its chunks on that alone.
  if (documentOf) {
    const seen = new Set<number>();
    for (const x of scored) {
      const doc = documentOf[x.h.chunkOrdinal]!;
      if (!seen.has(doc)) seen.add(doc);
      else if (x.titleMatch > 0) {
        x.score -= x.titleMatch;
        x.titleMatch = 0;
      }
    }
    byScore(scored);
  }
  return scored.slice(0, k).map(({ h, proximity, passage, titleMatch, score }) => {
    const share = (x: number) => (score > 0 ? x / score : 0);
    const title = h.titleScore - h.titleMatchScore + titleMatch;
    const explain: LexicalExplain = {
      matched: h.matched.map((qi) => terms[qi]!.term),
      shares: {
        title: share(title),
        headings: share(h.headingScore),
        body: share(h.score - h.titleScore - h.headingScore - h.nameScore),
        proximity: share(proximity),
        passage: share(passage),
        name: share(h.nameScore),
      },
    };
    return { chunkOrdinal: h.chunkOrdinal, score, explain };
  });
}

function byScore(list: { h: { chunkOrdinal: number }; score: number }[]): void {
  list.sort((a, b) => b.score - a.score || a.h.chunkOrdinal - b.h.chunkOrdinal);
}

/**
 * How much less a chunk weighs on its words for each e-fold of its document's chunk count: a chunk
 * of a document of N chunks scores 1 / (1 + MANY_CHUNKS_DAMPING · ln N) of its BM25F, proximity
 * and passage score (its name bonus stays whole). A document is ranked by its best chunk, and the
 * best of many chunks is a biased draw: one of a long manual's chunks (git-log has 40) holds a
 * question's common words, and it outranked the short page the question is about. Chosen on the
 * question sets of docs/EVAL.md (fifth round); 0.25 cost the option questions 0.09 MRR.
 */
export const MANY_CHUNKS_DAMPING = 0.05;

const dampings = new WeakMap<Uint32Array, Float64Array>();

/** Each chunk's damping factor (see MANY_CHUNKS_DAMPING), computed once per snapshot. */
function dampingOf(documentOf: Uint32Array): Float64Array {
  let out = dampings.get(documentOf);
  if (out) return out;
  let docs = 0;
  for (const d of documentOf) docs = Math.max(docs, d + 1);
  const count = new Uint32Array(docs);
  for (const d of documentOf) count[d]!++;
  out = new Float64Array(documentOf.length);
  for (let i = 0; i < documentOf.length; i++)
    out[i] = 1 / (1 + MANY_CHUNKS_DAMPING * Math.log(count[documentOf[i]!]!));
  dampings.set(documentOf, out);
  return out;
}
