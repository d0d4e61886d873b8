import { createError } from '../errors.js';
import { VarintWriter } from './binary.js';
import type { Bm25Params, SearchHit } from './snapshot-types.js';
import { forEachToken, tokenize } from './tokenize.js';
import { TopK } from './top-k.js';

// Okapi BM25 over chunk texts (pure). The index is a sorted term dictionary and varint-coded
// posting lists in flat typed arrays: the same shape in memory and in the snapshot, so opening
// a snapshot costs one copy instead of re-tokenising every chunk (measured: bench/index-bench.ts).

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export interface Bm25Index {
  params: Bm25Params;
  docCount: number;
  /** Sum of document lengths in tokens (avgdl = totalLength / docCount). */
  totalLength: number;
  docLengths: Uint32Array;
  /** Terms sorted by UTF-16 code units, UTF-8 concatenated; term i = termBytes[termOffsets[i]..[i+1]). */
  termBytes: Uint8Array;
  termOffsets: Uint32Array;
  /** Document frequency per term. */
  df: Uint32Array;
  /** Posting list of term i = postings[postingOffsets[i]..[i+1]): (doc gap, tf) varint pairs. */
  postingOffsets: Uint32Array;
  postings: Uint8Array;
}

function grow(a: Uint32Array<ArrayBuffer>, need: number): Uint32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const next = new Uint32Array(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/**
 * Build the index over `texts` (document ordinal = position). `onProgress` is called every
 * 1,000 documents and may be async (yield to the event loop, check cancellation).
 */
export async function buildBm25(
  texts: ArrayLike<string>,
  params: Bm25Params = DEFAULT_BM25,
  onProgress?: (done: number) => void | Promise<void>,
): Promise<Bm25Index> {
  const n = texts.length;
  const ids = new Map<string, number>();
  const terms: string[] = [];
  let df = new Uint32Array(1024);
  let tf = new Uint32Array(1024);
  // (termId, tf) pairs, document-major
  let pairs = new Uint32Array(1 << 16);
  let pairCount = 0;
  const docStart = new Uint32Array(n + 1);
  const docLengths = new Uint32Array(n);
  let totalLength = 0;
  const touched: number[] = [];
  let len = 0;
  const onToken = (tok: string) => {
    let id = ids.get(tok);
    if (id === undefined) {
      id = terms.length;
      ids.set(tok, id);
      terms.push(tok);
      df = grow(df, id + 1);
      tf = grow(tf, id + 1);
    }
    if (tf[id] === 0) touched.push(id);
    tf[id]!++;
    len++;
  };
  for (let doc = 0; doc < n; doc++) {
    len = 0;
    touched.length = 0;
    forEachToken(texts[doc]!, onToken);
    docLengths[doc] = len;
    totalLength += len;
    pairs = grow(pairs, (pairCount + touched.length) * 2);
    for (const id of touched) {
      pairs[pairCount * 2] = id;
      pairs[pairCount * 2 + 1] = tf[id]!;
      pairCount++;
      df[id]!++;
      tf[id] = 0;
    }
    docStart[doc + 1] = pairCount;
    if (onProgress && (doc + 1) % 1000 === 0) await onProgress(doc + 1);
  }

  // Renumber terms in sorted order, then counting-sort the pairs into term-major posting lists.
  const order = terms
    .map((_, i) => i)
    .sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
  const termCount = terms.length;
  const rank = new Uint32Array(termCount);
  const sortedDf = new Uint32Array(termCount);
  for (let r = 0; r < termCount; r++) {
    rank[order[r]!] = r;
    sortedDf[r] = df[order[r]!]!;
  }
  const start = new Uint32Array(termCount + 1);
  for (let r = 0; r < termCount; r++) start[r + 1] = start[r]! + sortedDf[r]!;
  const cursor = start.slice(0, termCount);
  const postDoc = new Uint32Array(pairCount);
  const postTf = new Uint32Array(pairCount);
  for (let doc = 0; doc < n; doc++) {
    for (let p = docStart[doc]!; p < docStart[doc + 1]!; p++) {
      const r = rank[pairs[p * 2]!]!;
      const at = cursor[r]!++;
      postDoc[at] = doc;
      postTf[at] = pairs[p * 2 + 1]!;
    }
  }
  pairs = new Uint32Array(0);
  const w = new VarintWriter(Math.max(1024, pairCount * 3));
  const postingOffsets = new Uint32Array(termCount + 1);
  for (let r = 0; r < termCount; r++) {
    let prev = 0;
    for (let p = start[r]!; p < start[r + 1]!; p++) {
      w.write(postDoc[p]! - prev);
      w.write(postTf[p]!);
      prev = postDoc[p]!;
    }
    if (w.length > 0xffffffff)
      throw createError('INVALID_ARGUMENT', { name: 'bm25', reason: 'postings exceed 4 GiB' });
    postingOffsets[r + 1] = w.length;
  }
  const termBufs = order.map((id) => Buffer.from(terms[id]!, 'utf8'));
  const termOffsets = new Uint32Array(termCount + 1);
  for (let r = 0; r < termCount; r++) termOffsets[r + 1] = termOffsets[r]! + termBufs[r]!.length;
  return {
    params: { ...params },
    docCount: n,
    totalLength,
    docLengths,
    termBytes: Buffer.concat(termBufs),
    termOffsets,
    df: sortedDf,
    postingOffsets,
    postings: w.bytes(),
  };
}

/** Index of `term` in the sorted dictionary, or -1. */
export function findTerm(index: Bm25Index, term: string): number {
  const bytes = Buffer.from(index.termBytes.buffer, index.termBytes.byteOffset, index.termBytes.byteLength);
  let lo = 0;
  let hi = index.df.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = bytes.toString('utf8', index.termOffsets[mid]!, index.termOffsets[mid + 1]!);
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Lucene's BM25 idf: never negative, so a term in most documents still counts a little. */
export function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** A store's BM25 view of one query's terms: what its ceiling (`bm25Ceiling`) is computed from. */
export interface Bm25Stats {
  docCount: number;
  k1: number;
  /** Document frequency of each query term the index holds. */
  df: ReadonlyMap<string, number>;
}

/** The distinct terms of a query, in first-occurrence order (repeated terms count once). */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

export function bm25Stats(index: Bm25Index, query: string): Bm25Stats {
  const df = new Map<string, number>();
  for (const term of queryTerms(query)) {
    const t = findTerm(index, term);
    if (t >= 0) df.set(term, index.df[t]!);
  }
  return { docCount: index.docCount, k1: index.params.k1, df };
}

/**
 * The score no document of the index reaches for `terms`: Σ idf(t) × (k1 + 1), the limit of each
 * term's saturating part as its frequency grows. A term the index does not hold counts with the
 * idf of an unseen term (it is part of the query, and no document here can match it). A score
 * divided by this ceiling is the idf-weighted share of the query a chunk matches, in [0, 1).
 */
export function bm25Ceiling(stats: Bm25Stats, terms: Iterable<string>): number {
  let sum = 0;
  for (const term of terms) sum += bm25Idf(stats.docCount, stats.df.get(term) ?? 0) * (stats.k1 + 1);
  return sum;
}

interface Scratch {
  /** Score accumulator, re-zeroed where touched: no 8n-byte allocation per query. */
  scores: Float64Array;
  /** Documents with a score, in the order first touched. */
  hits: Uint32Array;
  /** k1 × (1 − b + b × length / avgdl) per document: the same for every query. */
  norm: Float64Array;
}

const scratch = new WeakMap<Bm25Index, Scratch>();

function scratchFor(index: Bm25Index): Scratch {
  let s = scratch.get(index);
  if (!s) {
    const n = index.docCount;
    const { k1, b } = index.params;
    const { docLengths } = index;
    const avgdl = index.totalLength / n || 1;
    const norm = new Float64Array(n);
    for (let doc = 0; doc < n; doc++) norm[doc] = k1 * (1 - b + (b * docLengths[doc]!) / avgdl);
    s = { scores: new Float64Array(n), hits: new Uint32Array(n), norm };
    scratch.set(index, s);
  }
  return s;
}

/**
 * The k best documents for `query` (repeated query terms count once), best first; ties go to the
 * lower ordinal. `allowed[ordinal] === 1` restricts candidates (filter before ranking, so a
 * restricted search still returns k hits when k allowed documents match).
 */
export function searchBm25(index: Bm25Index, query: string, k: number, allowed?: Uint8Array): SearchHit[] {
  const { k1 } = index.params;
  const n = index.docCount;
  if (n === 0 || k <= 0) return [];
  const { scores, hits, norm } = scratchFor(index);
  let hitCount = 0;
  const { postings, postingOffsets } = index;
  for (const term of queryTerms(query)) {
    const t = findTerm(index, term);
    if (t < 0) continue;
    const idf = bm25Idf(n, index.df[t]!);
    let p = postingOffsets[t]!;
    const end = postingOffsets[t + 1]!;
    let doc = 0;
    while (p < end) {
      // varints: one byte in the common case (gaps and term frequencies below 128)
      let byte = postings[p++]!;
      let gap = byte & 0x7f;
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = postings[p++]!;
        gap += (byte & 0x7f) * 2 ** shift;
      }
      byte = postings[p++]!;
      let tf = byte & 0x7f;
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = postings[p++]!;
        tf += (byte & 0x7f) * 2 ** shift;
      }
      doc += gap;
      if (doc >= n) break; // only a damaged index (checksums make this unreachable)
      if (allowed && allowed[doc] !== 1) continue;
      if (scores[doc] === 0) hits[hitCount++] = doc;
      scores[doc]! += (idf * tf * (k1 + 1)) / (tf + norm[doc]!);
    }
  }
  const top = new TopK(Math.min(k, hitCount));
  for (let i = 0; i < hitCount; i++) {
    const doc = hits[i]!;
    top.push(scores[doc]!, doc);
    scores[doc] = 0;
  }
  return top.result();
}
