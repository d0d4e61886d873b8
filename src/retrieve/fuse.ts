// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): score(d) = Σ w_i / (k + rank_i(d)).
// Scores of different retrievers (cosine vs BM25) are not comparable; ranks are, which is why
// fusion uses ranks only. Pure and deterministic: the same rankings give the same order.

export const RRF_K = 60;

export interface FusionInput {
  /** Chunk keys best first (HNSW cosine). Omit or pass [] for lexical-only search. */
  vector?: readonly string[];
  /** Chunk keys best first (BM25). Omit or pass [] for vector-only search. */
  lexical?: readonly string[];
}

export interface FusionOptions {
  /** Damping constant; larger k flattens the advantage of top ranks. Default 60. */
  k?: number;
  vectorWeight?: number;
  lexicalWeight?: number;
}

export interface FusedEntry {
  key: string;
  /** 1-based rank in the vector list, absent when the key was not there. */
  vectorRank?: number;
  lexicalRank?: number;
  fusedScore: number;
}

/**
 * Fuse a vector and a lexical ranking. A key listed twice in one list keeps its first (best)
 * rank. Order: fused score descending, then the better of the two ranks, then vector rank,
 * then lexical rank, then key (code-unit order) — so ties never depend on input object order.
 */
export function fuseRankings(input: FusionInput, opts: FusionOptions = {}): FusedEntry[] {
  const { k, vectorWeight: wv, lexicalWeight: wl } = fusionSettings(opts);

  const byKey = new Map<string, FusedEntry>();
  const entry = (key: string): FusedEntry => {
    let e = byKey.get(key);
    if (!e) {
      e = { key, fusedScore: 0 };
      byKey.set(key, e);
    }
    return e;
  };
  (input.vector ?? []).forEach((key, i) => {
    const e = entry(key);
    if (e.vectorRank === undefined) e.vectorRank = i + 1;
  });
  (input.lexical ?? []).forEach((key, i) => {
    const e = entry(key);
    if (e.lexicalRank === undefined) e.lexicalRank = i + 1;
  });
  const settings = { k, vectorWeight: wv, lexicalWeight: wl };
  for (const e of byKey.values()) e.fusedScore = rrfScore(settings, e.vectorRank, e.lexicalRank);
  return [...byKey.values()].sort(compareFused);
}

/** The options with defaults applied; a negative or non-finite k or weight is refused. */
export function fusionSettings(opts: FusionOptions = {}): Required<FusionOptions> {
  const k = opts.k ?? RRF_K;
  const wv = opts.vectorWeight ?? 1;
  const wl = opts.lexicalWeight ?? 1;
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`RRF k must be a finite number >= 0, got ${k}`);
  for (const [name, w] of [
    ['vectorWeight', wv],
    ['lexicalWeight', wl],
  ] as const) {
    if (!(w >= 0) || !Number.isFinite(w))
      throw new RangeError(`${name} must be a finite number >= 0, got ${w}`);
  }
  return { k, vectorWeight: wv, lexicalWeight: wl };
}

/**
 * Σ w / (k + rank) over the lists a key is in. Summed in a fixed order (vector, then lexical) so
 * floating-point results are reproducible. Ranks may be fractional (see merge.ts).
 */
export function rrfScore(f: Required<FusionOptions>, vectorRank?: number, lexicalRank?: number): number {
  let s = 0;
  if (vectorRank !== undefined) s += f.vectorWeight / (f.k + vectorRank);
  if (lexicalRank !== undefined) s += f.lexicalWeight / (f.k + lexicalRank);
  return s;
}

const INF = Number.POSITIVE_INFINITY;

export function compareFused(a: FusedEntry, b: FusedEntry): number {
  if (a.fusedScore !== b.fusedScore) return b.fusedScore - a.fusedScore;
  const bestA = Math.min(a.vectorRank ?? INF, a.lexicalRank ?? INF);
  const bestB = Math.min(b.vectorRank ?? INF, b.lexicalRank ?? INF);
  if (bestA !== bestB) return bestA - bestB;
  const va = a.vectorRank ?? INF;
  const vb = b.vectorRank ?? INF;
  if (va !== vb) return va - vb;
  const la = a.lexicalRank ?? INF;
  const lb = b.lexicalRank ?? INF;
  if (la !== lb) return la - lb;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
