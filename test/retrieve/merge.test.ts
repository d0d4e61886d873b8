import test from 'ava';
import type { FusionOptions } from '../../src/retrieve/fuse.js';
import { fuseRankings } from '../../src/retrieve/fuse.js';
import { mergeStores, type StoreHits } from '../../src/retrieve/merge.js';
import type { Candidate } from '../../src/types.js';
import { cand, freeTokenizer, useTempHome } from './helpers.js';

useTempHome();
test.after.always(() => freeTokenizer());

const STARTER: FusionOptions = { k: 60, vectorWeight: 0.26, lexicalWeight: 1.74 };

/** Hits of one store: `vector` and `lexical` name chunks best first, scores descending from 1. */
function store(
  storeId: string,
  lists: { vector?: string[]; lexical?: string[] },
  opts: Partial<Omit<StoreHits, 'vector' | 'lexical'>> = {},
): StoreHits {
  const hit = (chunk: string, i: number, kind: 'vectorScore' | 'lexicalScore'): Candidate => ({
    ...cand({
      storeId,
      sourceId: 'src',
      chunk: i,
      chunkId: chunk,
      fusedScore: 0,
      path: `/${storeId}/${chunk}.md`,
    }),
    ...(kind === 'vectorScore'
      ? { vectorScore: 1 - i / 100 }
      : { lexicalScore: 10 - i, lexicalMatch: 0.9 - i / 100 }),
  });
  return {
    storeId,
    fusion: STARTER,
    searchedVector: lists.vector !== undefined,
    searchedLexical: lists.lexical !== undefined,
    space: 'model-a',
    chunks: 100,
    vector: (lists.vector ?? []).map((c, i) => hit(c, i, 'vectorScore')),
    lexical: (lists.lexical ?? []).map((c, i) => hit(c, i, 'lexicalScore')),
    ...opts,
  };
}

test('one store: exactly reciprocal rank fusion of its two lists', (t) => {
  const vector = ['a', 'b', 'c', 'd'];
  const lexical = ['c', 'e', 'a'];
  const merged = mergeStores([store('s', { vector, lexical })], 40);
  const fused = fuseRankings(
    { vector: vector.map((c) => `s:${c}`), lexical: lexical.map((c) => `s:${c}`) },
    STARTER,
  );
  t.deepEqual(
    merged.map((c) => [c.key, c.vectorRank, c.lexicalRank, c.fusedScore]),
    fused.map((f) => [f.key, f.vectorRank, f.lexicalRank, f.fusedScore]),
  );
  t.is(merged.find((c) => c.key === 's:a')!.lexicalScore, 10 - 2, 'both lists’ scores are kept');
  t.is(merged.find((c) => c.key === 's:a')!.vectorScore, 1);
});

test('stores share global lists: a small store’s best hit ranks by its scores, not first', (t) => {
  // big's hits match better in both lists than small's single hit, though small's raw BM25 is
  // higher (its statistics differ): lexical hits compare by their share of their store's ceiling.
  const big = store('big', { vector: ['b1', 'b2', 'b3'], lexical: ['b1', 'b2', 'b3'] });
  const small = store('small', { vector: ['s1'], lexical: ['s1'] });
  small.vector = small.vector.map((c) => ({ ...c, vectorScore: 0.5 }));
  small.lexical = small.lexical.map((c) => ({ ...c, lexicalScore: 40, lexicalMatch: 0.2 }));
  const merged = mergeStores([small, big], 40);
  t.deepEqual(
    merged.map((c) => [c.key, c.vectorRank, c.lexicalRank]),
    [
      ['big:b1', 1, 1],
      ['big:b2', 2, 2],
      ['big:b3', 3, 3],
      ['small:s1', 4, 4],
    ],
  );
  t.deepEqual(mergeStores([big, small], 40), merged, 'store order does not matter');
  t.deepEqual(
    mergeStores([big, small], 2).map((c) => c.key),
    ['big:b1', 'big:b2'],
    'each global list keeps its best `perList` hits',
  );
});

test('a vector-only store is scaled to the full weight; a hybrid store with no lexical match is not', (t) => {
  const qdrant = store('q', { vector: ['q1'] });
  const local = store('l', { vector: ['l1'], lexical: [] });
  qdrant.vector = qdrant.vector.map((c) => ({ ...c, vectorScore: 0.9 }));
  const merged = mergeStores([local, qdrant], 40);
  const q = merged.find((c) => c.key === 'q:q1')!;
  const l = merged.find((c) => c.key === 'l:l1')!;
  t.is(l.vectorRank, 1);
  t.is(q.vectorRank, 2);
  t.is(l.fusedScore, 0.26 / 61, 'searched lexically, found nothing: only its vector vote');
  t.is(
    q.fusedScore,
    (0.26 / 62) * ((0.26 + 1.74) / 0.26),
    'no lexical index: its vector vote stands for both',
  );
  t.deepEqual(
    merged.map((c) => c.key),
    ['q:q1', 'l:l1'],
  );
});

test('different embedding models: each keeps its ranks, spread over the merged scale by its share of chunks', (t) => {
  const a = store('a', { vector: ['a1', 'a2', 'a3', 'a4'] }, { space: 'model-a', chunks: 900 });
  const b = store('b', { vector: ['b1', 'b2'] }, { space: 'model-b', chunks: 100 });
  const merged = mergeStores([a, b], 40);
  const score = (key: string) => merged.find((c) => c.key === key)!.fusedScore;
  const expected = (rank: number, share: number) =>
    (0.26 / (60 + ((rank - 0.5) / share + 0.5))) * ((0.26 + 1.74) / 0.26);
  t.is(score('a:a1'), expected(1, 0.9));
  t.is(score('b:b1'), expected(1, 0.1));
  t.deepEqual(
    merged.map((c) => [c.key, c.vectorRank]),
    [
      ['a:a1', 1],
      ['a:a2', 2],
      ['a:a3', 3],
      ['a:a4', 4],
      ['b:b1', 1],
      ['b:b2', 2],
    ],
    'b holds one chunk in ten: its first hit counts as rank 5.5, its second as 15.5',
  );
  // Equal shares interleave.
  const even = mergeStores([a, { ...b, chunks: 900 }], 40);
  t.deepEqual(
    even.map((c) => c.key),
    ['a:a1', 'b:b1', 'a:a2', 'b:b2', 'a:a3', 'a:a4'],
  );
});

test('equal scores across stores break by store id, then by position', (t) => {
  const x = store('x', { lexical: ['x1'] });
  const w = store('w', { lexical: ['w1'] });
  t.deepEqual(
    mergeStores([x, w], 40).map((c) => [c.key, c.lexicalRank]),
    [
      ['w:w1', 1],
      ['x:x1', 2],
    ],
  );
});
