import test from 'ava';
import { dedupe, mean, ndcgAt, recallAt, reciprocalRank } from '../../src/retrieve/metrics.js';

// Table of hand-computed values (log2(3) = 1.5849625, log2(5) = 2.3219281).

const j = (o: Record<string, number>) => new Map(Object.entries(o));

const cases: {
  name: string;
  ranked: string[];
  judged: Record<string, number>;
  recall2: number;
  recall4: number;
  rr: number;
  ndcg4: number;
}[] = [
  {
    name: 'binary gains, hits at ranks 2 and 4, one relevant never retrieved',
    ranked: ['a', 'b', 'c', 'd'],
    judged: { b: 1, d: 1, e: 1 },
    recall2: 1 / 3,
    recall4: 2 / 3,
    rr: 1 / 2,
    // (1/log2 3 + 1/log2 5) / (1 + 1/log2 3 + 1/log2 4)
    ndcg4: 1.0616063116448506 / 2.1309297535714578,
  },
  {
    name: 'graded gains: the weaker document first costs nDCG but not recall',
    ranked: ['x', 'a'],
    judged: { a: 3, x: 1 },
    recall2: 1,
    recall4: 1,
    rr: 1,
    // (1 + 3/log2 3) / (3 + 1/log2 3)
    ndcg4: 0.7967075809905066,
  },
  {
    name: 'repeated document ids (several chunks of one document) count once',
    ranked: ['a', 'a', 'a', 'b'],
    judged: { b: 2 },
    recall2: 1,
    recall4: 1,
    rr: 1 / 2,
    ndcg4: 2 / 1.584962500721156 / 2,
  },
  {
    name: 'zero gain (a grade below the threshold) is not relevant',
    ranked: ['a', 'b'],
    judged: { a: 0, b: 1 },
    recall2: 1,
    recall4: 1,
    rr: 1 / 2,
    ndcg4: 1 / 1.584962500721156,
  },
  {
    name: 'nothing relevant retrieved',
    ranked: ['a', 'b', 'c'],
    judged: { z: 1 },
    recall2: 0,
    recall4: 0,
    rr: 0,
    ndcg4: 0,
  },
  {
    name: 'no relevant document at all',
    ranked: ['a'],
    judged: { a: 0 },
    recall2: 0,
    recall4: 0,
    rr: 0,
    ndcg4: 0,
  },
  {
    name: 'empty ranking',
    ranked: [],
    judged: { a: 1 },
    recall2: 0,
    recall4: 0,
    rr: 0,
    ndcg4: 0,
  },
  {
    name: 'perfect ranking, more relevant documents than k',
    ranked: ['a', 'b', 'c', 'd', 'e'],
    judged: { a: 1, b: 1, c: 1, d: 1, e: 1 },
    recall2: 2 / 5,
    recall4: 4 / 5,
    rr: 1,
    ndcg4: 1,
  },
];

for (const c of cases) {
  test(`metrics: ${c.name}`, (t) => {
    const close = (got: number, want: number, what: string) =>
      t.true(Math.abs(got - want) < 1e-12, `${what}: got ${got}, want ${want}`);
    close(recallAt(c.ranked, j(c.judged), 2), c.recall2, 'recall@2');
    close(recallAt(c.ranked, j(c.judged), 4), c.recall4, 'recall@4');
    close(reciprocalRank(c.ranked, j(c.judged)), c.rr, 'reciprocal rank');
    close(ndcgAt(c.ranked, j(c.judged), 4), c.ndcg4, 'nDCG@4');
  });
}

test('nDCG@k only sees the first k documents of the ranking and of the ideal order', (t) => {
  const judged = j({ a: 1, b: 1 });
  t.is(ndcgAt(['x', 'a', 'b'], judged, 1), 0);
  // DCG@2 = 1/log2 3; ideal@2 = 1 + 1/log2 3
  t.true(Math.abs(ndcgAt(['x', 'a', 'b'], judged, 2) - 0.6309297535714575 / 1.6309297535714575) < 1e-12);
});

test('dedupe keeps the first occurrence in order; mean of nothing is 0', (t) => {
  t.deepEqual(dedupe(['b', 'a', 'b', 'c', 'a']), ['b', 'a', 'c']);
  t.is(mean([]), 0);
  t.is(mean([1, 2, 6]), 3);
});
