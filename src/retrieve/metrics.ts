// Retrieval-quality metrics over one query's ranking (pure). A ranking is a list of document ids,
// best first; judgements map a document id to its gain (> 0 = relevant; absent or 0 = not).
// Callers average over queries with at least one relevant document (a query with none has no
// defined recall or nDCG, and counting it as 0 would only measure the judgements).

export type Judgements = ReadonlyMap<string, number>;

/** First occurrence of each id, order kept: several chunks of one document count once. */
export function dedupe(ids: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

export function relevantCount(judged: Judgements): number {
  let n = 0;
  for (const g of judged.values()) if (g > 0) n++;
  return n;
}

/** Share of the relevant documents among the first `k` distinct ids (0 when nothing is relevant). */
export function recallAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const total = relevantCount(judged);
  if (total === 0) return 0;
  let hits = 0;
  for (const id of dedupe(ranked).slice(0, k)) if ((judged.get(id) ?? 0) > 0) hits++;
  return hits / total;
}

/** 1 / rank of the first relevant document, 0 when none is in the ranking. */
export function reciprocalRank(ranked: readonly string[], judged: Judgements): number {
  const ids = dedupe(ranked);
  for (let i = 0; i < ids.length; i++) if ((judged.get(ids[i]!) ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

/**
 * nDCG@k with linear gains: DCG = Σ gain(d_i) / log2(i + 1) over ranks i = 1..k, divided by the
 * DCG of the ideal ordering of all judged documents (Järvelin & Kekäläinen 2002).
 */
export function ndcgAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const dcg = (gains: number[]) => gains.slice(0, k).reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const ideal = dcg([...judged.values()].filter((g) => g > 0).sort((a, b) => b - a));
  if (ideal === 0) return 0;
  return dcg(dedupe(ranked).map((id) => Math.max(0, judged.get(id) ?? 0))) / ideal;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}
