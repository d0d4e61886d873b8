// The baseline every ranking claim is measured against: textbook Okapi BM25 (Robertson & Zaragoza
// 2009) over the same chunks search() ranks, written plainly and independent of src/index. No
// stemming, no stop words, no fields, no proximity: a token is a maximal run of ASCII letters and
// digits, lowercased. Pure.
//
//   score(D, Q) = Σ_{t ∈ Q, distinct} idf(t) · tf(t, D) · (k1 + 1) / (tf(t, D) + k1 · (1 − b + b · |D| / avgdl))
//   idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// The idf is the non-negative form (Lucene's): the original ln((N − df + 0.5) / (df + 0.5)) turns
// negative for terms in more than half the chunks, which would make a matching word lower a
// score. Query terms count once each (a long selection repeating a word does not weigh it more).

export const TEXTBOOK_K1 = 1.2;
export const TEXTBOOK_B = 0.75;

export function textbookTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

export interface TextbookIndex {
  /** term → (chunk ordinal, term frequency) pairs. */
  postings: Map<string, { chunk: number; tf: number }[]>;
  lengths: number[];
  avgLength: number;
}

export function buildTextbookIndex(chunks: readonly string[]): TextbookIndex {
  const postings = new Map<string, { chunk: number; tf: number }[]>();
  const lengths: number[] = [];
  chunks.forEach((text, chunk) => {
    const tokens = textbookTokens(text);
    lengths.push(tokens.length);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      const list = postings.get(t);
      if (list) list.push({ chunk, tf: n });
      else postings.set(t, [{ chunk, tf: n }]);
    }
  });
  const total = lengths.reduce((s, n) => s + n, 0);
  return { postings, lengths, avgLength: lengths.length > 0 ? total / lengths.length : 0 };
}

/** The best `k` chunks for `query`, best first; ties go to the lower ordinal. Chunks matching no term are left out. */
export function rankTextbook(
  index: TextbookIndex,
  query: string,
  k: number,
  k1 = TEXTBOOK_K1,
  b = TEXTBOOK_B,
): { chunk: number; score: number }[] {
  const n = index.lengths.length;
  const scores = new Map<number, number>();
  for (const term of new Set(textbookTokens(query))) {
    const list = index.postings.get(term);
    if (!list) continue;
    const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
    for (const { chunk, tf } of list) {
      const norm = k1 * (1 - b + (b * index.lengths[chunk]!) / index.avgLength);
      scores.set(chunk, (scores.get(chunk) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
    }
  }
  return [...scores]
    .map(([chunk, score]) => ({ chunk, score }))
    .sort((x, y) => y.score - x.score || x.chunk - y.chunk)
    .slice(0, k);
}
