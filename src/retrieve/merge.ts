import type { Candidate } from '../types.js';
import { compareFused, type FusionOptions, fusionSettings, rrfScore } from './fuse.js';

// Merging several stores into one ranking (pure). Reciprocal rank fusion assumes each list ranks
// the whole collection; fusing every store on its own and concatenating the results breaks that:
// each store's best hit gets the same top score whatever its match quality, so the only hit of a
// tiny unrelated store sits next to the best hit of the relevant one. Instead the stores' hits
// form global lists before fusion, and a hit earns its rank against every store's hits:
//   - lexical: one list of all stores' BM25 hits by `lexicalMatch`, the score as a share of its
//     store's ceiling for the query (src/index/bm25.ts `bm25Ceiling`): the idf-weighted share of
//     the query's terms the chunk matches, where a term the store lacks counts against it. Raw
//     BM25 scores of different stores do not compare (idf and lengths are per store), and
//     scoring every store with summed statistics would reorder each store's own hits whenever
//     another store is added; a share keeps each store's order and compares across stores;
//   - vector: one list per embedding space (model fingerprint) by cosine. Cosines of one model are
//     comparable across stores (a Qdrant store of that model included); cosines of different
//     models are not, so each model's list keeps its own ranks, spread over the merged scale in
//     proportion to the chunks that model's stores hold: rank r of a space holding a share p of
//     the chunks counts as rank (r − ½)/p + ½ (r itself when there is one space, an even
//     interleave for two equal spaces);
//   - fusion: Σ w / (k + rank) with the weights of the hit's own store, scaled by
//     (wv + wl) / (the weights of the lists the store was searched with), so a vector-only store
//     (Qdrant) is not capped at half of a hybrid store's score. A hybrid store whose lexical list
//     is empty for this query was searched lexically and gets no such scaling.
// Ties between stores break by store id, then by position. With one store this is exactly
// `fuseRankings` over its two lists, and adding a store never reorders another store's hits
// within the lexical or the vector list.

export interface StoreHits {
  storeId: string;
  fusion: FusionOptions;
  /** Whether the store was searched by vector / lexically (a Qdrant store has no lexical index). */
  searchedVector: boolean;
  searchedLexical: boolean;
  /** Identity of the embedding space of the vector hits (the model fingerprint). */
  space: string;
  /** Chunks the store can return (its enabled sources). */
  chunks: number;
  /** Best first, `vectorScore` set. */
  vector: readonly Candidate[];
  /** Best first, `lexicalScore` and (when the store has statistics) `lexicalMatch` set. */
  lexical: readonly Candidate[];
}

/** Fused candidates of all stores, best first (`compareFused`), duplicates by key merged. */
export function mergeStores(stores: readonly StoreHits[], perList: number): Candidate[] {
  const order = [...stores].sort((a, b) => (a.storeId < b.storeId ? -1 : a.storeId > b.storeId ? 1 : 0));
  const lexical = topByScore(
    order.filter((s) => s.searchedLexical).map((s) => s.lexical),
    (c) => c.lexicalMatch ?? c.lexicalScore,
    perList,
  );
  const spaces = new Map<string, StoreHits[]>();
  for (const s of order.filter((x) => x.searchedVector)) {
    const list = spaces.get(s.space);
    if (list) list.push(s);
    else spaces.set(s.space, [s]);
  }
  const chunksOf = (ss: StoreHits[]) =>
    Math.max(
      1,
      ss.reduce((n, s) => n + s.chunks, 0),
    );
  const total = [...spaces.values()].reduce((n, ss) => n + chunksOf(ss), 0);

  interface Entry {
    c: Candidate;
    vectorRank?: number;
    spreadRank?: number;
    lexicalRank?: number;
  }
  const byKey = new Map<string, Entry>();
  const entry = (c: Candidate): Entry => {
    const e = byKey.get(c.key);
    if (!e) {
      const fresh = { c };
      byKey.set(c.key, fresh);
      return fresh;
    }
    e.c = { ...e.c, ...definedOnly(c) };
    return e;
  };
  for (const ss of spaces.values()) {
    const share = spaces.size > 1 ? chunksOf(ss) / total : 1;
    const list = topByScore(
      ss.map((s) => s.vector),
      (c) => c.vectorScore,
      perList,
    );
    list.forEach((c, i) => {
      const e = entry(c);
      if (e.vectorRank !== undefined) return;
      e.vectorRank = i + 1;
      e.spreadRank = share === 1 ? i + 1 : (i + 0.5) / share + 0.5;
    });
  }
  lexical.forEach((c, i) => {
    const e = entry(c);
    if (e.lexicalRank === undefined) e.lexicalRank = i + 1;
  });

  const storeOf = new Map(order.map((s) => [s.storeId, s]));
  const out: Candidate[] = [];
  for (const e of byKey.values()) {
    const s = storeOf.get(e.c.storeId)!;
    const f = fusionSettings(s.fusion);
    const searched = (s.searchedVector ? f.vectorWeight : 0) + (s.searchedLexical ? f.lexicalWeight : 0);
    const scale = searched > 0 ? (f.vectorWeight + f.lexicalWeight) / searched : 1;
    const score = rrfScore(f, e.spreadRank, e.lexicalRank);
    out.push({
      ...e.c,
      vectorRank: e.vectorRank,
      lexicalRank: e.lexicalRank,
      fusedScore: scale === 1 ? score : score * scale,
    });
  }
  return out.sort(compareFused);
}

/**
 * The `k` best of several best-first lists by score; ties keep list order, then position, so one
 * list comes back unchanged (its own order, e.g. BM25's lower-ordinal tie-break).
 */
function topByScore(
  lists: readonly (readonly Candidate[])[],
  score: (c: Candidate) => number | undefined,
  k: number,
): Candidate[] {
  if (lists.length === 1) return lists[0]!.slice(0, k);
  const all = lists.flatMap((l, li) => l.map((c, pos) => ({ c, s: score(c) ?? -Infinity, li, pos })));
  all.sort((a, b) => b.s - a.s || a.li - b.li || a.pos - b.pos);
  return all.slice(0, k).map((x) => x.c);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
