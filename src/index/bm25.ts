import { createError } from '../errors.js';
import { VarintWriter } from './binary.js';
import type { Bm25Params, SearchHit } from './snapshot-types.js';
import { EXACT_PREFIX } from './stem.js';
import { synonymsOf } from './synonyms.js';
import { forEachTerm } from './tokenize.js';
import { TopK } from './top-k.js';

// BM25F over chunks (pure): Okapi BM25 with three fields per chunk, the body (the chunk's text),
// the document's title and the chunk's headings (fields.ts), after Robertson, Zaragoza & Taylor
// (2004), "Simple BM25 extension to multiple weighted fields": per term, the fields' frequencies
// are combined before saturation,
//   tf~ = tf_body / (1 − b + b × len / avglen) + w_title × tf_title + w_headings × tf_headings
//   score = Σ_terms w_q × idf × (k1 + 1) × tf~ / (k1 + tf~)
// Only the body is length-normalised: a title or a heading is short by nature. w_q is 1 for a stem
// or a whole compound and `exact` for a word's exact form (tokenize.ts), so an exact match adds to
// the stem match. The field weights are query-time parameters (LexicalWeights), k1 and b are the
// index's (stored in the snapshot). The index is a sorted term dictionary and varint-coded posting
// lists in flat typed arrays: the same shape in memory and in the snapshot, so opening a snapshot
// costs one copy instead of re-tokenising every chunk (measured: bench/index-bench.ts).

/** k1 and b chosen on Cranfield and the selection set (docs/EVAL.md). */
export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

/** Query-time weights of the lexical signals (chosen on public judgements, docs/EVAL.md). */
export interface LexicalWeights {
  /** Weight of a title occurrence relative to a body occurrence of the same term. */
  title: number;
  headings: number;
  /** Query weight of a word's exact (unstemmed) form, added to its stem's weight of 1. */
  exact: number;
  /** Proximity bonus at a perfect phrase, as a share of the matched terms' idf (proximity.ts). */
  proximity: number;
  /** Weight of the best paragraph's BM25 (passage.ts), added to the chunk's. */
  passage: number;
  /**
   * Title match: each query stem in a chunk's document title adds `titleMatch` × idf × (k1 + 1),
   * outside BM25F's saturation, to the document's best chunk only (lexical-search.ts). A title says
   * what the whole document is about (`uniq - report or omit repeated lines`); inside the
   * saturation, a body that repeats the question's common words (`file`, `output`) matches as
   * well as a title naming the task does.
   */
  titleMatch: number;
  /**
   * Weight of a synonym's occurrences (synonyms.ts) against the query word's own: a query word and
   * its group's words count as one term whose frequency is own + `synonym` × theirs.
   */
  synonym: number;
  /**
   * Name match: a chunk of a document named after a program the query shows (query-shape.ts)
   * gains `name` × idf × (k1 + 1) for the query's leading program, half that for the second, a
   * third for the third, outside the BM25F saturation (a page that mentions `tar` twenty
   * times saturates as high as the page named tar does). The idf is the name's, counted over the
   * chunks of the documents bearing it, not the word's: being named `make` is rare even where the
   * word is everywhere.
   */
  name: number;
  /**
   * Query weight of a bare number (`8080`, `30`, `100`). In a query it is nearly always the
   * user's own value (a port, an age in days, a size), which a manual holds only by coincidence:
   * tsget's example URL on port 8080 led "which process is listening on port 8080?". Numbers
   * joined to letters are other terms (`http 502`, `e0425`, `ext4`) and keep their weight.
   */
  number: number;
}

export const DEFAULT_WEIGHTS: LexicalWeights = {
  title: 3,
  headings: 1,
  exact: 0.3,
  proximity: 0.5,
  passage: 1,
  name: 6,
  titleMatch: 0.75,
  synonym: 0.5,
  number: 0.3,
};

/**
 * A program named later gains at most this share of the name bonus of the programs named before
 * it. The bonus weighs 1 / (rank + 1) times the idf of the name over the chunks bearing it, and a
 * short page's name is rarer than a long page's: du's page of 3 chunks made its half bonus outweigh
 * rsync's whole one over 133, and a scrollback whose rsync failed after a `du -sh` led with du.
 * Chosen on the selection sets of docs/EVAL.md (sixteenth round): 0.6 to 0.9 score alike, 0.5
 * and below cost a set.
 */
export const NAME_RANK_SHARE = 0.7;

/**
 * Of the name bonus, the share a document gains that lists the program's name among others (a man
 * page's NAME line) but is filed under another: bzcat's page lists bzip2, and where the two pages
 * hold one text, the page filed under the program's own name leads.
 */
export const ALIAS_NAME_SHARE = 0.9;

/**
 * Of the name bonus, the share a program's other pages gain (git-log's and git-stash's for git)
 * when a question names the program: "in git, how do I …" is mostly answered by one of them, so
 * they compete with the program's own page on what they say. Equal to an alias's share: the page
 * filed under the name still leads where the texts are equal.
 */
const FAMILY_NAME_SHARE = ALIAS_NAME_SHARE;

/** The chunks of the documents named after one of the query's programs, and the name's term. */
export interface NameMatch {
  term: string;
  /** Chunks of the documents filed under the name (their file stem is the name). */
  ordinals: readonly number[];
  /** Chunks of the documents that only list the name (see ALIAS_NAME_SHARE). */
  aliases?: readonly number[];
  /** Chunks of the program's other pages, filed under `name-…` (see FAMILY_NAME_SHARE). */
  family?: readonly number[];
  /** The program's rank in the query's list: the i-th (from 0) weighs 1 / (i + 1). */
  rank: number;
}

/**
 * The other names a program is installed as (`awk` → `['mawk']` where Debian's alternatives make
 * awk mawk), [] when none: a document bearing one of them is the program's when none bears its
 * own name. Asked only then, so a name a store holds costs no lookup.
 */
export type InstalledNames = (program: string) => readonly string[];

/** The term a program name indexes as: its whole compound (`ssh-keygen`) or its word's stem (`tar`). */
export function nameTerm(name: string): string | undefined {
  let first: string | undefined;
  forEachTerm(name, (term) => {
    first ??= term;
  });
  return first;
}

/** One chunk's fields (fields.ts): its text, its document's title, its heading lines. */
export interface LexicalDoc {
  body: string;
  title: string;
  headings: string;
}

export interface Bm25Index {
  params: Bm25Params;
  docCount: number;
  /** Sum of body lengths in positions (avgdl = totalLength / docCount). */
  totalLength: number;
  docLengths: Uint32Array;
  /** Terms sorted by UTF-16 code units, UTF-8 concatenated; term i = termBytes[termOffsets[i]..[i+1]). */
  termBytes: Uint8Array;
  termOffsets: Uint32Array;
  /** Document frequency per term (documents holding it in any field). */
  df: Uint32Array;
  /**
   * Posting list of term i = postings[postingOffsets[i]..[i+1]): per document, varints
   * (gap × 2 + f, tf_body) and, when f = 1, (tf_title, tf_headings).
   */
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
 * Build the index over `docs` (document ordinal = position). `onProgress` is called every
 * 1,000 documents and may be async (yield to the event loop, check cancellation).
 */
export async function buildBm25(
  docs: ArrayLike<LexicalDoc>,
  params: Bm25Params = DEFAULT_BM25,
  onProgress?: (done: number) => void | Promise<void>,
): Promise<Bm25Index> {
  const n = docs.length;
  const ids = new Map<string, number>();
  const terms: string[] = [];
  let df = new Uint32Array(1024);
  // Per term, its frequency in each field of the current document (0 body, 1 title, 2 headings).
  let tf = [new Uint32Array(1024), new Uint32Array(1024), new Uint32Array(1024)];
  // (termId, body tf, title tf, headings tf), document-major
  let quads = new Uint32Array(1 << 16);
  let quadCount = 0;
  const docStart = new Uint32Array(n + 1);
  const docLengths = new Uint32Array(n);
  let totalLength = 0;
  const touched: number[] = [];
  let field: Uint32Array<ArrayBuffer> = tf[0]!;
  const onTerm = (term: string) => {
    let id = ids.get(term);
    if (id === undefined) {
      id = terms.length;
      ids.set(term, id);
      terms.push(term);
      df = grow(df, id + 1);
      if (tf[0]!.length <= id) {
        const at = tf.indexOf(field);
        tf = tf.map((a) => grow(a, id! + 1));
        field = tf[at]!;
      }
    }
    if (tf[0]![id] === 0 && tf[1]![id] === 0 && tf[2]![id] === 0) touched.push(id);
    field[id]!++;
  };
  for (let doc = 0; doc < n; doc++) {
    touched.length = 0;
    const d = docs[doc]!;
    field = tf[0]!;
    const len = forEachTerm(d.body, onTerm);
    field = tf[1]!;
    forEachTerm(d.title, onTerm);
    field = tf[2]!;
    forEachTerm(d.headings, onTerm);
    docLengths[doc] = len;
    totalLength += len;
    if (quads.length < (quadCount + touched.length) * 4) {
      const next = new Uint32Array(Math.max((quadCount + touched.length) * 4, quads.length * 2));
      next.set(quads);
      quads = next;
    }
    const [body, title, headings] = tf as [Uint32Array, Uint32Array, Uint32Array];
    for (const id of touched) {
      const q = quadCount * 4;
      quads[q] = id;
      quads[q + 1] = body[id]!;
      quads[q + 2] = title[id]!;
      quads[q + 3] = headings[id]!;
      quadCount++;
      df[id]!++;
      body[id] = 0;
      title[id] = 0;
      headings[id] = 0;
    }
    docStart[doc + 1] = quadCount;
    if (onProgress && (doc + 1) % 1000 === 0) await onProgress(doc + 1);
  }

  // Renumber terms in sorted order, then counting-sort the entries into term-major posting lists.
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
  const postDoc = new Uint32Array(quadCount);
  const postQuad = new Uint32Array(quadCount);
  for (let doc = 0; doc < n; doc++) {
    for (let p = docStart[doc]!; p < docStart[doc + 1]!; p++) {
      const at = cursor[rank[quads[p * 4]!]!]!++;
      postDoc[at] = doc;
      postQuad[at] = p;
    }
  }
  const w = new VarintWriter(Math.max(1024, quadCount * 3));
  const postingOffsets = new Uint32Array(termCount + 1);
  for (let r = 0; r < termCount; r++) {
    let prev = 0;
    for (let p = start[r]!; p < start[r + 1]!; p++) {
      const q = postQuad[p]! * 4;
      const extra = quads[q + 2]! + quads[q + 3]! > 0;
      w.write((postDoc[p]! - prev) * 2 + (extra ? 1 : 0));
      w.write(quads[q + 1]!);
      if (extra) {
        w.write(quads[q + 2]!);
        w.write(quads[q + 3]!);
      }
      prev = postDoc[p]!;
    }
    if (w.length > 0xffffffff)
      throw createError('INVALID_ARGUMENT', { name: 'bm25', reason: 'postings exceed 4 GiB' });
    postingOffsets[r + 1] = w.length;
  }
  quads = new Uint32Array(0);
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
  /**
   * The terms of the query's programs that name a document of this index, with how many chunks
   * bear the name and the program's rank in the query.
   */
  names: ReadonlyMap<string, { chunks: number; rank: number }>;
}

/** A query term and its weight (1, or `exact` for a word's exact form). */
export interface QueryTerm {
  term: string;
  weight: number;
  /** True for a part's stem: the terms proximity measures. */
  primary: boolean;
  /** The stems that count as this term (synonyms.ts), for a word's stem. */
  synonyms?: readonly string[];
}

/** The distinct terms of a query, in first-occurrence order (repeated terms count once). */
export function queryTerms(query: string, weights: LexicalWeights = DEFAULT_WEIGHTS): QueryTerm[] {
  const out = new Map<string, QueryTerm>();
  forEachTerm(query, (term, _pos, primary) => {
    const old = out.get(term);
    if (old) old.primary ||= primary;
    else out.set(term, { term, weight: queryWeight(term, weights), primary });
  });
  if (weights.synonym > 0)
    for (const t of out.values()) {
      const synonyms = t.weight === 1 ? synonymsOf(t.term) : undefined;
      if (synonyms) t.synonyms = synonyms;
    }
  return [...out.values()];
}

const BARE_NUMBER = /^\d+$/;

function queryWeight(term: string, weights: LexicalWeights): number {
  if (BARE_NUMBER.test(term)) return weights.number;
  return term.startsWith(EXACT_PREFIX) ? weights.exact : 1;
}

/** How many chunks bear a name, filed under it or listing it. */
const nameChunks = (n: NameMatch) => n.ordinals.length + (n.aliases?.length ?? 0);

export function bm25Stats(index: Bm25Index, query: string, names: readonly NameMatch[] = []): Bm25Stats {
  const dfOf = (term: string) => {
    const t = findTerm(index, term);
    return t >= 0 ? index.df[t]! : 0;
  };
  const df = new Map<string, number>();
  for (const { term } of queryTerms(query)) {
    const f = dfOf(term);
    if (f > 0) df.set(term, f);
  }
  const named = new Map(
    names.filter((n) => nameChunks(n) > 0).map((n) => [n.term, { chunks: nameChunks(n), rank: n.rank }]),
  );
  return { docCount: index.docCount, k1: index.params.k1, df, names: named };
}

/**
 * The score no document of the index reaches for `terms`: Σ w_q × idf(t) × (k1 + 1), the limit
 * of each term's saturating part as its frequency grows, plus the largest proximity bonus
 * (proximity.ts: at most `proximity` × min(1, idf) × (k1 + 1) per non-exact term) and passage bonus
 * (passage.ts: at most `passage` × idf × (k1 + 1) per non-exact term) and title match (`titleMatch`
 * × idf × (k1 + 1); a synonym class's idf is at most its word's), plus the name
 * bonus of each of `names` (the name terms some store has a document for, with their programs'
 * ranks). A term the index does
 * not hold counts with the idf of an unseen term (it is part of the query, and no document here
 * can match it). A score divided by this ceiling is the weighted share of the query a chunk
 * matches, in [0, 1).
 */
export function bm25Ceiling(
  stats: Bm25Stats,
  terms: Iterable<string>,
  weights: LexicalWeights = DEFAULT_WEIGHTS,
  names: ReadonlyMap<string, number> = new Map(),
): number {
  let sum = 0;
  for (const term of terms) {
    const idf = bm25Idf(stats.docCount, stats.df.get(term) ?? 0);
    const w = queryWeight(term, weights);
    sum += w * idf * (stats.k1 + 1);
    if (w === 1)
      sum +=
        (weights.proximity * Math.min(1, idf) + (weights.passage + weights.titleMatch) * idf) *
        (stats.k1 + 1);
  }
  // A document gains one name bonus, its best (searchBm25F).
  let name = 0;
  for (const [term, rank] of names)
    name = Math.max(
      name,
      (weights.name / (rank + 1)) *
        bm25Idf(stats.docCount, stats.names.get(term)?.chunks ?? 0) *
        (stats.k1 + 1),
    );
  return sum + name;
}

interface Scratch {
  /** Score accumulators, re-zeroed where touched: no 8n-byte allocation per query. */
  scores: Float64Array;
  titleScores: Float64Array;
  headingScores: Float64Array;
  nameScores: Float64Array;
  titleMatchScores: Float64Array;
  /** A synonym class's weighted frequencies per field, and the documents it touched (scoreSynonyms). */
  classBody: Float64Array;
  classTitle: Float64Array;
  classHeading: Float64Array;
  classDocs: Uint32Array;
  classSeen: Uint8Array;
  /** Which query terms (the first 32) matched each document. */
  matched: Uint32Array;
  /** Documents with a score, in the order first touched. */
  hits: Uint32Array;
  /** 1 − b + b × length / avgdl per document: the same for every query. */
  norm: Float64Array;
}

const scratch = new WeakMap<Bm25Index, Scratch>();

function scratchFor(index: Bm25Index): Scratch {
  let s = scratch.get(index);
  if (!s) {
    const n = index.docCount;
    const { b } = index.params;
    const { docLengths } = index;
    const avgdl = index.totalLength / n || 1;
    const norm = new Float64Array(n);
    for (let doc = 0; doc < n; doc++) norm[doc] = 1 - b + (b * docLengths[doc]!) / avgdl;
    s = {
      scores: new Float64Array(n),
      titleScores: new Float64Array(n),
      headingScores: new Float64Array(n),
      nameScores: new Float64Array(n),
      titleMatchScores: new Float64Array(n),
      classBody: new Float64Array(n),
      classTitle: new Float64Array(n),
      classHeading: new Float64Array(n),
      classDocs: new Uint32Array(n),
      classSeen: new Uint8Array(n),
      matched: new Uint32Array(n),
      hits: new Uint32Array(n),
      norm,
    };
    scratch.set(index, s);
  }
  return s;
}

/** A BM25F hit with its score taken apart by field and the query terms it matched. */
export interface Bm25Hit extends SearchHit {
  /**
   * Parts of `score` from title and heading occurrences and the name match (the rest is the
   * body's); `titleScore` includes the title match, also given apart.
   */
  titleScore: number;
  headingScore: number;
  nameScore: number;
  titleMatchScore: number;
  /** Indexes into the query's terms (`queryTerms`) of those this document holds (the first 32). */
  matched: number[];
}

/**
 * The k best documents for `terms` by BM25F, best first; ties go to the lower ordinal.
 * `allowed[ordinal] === 1` restricts candidates (filter before ranking, so a restricted search
 * still returns k hits when k allowed documents match). `names` adds the name bonus (see
 * LexicalWeights) to the chunks of documents named after the query's programs.
 */
export function searchBm25F(
  index: Bm25Index,
  terms: readonly QueryTerm[],
  k: number,
  allowed?: Uint8Array,
  weights: LexicalWeights = DEFAULT_WEIGHTS,
  names: readonly NameMatch[] = [],
  damping?: Float64Array,
): Bm25Hit[] {
  const { k1 } = index.params;
  const n = index.docCount;
  if (n === 0 || k <= 0) return [];
  const scratchArrays = scratchFor(index);
  const { scores, titleScores, headingScores, nameScores, titleMatchScores, matched, hits, norm } =
    scratchArrays;
  const wt = weights.title;
  const wh = weights.headings;
  let hitCount = 0;
  // Per term and document: the saturating part, and the title match once the title holds the term.
  const score = (
    doc: number,
    idf: number,
    body: number,
    title: number,
    heading: number,
    bit: number,
    titled: boolean,
  ) => {
    const tt = body + title + heading;
    if (tt <= 0) return;
    const s = (idf * tt) / (k1 + tt);
    if (scores[doc] === 0) hits[hitCount++] = doc;
    scores[doc]! += s;
    if (title + heading > 0) {
      titleScores[doc]! += (s * title) / tt;
      headingScores[doc]! += (s * heading) / tt;
    }
    if (titled && title > 0 && weights.titleMatch > 0) {
      // `title` / wt is the title frequency (a synonym's weighted): present once it reaches 1.
      const m = weights.titleMatch * idf * Math.min(1, title / wt);
      scores[doc]! += m;
      titleScores[doc]! += m;
      titleMatchScores[doc]! += m;
    }
    matched[doc]! |= bit;
  };
  terms.forEach((term, qi) => {
    if (term.weight <= 0) return;
    const bit = qi < 32 ? 2 ** qi : 0;
    const t = findTerm(index, term.term);
    const synonyms = term.synonyms?.map((x) => findTerm(index, x)).filter((x) => x >= 0) ?? [];
    if (synonyms.length > 0) {
      scoreSynonyms(index, term.weight, t, synonyms, allowed, weights, scratchArrays, (doc, idf, b, ti, h) =>
        score(doc, idf, b, ti, h, bit, true),
      );
      return;
    }
    if (t < 0) return;
    const idf = term.weight * bm25Idf(n, index.df[t]!) * (k1 + 1);
    // An exact form (weight below 1) adds to its stem's match: the title match is the stem's alone.
    const titled = term.weight === 1;
    forEachPosting(index, t, (doc, tfBody, tfTitle, tfHead) => {
      if (allowed && allowed[doc] !== 1) return;
      score(doc, idf, tfBody / norm[doc]!, wt * tfTitle, wh * tfHead, bit, titled);
    });
  });
  const raise = (doc: number, bonus: number) => {
    if (doc >= n || (allowed && allowed[doc] !== 1)) return;
    if (scores[doc] === 0) hits[hitCount++] = doc;
    // One document, one name bonus: its best. hd's page is hexdump's filed under hd, and two
    // bonuses added would put the copy above the page of the program named first.
    if (bonus <= nameScores[doc]!) return;
    scores[doc]! += bonus - nameScores[doc]!;
    nameScores[doc] = bonus;
  };
  // By rank, each bounded by the best bonus of every rank above it (NAME_RANK_SHARE).
  let above = Number.POSITIVE_INFINITY;
  let rank = -1;
  let best = 0;
  for (const match of [...names].sort((a, b) => a.rank - b.rank)) {
    if (weights.name <= 0) break;
    if (match.rank !== rank) {
      if (rank >= 0) above = Math.min(above, best);
      best = 0;
      rank = match.rank;
    }
    const bonus = Math.min(
      (weights.name / (match.rank + 1)) * bm25Idf(n, nameChunks(match)) * (k1 + 1),
      above * NAME_RANK_SHARE,
    );
    best = Math.max(best, bonus);
    for (const doc of match.ordinals) raise(doc, bonus);
    for (const doc of match.aliases ?? []) raise(doc, bonus * ALIAS_NAME_SHARE);
    for (const doc of match.family ?? []) raise(doc, bonus * FAMILY_NAME_SHARE);
  }
  // A chunk of a document of many chunks weighs less on its words (see lexical-search.ts); its
  // name bonus stays whole. Only the score decides the top k: the explain fields are scaled for
  // the k returned.
  if (damping)
    for (let i = 0; i < hitCount; i++) {
      const d = hits[i]!;
      scores[d] = (scores[d]! - nameScores[d]!) * damping[d]! + nameScores[d]!;
    }
  const top = new TopK(Math.min(k, hitCount));
  for (let i = 0; i < hitCount; i++) top.push(scores[hits[i]!]!, hits[i]!);
  const out = top.result().map((h): Bm25Hit => {
    const d = h.chunkOrdinal;
    const f = damping ? damping[d]! : 1;
    const m: number[] = [];
    for (let qi = 0; qi < Math.min(32, terms.length); qi++) if (matched[d]! & (2 ** qi)) m.push(qi);
    return {
      ...h,
      titleScore: titleScores[d]! * f,
      headingScore: headingScores[d]! * f,
      nameScore: nameScores[d]!,
      titleMatchScore: titleMatchScores[d]! * f,
      matched: m,
    };
  });
  for (let i = 0; i < hitCount; i++) {
    const doc = hits[i]!;
    scores[doc] = 0;
    titleScores[doc] = 0;
    headingScores[doc] = 0;
    nameScores[doc] = 0;
    titleMatchScores[doc] = 0;
    matched[doc] = 0;
  }
  return out;
}

/** Calls `each` with every (document, body tf, title tf, heading tf) of term `t`'s postings. */
function forEachPosting(
  index: Bm25Index,
  t: number,
  each: (doc: number, tfBody: number, tfTitle: number, tfHead: number) => void,
): void {
  const { postings, postingOffsets } = index;
  let p = postingOffsets[t]!;
  const end = postingOffsets[t + 1]!;
  let doc = 0;
  const varint = () => {
    // one byte in the common case (gaps and term frequencies below 64 and 128)
    let byte = postings[p++]!;
    let v = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = postings[p++]!;
      v += (byte & 0x7f) * 2 ** shift;
    }
    return v;
  };
  while (p < end) {
    const head = varint();
    const tfBody = varint();
    let tfTitle = 0;
    let tfHead = 0;
    if (head % 2 === 1) {
      tfTitle = varint();
      tfHead = varint();
    }
    doc += Math.floor(head / 2);
    if (doc >= index.docCount) break; // only a damaged index (checksums make this unreachable)
    each(doc, tfBody, tfTitle, tfHead);
  }
}

/**
 * A query word with synonyms as one term (a weighted synonym class): per document its own
 * frequencies plus `synonym` × each synonym's, per field, and a document frequency of own +
 * `synonym` × theirs (capped at the document count), so a class of common words weighs less than
 * its rarest member. `own` is -1 when the index lacks the word itself. Reports each document's
 * length-normalised body, weighted title and weighted heading frequencies with the class's idf part.
 */
function scoreSynonyms(
  index: Bm25Index,
  weight: number,
  own: number,
  synonyms: readonly number[],
  allowed: Uint8Array | undefined,
  weights: LexicalWeights,
  s: Scratch,
  each: (doc: number, idf: number, body: number, title: number, heading: number) => void,
): void {
  const n = index.docCount;
  // Scratch accumulators, re-zeroed where touched: a common word's class spans many chunks.
  const { classBody, classTitle, classHeading, classDocs, classSeen, norm } = s;
  let count = 0;
  let df = 0;
  const collect = (t: number, w: number) => {
    df += w * index.df[t]!;
    forEachPosting(index, t, (doc, tfBody, tfTitle, tfHead) => {
      if (allowed && allowed[doc] !== 1) return;
      const body = (w * tfBody) / norm[doc]!;
      if (classSeen[doc] === 0) {
        classSeen[doc] = 1;
        classDocs[count++] = doc;
      }
      classBody[doc]! += body;
      classTitle[doc]! += w * weights.title * tfTitle;
      classHeading[doc]! += w * weights.headings * tfHead;
    });
  };
  if (own >= 0) collect(own, 1);
  for (const t of synonyms) collect(t, weights.synonym);
  const idf = weight * bm25Idf(n, Math.min(n, df)) * (index.params.k1 + 1);
  for (let i = 0; i < count; i++) {
    const doc = classDocs[i]!;
    each(doc, idf, classBody[doc]!, classTitle[doc]!, classHeading[doc]!);
    classBody[doc] = 0;
    classTitle[doc] = 0;
    classHeading[doc] = 0;
    classSeen[doc] = 0;
  }
}

/** The k best documents for `query` by BM25F alone (no proximity), best first. */
export function searchBm25(index: Bm25Index, query: string, k: number, allowed?: Uint8Array): SearchHit[] {
  return searchBm25F(index, queryTerms(query), k, allowed).map(({ chunkOrdinal, score }) => ({
    chunkOrdinal,
    score,
  }));
}
