import test from 'ava';
import { fuseRankings, RRF_K } from '../../src/retrieve/fuse.js';
import { useTempHome } from './helpers.js';

useTempHome();

test('RRF sums 1/(k+rank) over both lists and keeps both ranks', (t) => {
  const fused = fuseRankings({ vector: ['a', 'b', 'c'], lexical: ['c', 'a', 'd'] });
  const a = fused.find((e) => e.key === 'a')!;
  t.is(a.vectorRank, 1);
  t.is(a.lexicalRank, 2);
  t.is(a.fusedScore, 1 / (RRF_K + 1) + 1 / (RRF_K + 2));
  const d = fused.find((e) => e.key === 'd')!;
  t.is(d.vectorRank, undefined);
  t.is(d.lexicalRank, 3);
  t.is(d.fusedScore, 1 / (RRF_K + 3));
  t.deepEqual(
    fused.map((e) => e.key),
    ['a', 'c', 'b', 'd'],
  );
});

test('weights and k change the balance between the lists', (t) => {
  const input = { vector: ['v1', 'v2'], lexical: ['l1', 'l2'] };
  t.deepEqual(
    fuseRankings(input, { vectorWeight: 2 }).map((e) => e.key),
    ['v1', 'v2', 'l1', 'l2'],
  );
  t.deepEqual(
    fuseRankings(input, { lexicalWeight: 2 }).map((e) => e.key),
    ['l1', 'l2', 'v1', 'v2'],
  );
  t.deepEqual(
    fuseRankings(input, { vectorWeight: 0 }).map((e) => [e.key, e.fusedScore > 0]),
    [
      ['l1', true],
      ['l2', true],
      ['v1', false],
      ['v2', false],
    ],
  );
  const k1 = fuseRankings({ vector: ['x'] }, { k: 1 })[0]!;
  t.is(k1.fusedScore, 1 / 2);
  t.throws(() => fuseRankings(input, { k: Number.NaN }), { instanceOf: RangeError });
  t.throws(() => fuseRankings(input, { lexicalWeight: -1 }), { instanceOf: RangeError });
});

test('ties break deterministically: better best rank, then vector rank, then key', (t) => {
  // x: vector 1 only; y: lexical 1 only → equal scores, equal best rank → vector rank decides.
  t.deepEqual(
    fuseRankings({ vector: ['x'], lexical: ['y'] }).map((e) => e.key),
    ['x', 'y'],
  );
  t.deepEqual(
    fuseRankings({ vector: ['y'], lexical: ['x'] }).map((e) => e.key),
    ['y', 'x'],
  );
  // Same position in both lists, different keys and no vector/lexical difference → key order.
  const one = fuseRankings({ lexical: ['b', 'a'] }, { k: 60 });
  t.deepEqual(
    one.map((e) => e.key),
    ['b', 'a'],
  );
  // k=0: p = 1 + 1/4; q = 1/2 + 1/2 ties with w = 1 (w has the better best rank); z = 1/3 ties
  // with w2 = 1/3 (same best rank; z has a vector rank).
  const f = fuseRankings({ vector: ['p', 'q', 'z', 'z2'], lexical: ['w', 'q', 'w2', 'p'] }, { k: 0 });
  t.deepEqual(
    f.map((e) => e.key),
    ['p', 'w', 'q', 'z', 'w2', 'z2'],
  );
  t.is(f[0]!.fusedScore, 1.25);
});

test('a key repeated in one list keeps its first rank; vector-only and lexical-only modes work', (t) => {
  const f = fuseRankings({ vector: ['a', 'b', 'a'] });
  t.deepEqual(
    f.map((e) => [e.key, e.vectorRank, e.lexicalRank]),
    [
      ['a', 1, undefined],
      ['b', 2, undefined],
    ],
  );
  t.deepEqual(fuseRankings({}), []);
  t.deepEqual(
    fuseRankings({ lexical: ['z', 'y'] }).map((e) => e.key),
    ['z', 'y'],
  );
});

test('same rankings always give the same output', (t) => {
  const input = { vector: ['a', 'b', 'c', 'd', 'e'], lexical: ['e', 'd', 'c', 'b', 'a'] };
  const first = JSON.stringify(fuseRankings(input));
  for (let i = 0; i < 5; i++) t.is(JSON.stringify(fuseRankings(input)), first);
  // Mirrored rankings: a and e get exactly equal scores (so do b and d); vector rank decides.
  t.deepEqual(
    fuseRankings(input).map((e) => e.key),
    ['a', 'e', 'b', 'd', 'c'],
  );
});
