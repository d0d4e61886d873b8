import test from 'ava';
import {
  bm25Ceiling,
  bm25Idf,
  bm25Stats,
  buildBm25,
  DEFAULT_BM25,
  DEFAULT_WEIGHTS,
  findTerm,
  type LexicalDoc,
  queryTerms,
  searchBm25,
} from '../../src/index/bm25.js';
import { decodeBm25, encodeBm25 } from '../../src/index/bm25-codec.js';
import { searchLexical } from '../../src/index/lexical-search.js';
import { forEachTerm, tokenize } from '../../src/index/tokenize.js';

/** Chunks with a body only (no title, no headings): BM25F is then plain BM25. */
const bodies = (texts: string[]): LexicalDoc[] => texts.map((body) => ({ body, title: '', headings: '' }));

const tokenCases: [string, string[]][] = [
  ['The Quick brown fox', ['quick', 'brown', 'fox']],
  // whole compounds first (unstemmed), then each part's stem and its exact form when different
  [
    'atomic_write(readIndex, 42)',
    ['atomic_write', 'atom', '=atomic', 'write', 'readindex', 'read', 'index', '42'],
  ],
  ['Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ', ['full-width', 'full', 'width', 'abc']],
  ['Grüße aus Köln; naïve café', ['grüße', 'aus', 'köln', 'naïve', 'café']],
  ['日本語のテキスト', ['日', '本', '語', 'の', 'テ', 'キ', 'ス', 'ト']],
  ['RAG検索engine', ['rag', '検', '索', 'engin', '=engine']],
  ['x'.repeat(65), []],
  ['x'.repeat(64), ['x'.repeat(64)]],
  ['it is what it was, and that is that', ['what']],
  ['', []],
  ['—…!?', []],
];

for (const [i, [input, expected]] of tokenCases.entries()) {
  test(`tokenize #${i} ${JSON.stringify(input.slice(0, 30))}`, (t) => {
    t.deepEqual(tokenize(input), expected);
  });
}

const corpus = [
  'the quick brown fox', // 0: quick brown fox (3)
  'quick quick fox jumps over', // 1: quick quick fox jumps over (5)
  'lazy dog sleeps', // 2
  'brown dog and brown fox', // 3: brown dog brown fox (4)
  'a completely unrelated sentence about storage engines', // 4
];

/** Reference BM25 written out from the formula, over the tokenizer's terms and positions. */
function reference(query: string, k1 = 1.2, b = 0.75): number[] {
  const docs = corpus.map((text) => {
    const terms: string[] = [];
    const length = forEachTerm(text, (term) => terms.push(term));
    return { terms, length };
  });
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  return docs.map((d) => {
    let score = 0;
    for (const { term, weight } of queryTerms(query)) {
      const df = docs.filter((x) => x.terms.includes(term)).length;
      if (df === 0) continue;
      const tf = d.terms.filter((x) => x === term).length;
      if (tf === 0) continue;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score += (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
    }
    return score;
  });
}

const rankingCases: [string, number[]][] = [
  // brown: df 2, doc 3 has it twice; fox: df 3
  ['brown fox', [3, 0, 1]],
  // quick twice in doc 1 beats doc 0's single quick despite doc 1 being longer
  ['quick', [1, 0]],
  ['dog', [2, 3]],
  ['storage', [4]],
  ['zebra', []],
  ['THE Quick', [1, 0]], // case and stop words do not matter
  ['fox fox fox', [0, 3, 1]], // a repeated query term counts once; shorter documents first
];

for (const [query, order] of rankingCases) {
  test(`BM25 ranking for "${query}"`, async (t) => {
    const index = await buildBm25(bodies(corpus));
    const hits = searchBm25(index, query, 10);
    t.deepEqual(
      hits.map((h) => h.chunkOrdinal),
      order,
    );
    const ref = reference(query);
    for (const h of hits) t.true(Math.abs(h.score - ref[h.chunkOrdinal]!) < 1e-9);
  });
}

test('BM25 hand-computed score for one term', async (t) => {
  const index = await buildBm25(bodies(corpus));
  // "storage": df 1 of N 5, doc 4 has 6 tokens, avgdl = (3+5+3+4+6)/5 = 4.2; it matches both as
  // its stem `storag` (weight 1) and as its exact form `=storage` (weight DEFAULT_WEIGHTS.exact)
  const idf = Math.log(1 + (5 - 1 + 0.5) / 1.5);
  const expected = ((1 + DEFAULT_WEIGHTS.exact) * idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 6) / 4.2));
  t.is(index.totalLength, 21);
  t.true(Math.abs(searchBm25(index, 'storage', 1)[0]!.score - expected) < 1e-12);
  t.is(bm25Idf(5, 1), idf);
});

test('BM25 restricted search only returns allowed documents and still fills k', async (t) => {
  const index = await buildBm25(bodies(corpus));
  const allowed = Uint8Array.from([0, 1, 0, 0, 1]);
  t.deepEqual(
    searchBm25(index, 'brown fox quick storage', 10, allowed).map((h) => h.chunkOrdinal),
    [1, 4],
  );
  t.deepEqual(searchBm25(index, 'brown fox', 1, Uint8Array.from([0, 0, 0, 1, 0]))[0]!.chunkOrdinal, 3);
});

test('BM25 ties break on the lower ordinal; k bounds the result', async (t) => {
  const index = await buildBm25(bodies(['same words here', 'other', 'same words here', 'same words here']));
  t.deepEqual(
    searchBm25(index, 'words', 2).map((h) => h.chunkOrdinal),
    [0, 2],
  );
  t.deepEqual(searchBm25(index, 'words', 0), []);
});

test('BM25 index survives encode/decode bit-exactly and the dictionary is sorted', async (t) => {
  const texts = Array.from(
    { length: 300 },
    (_, i) => `doc${i % 17} term${i % 5} common ${'ü'.repeat(i % 3)} ${i}`,
  );
  const index = await buildBm25(bodies(texts), { k1: 1.5, b: 0.5 });
  const bytes = encodeBm25(index);
  const back = decodeBm25(bytes, 300, (r) => new Error(r));
  t.deepEqual(back, {
    ...index,
    termBytes: Buffer.from(index.termBytes),
    postings: Buffer.from(index.postings),
  });
  t.true(encodeBm25(back).equals(bytes));
  t.true(findTerm(back, 'common') >= 0);
  t.is(findTerm(back, 'absent'), -1);
  const terms: string[] = [];
  for (let i = 0; i < back.df.length; i++) {
    terms.push(Buffer.from(back.termBytes).toString('utf8', back.termOffsets[i]!, back.termOffsets[i + 1]!));
  }
  t.deepEqual(terms, [...terms].sort());
  t.deepEqual(searchBm25(back, 'term3 doc4', 5), searchBm25(index, 'term3 doc4', 5));
  t.throws(() => decodeBm25(bytes, 301, (r) => new Error(r)), { message: /300 documents for 301/ });
  t.throws(() => decodeBm25(bytes.subarray(0, bytes.length - 1), 300, (r) => new Error(r)));
  t.deepEqual(DEFAULT_BM25, { k1: 1.2, b: 0.75 });
});

test('the ceiling bounds every score; matching more of the query gets closer to it', async (t) => {
  const index = await buildBm25(bodies(corpus));
  for (const query of ['brown fox', 'quick', 'dog storage', 'fox fox lazy', 'quick brown fox jumps']) {
    const stats = bm25Stats(index, query);
    const ceiling = bm25Ceiling(stats, stats.df.keys());
    for (const h of searchBm25(index, query, 10)) t.true(h.score < ceiling, query);
  }
  // A term the index lacks raises the ceiling by an unseen term's idf: matches count for less.
  const stats = bm25Stats(index, 'storage zebra');
  t.deepEqual(
    [...stats.df],
    [
      ['storag', 1],
      ['=storage', 1],
    ],
  );
  // an unseen stem adds its saturation limit and its largest proximity, passage and title-match bonuses
  const unseen = bm25Idf(5, 0);
  t.true(
    Math.abs(
      bm25Ceiling(stats, ['storag', 'zebra']) -
        bm25Ceiling(stats, ['storag']) -
        unseen * 2.2 -
        DEFAULT_WEIGHTS.proximity * Math.min(1, unseen) * 2.2 -
        DEFAULT_WEIGHTS.passage * unseen * 2.2 -
        DEFAULT_WEIGHTS.titleMatch * unseen * 2.2,
    ) < 1e-12,
  );
  // A document made of the query's terms, repeated side by side and titled by them, comes close to
  // the ceiling (with its proximity, passage and title-match bonuses: the full lexical score is
  // what the ceiling bounds).
  const texts = [...corpus, 'zebra okapi '.repeat(200)];
  const dense = await buildBm25(
    texts.map((body, i) => ({ body, title: i === corpus.length ? 'zebra okapi' : '', headings: '' })),
  );
  const d = bm25Stats(dense, 'zebra okapi');
  const [best] = searchLexical(dense, 'zebra okapi', 1, (o) => texts[o]!);
  const ratio = best!.score / bm25Ceiling(d, d.df.keys());
  t.true(ratio > 0.9 && ratio < 1, String(ratio));
});
