import test from 'ava';
import { renderContextBlock } from '../../src/retrieve/block.js';
import { contextBudget, MAX_EXCERPTS, selectExcerpts } from '../../src/retrieve/bounds.js';
import type { Candidate } from '../../src/types.js';
import { cand, countTokens, freeTokenizer, lines, parseBlock, useTempHome } from './helpers.js';

useTempHome();
test.after.always(() => freeTokenizer());

const blockTokens = (sel: Parameters<typeof renderContextBlock>[0]) => countTokens(renderContextBlock(sel));
const BIG = 32768;

/** Small deterministic generator for test data. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/** Candidates of one store, each `[source, chunk, fused score]`. */
const ranked = (...specs: Array<[string, number, number]>): Candidate[] =>
  specs.map(([sourceId, chunk, fusedScore]) => cand({ sourceId, chunk, fusedScore }));

function nine(): Candidate[] {
  // Source A holds the three best chunks; six other sources follow.
  return ranked(
    ['A', 0, 0.9],
    ['A', 1, 0.8],
    ['A', 2, 0.7],
    ['B', 0, 0.6],
    ['C', 0, 0.5],
    ['D', 0, 0.4],
    ['E', 0, 0.3],
    ['F', 0, 0.2],
    ['G', 0, 0.1],
  );
}

test('budget is min(4000, 25% of the context window)', (t) => {
  t.is(contextBudget({ contextWindow: BIG }), 4000);
  t.is(contextBudget({ contextWindow: 16000 }), 4000);
  t.is(contextBudget({ contextWindow: 8192 }), 2048);
  t.is(contextBudget({ contextWindow: 10001 }), 2500);
  t.is(contextBudget({ contextWindow: 3 }), 0);
  t.is(contextBudget({ contextWindow: BIG, maxTokens: 9000 }), 4000, 'limits only tighten');
  t.is(contextBudget({ contextWindow: BIG, maxTokens: 1000 }), 1000);
  t.throws(() => contextBudget({ contextWindow: 0 }), { code: 'INVALID_ARGUMENT' } as never);
  t.throws(() => contextBudget({ contextWindow: 1.5 }), { code: 'INVALID_ARGUMENT' } as never);
});

test('nine candidates, three from one source: six excerpts, two from that source, each first excerpt before a second', (t) => {
  const sel = selectExcerpts(nine(), { contextWindow: BIG }, countTokens);
  // The same six as in plain rank order (A-c0, A-c1, B..E), but A's second comes after every
  // other document's first.
  t.deepEqual(
    sel.map((e) => [e.marker, e.key]),
    [
      ['R1', 'st1:A-c0'],
      ['R2', 'st1:B-c0'],
      ['R3', 'st1:C-c0'],
      ['R4', 'st1:D-c0'],
      ['R5', 'st1:E-c0'],
      ['R6', 'st1:A-c1'],
    ],
  );
  t.true(sel.every((e, i) => e.rank === i + 1 && !e.trimmed));
  t.true(blockTokens(sel) <= 4000);
});

test('a document’s second excerpt waits for every other document’s first, unless the best document holds the top two', (t) => {
  const keys = (sel: ReturnType<typeof selectExcerpts>) => sel.map((e) => e.key);
  // B's second chunk outranks E's and F's first ones; so does the best document A's, but another
  // page's first stands between A's two: both wait.
  const spread = ranked(
    ['A', 0, 0.9],
    ['B', 0, 0.85],
    ['B', 1, 0.8],
    ['A', 1, 0.75],
    ['C', 0, 0.7],
    ['D', 0, 0.6],
    ['E', 0, 0.5],
    ['F', 0, 0.4],
  );
  t.deepEqual(keys(selectExcerpts(spread, { contextWindow: BIG }, countTokens)), [
    'st1:A-c0',
    'st1:B-c0',
    'st1:C-c0',
    'st1:D-c0',
    'st1:E-c0',
    'st1:F-c0',
  ]);
  // A's two chunks lead the list: its second keeps its place, B's still waits.
  const leading = ranked(
    ['A', 0, 0.9],
    ['A', 1, 0.88],
    ['B', 0, 0.85],
    ['B', 1, 0.8],
    ['C', 0, 0.7],
    ['D', 0, 0.6],
    ['E', 0, 0.5],
    ['F', 0, 0.4],
  );
  t.deepEqual(keys(selectExcerpts(leading, { contextWindow: BIG }, countTokens)), [
    'st1:A-c0',
    'st1:B-c0',
    'st1:C-c0',
    'st1:D-c0',
    'st1:E-c0',
    'st1:A-c1',
  ]);
  // With fewer documents than slots the deferred seconds still fill the block, in rank order.
  t.deepEqual(keys(selectExcerpts(spread.slice(0, 6), { contextWindow: BIG }, countTokens)), [
    'st1:A-c0',
    'st1:B-c0',
    'st1:C-c0',
    'st1:D-c0',
    'st1:B-c1',
    'st1:A-c1',
  ]);
});

test('the cap is two excerpts per document (store, source, path), not per source; limits can only be tightened', (t) => {
  // One folder source with six documents, the first holding the three best chunks.
  const doc = (path: string, chunk: number, fusedScore: number, storeId = 's1') =>
    cand({
      storeId,
      sourceId: 'folder',
      path,
      chunk,
      chunkId: `${path}#${chunk}`,
      fusedScore,
      text: lines(`${storeId}${path}#${chunk}`, 4),
    });
  const cands = [
    doc('/notes/a.md', 0, 0.9),
    doc('/notes/a.md', 1, 0.85),
    doc('/notes/a.md', 2, 0.8),
    doc('/notes/a.md', 0, 0.75, 's2'),
    doc('/notes/b.md', 0, 0.7),
    doc('/notes/c.md', 0, 0.6),
    doc('/notes/dd.md', 0, 0.5),
    doc('/notes/eee.md', 0, 0.4),
  ];
  const sel = selectExcerpts(cands, { contextWindow: BIG }, countTokens);
  t.deepEqual(
    sel.map((e) => `${e.storeId}${e.path}`),
    ['s1/notes/a.md', 's2/notes/a.md', 's1/notes/b.md', 's1/notes/c.md', 's1/notes/dd.md', 's1/notes/a.md'],
    'six excerpts from one source; the third chunk of a.md is capped, the same path in another store is another document',
  );
  t.is(
    selectExcerpts(cands, { contextWindow: BIG, maxPerDocument: 5 }, countTokens).filter(
      (e) => e.path === '/notes/a.md' && e.storeId === 's1',
    ).length,
    2,
    'a looser limit than the bound is ignored',
  );
  t.is(
    selectExcerpts(cands, { contextWindow: BIG, maxPerDocument: 1 }, countTokens).filter(
      (e) => e.path === '/notes/a.md',
    ).length,
    2,
  );
  t.is(selectExcerpts(nine(), { contextWindow: BIG, maxExcerpts: 10 }, countTokens).length, MAX_EXCERPTS);
  t.is(selectExcerpts(nine(), { contextWindow: BIG, maxExcerpts: 3 }, countTokens).length, 3);
});

test('an oversized excerpt is trimmed at a line boundary to the longest prefix that fits', (t) => {
  const bigText = lines('huge', 400, 14); // ~ 9k tokens
  t.true(countTokens(bigText) > 6000);
  const cands = [
    cand({ sourceId: 'S', chunk: 0, fusedScore: 0.9, text: lines('small', 3) }),
    cand({ sourceId: 'H', chunk: 0, fusedScore: 0.8, text: bigText, lineStart: 101 }),
    cand({ sourceId: 'T', chunk: 0, fusedScore: 0.7, text: lines('tail', 3) }),
  ];
  const sel = selectExcerpts(cands, { contextWindow: BIG }, countTokens);
  t.deepEqual(
    sel.map((e) => [e.marker, e.sourceId, e.trimmed]),
    [
      ['R1', 'S', false],
      ['R2', 'H', true],
    ],
  );
  const h = sel[1]!;
  t.true(bigText.startsWith(`${h.text}\n`), 'kept text is a whole-line prefix');
  const kept = h.text.split('\n').length;
  t.is(h.lineStart, 101);
  t.is(h.lineEnd, 101 + kept - 1);
  t.is(h.tokens, countTokens(h.text));
  t.is(h.originalTokens, countTokens(bigText));
  const total = blockTokens(sel);
  t.true(total <= 4000, `${total}`);
  // Maximal: one more line would not fit.
  const oneMore = bigText
    .split('\n')
    .slice(0, kept + 1)
    .join('\n');
  t.true(blockTokens([sel[0]!, { ...h, text: oneMore }]) > 4000);
  t.regex(
    parseBlock(renderContextBlock(sel)).excerpts[1]!.header,
    /^\[R2\] \/docs\/H\.md · lines 101-\d+ · trimmed · store /,
  );
});

test('a trimmed first excerpt of a document stands before a second one chosen earlier, within budget', (t) => {
  const bigText = lines('huge', 400, 14);
  const cands = [
    cand({ sourceId: 'S', chunk: 0, fusedScore: 0.9, text: lines('small', 3) }),
    cand({ sourceId: 'S', chunk: 1, fusedScore: 0.85, text: lines('second', 3) }),
    cand({ sourceId: 'H', chunk: 0, fusedScore: 0.8, text: bigText, lineStart: 101 }),
    cand({ sourceId: 'T', chunk: 0, fusedScore: 0.7, text: lines('tail', 3) }),
  ];
  const sel = selectExcerpts(cands, { contextWindow: BIG }, countTokens);
  t.deepEqual(
    sel.map((e) => [e.marker, e.rank, e.key, e.trimmed]),
    [
      ['R1', 1, 'st1:S-c0', false],
      ['R2', 2, 'st1:H-c0', true],
      ['R3', 3, 'st1:S-c1', false],
    ],
  );
  t.true(blockTokens(sel) <= 4000);
  t.deepEqual(
    parseBlock(renderContextBlock(sel)).excerpts.map((e) => e.header.slice(0, 4)),
    ['[R1]', '[R2]', '[R3]'],
  );
  // Markers continue from firstMarker in the same order.
  t.deepEqual(
    selectExcerpts(cands, { contextWindow: BIG, firstMarker: 7 }, countTokens).map((e) => e.marker),
    ['R7', 'R8', 'R9'],
  );
});

test('a single over-long line is cut at whitespace', (t) => {
  const words = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
  const sel = selectExcerpts(
    [cand({ sourceId: 'L', chunk: 0, fusedScore: 1, text: words, lineStart: 5 })],
    { contextWindow: 2000 },
    countTokens,
  );
  t.is(sel.length, 1);
  const e = sel[0]!;
  t.true(e.trimmed);
  t.true(words.startsWith(e.text));
  t.is(words[e.text.length], ' ');
  t.is(e.lineEnd, 5);
  t.true(blockTokens(sel) <= 500);
  t.true(blockTokens([{ ...e, text: words.slice(0, words.indexOf(' ', e.text.length + 1)) }]) > 500);
});

test('tiny context windows: nothing when even the frame does not fit, a trimmed excerpt when a little does', (t) => {
  const cands = nine().map((c, i) => cand({ ...c, chunk: i, text: lines(`c${i}`, 30), tokens: undefined }));
  t.deepEqual(selectExcerpts(cands, { contextWindow: 100 }, countTokens), []);
  t.deepEqual(selectExcerpts(cands, { contextWindow: 512 }, countTokens), []);
  const sel = selectExcerpts(cands, { contextWindow: 800 }, countTokens);
  t.is(sel.length, 1);
  t.true(sel[0]!.trimmed);
  t.is(sel[0]!.marker, 'R1');
  t.true(blockTokens(sel) <= 200);
  for (const cw of [900, 1200, 2048, 4096, 8192]) {
    const s = selectExcerpts(cands, { contextWindow: cw }, countTokens);
    t.true(blockTokens(s) <= Math.floor(cw / 4), `cw ${cw}`);
    t.true(s.length >= 1);
  }
});

test('a trim that would keep too little is skipped and a smaller later candidate gets the room', (t) => {
  const cands = [
    cand({ sourceId: 'H', chunk: 0, fusedScore: 0.9, text: lines('huge', 200) }),
    cand({ sourceId: 'S', chunk: 0, fusedScore: 0.5, text: 'short one' }),
  ];
  const skip = selectExcerpts(cands, { contextWindow: 800, minTrimTokens: 1000 }, countTokens);
  t.deepEqual(
    skip.map((e) => [e.marker, e.sourceId, e.trimmed]),
    [['R1', 'S', false]],
  );
  const trim = selectExcerpts(cands, { contextWindow: 800 }, countTokens);
  t.deepEqual(
    trim.map((e) => [e.marker, e.sourceId, e.trimmed]),
    [['R1', 'H', true]],
  );
});

test('PDF excerpts keep their pages when trimmed; identical text from a copy is skipped', (t) => {
  const text = lines('pdf', 300, 12);
  const cands = [
    cand({ sourceId: 'P', chunk: 0, fusedScore: 0.9, text, pageStart: 3, pageEnd: 4 }),
    cand({ storeId: 'st2', sourceId: 'P2', chunk: 0, fusedScore: 0.8, text, pageStart: 3, pageEnd: 4 }),
  ];
  const sel = selectExcerpts(cands, { contextWindow: 8192 }, countTokens);
  t.is(sel.length, 1);
  t.deepEqual(
    [sel[0]!.pageStart, sel[0]!.pageEnd, sel[0]!.lineStart, sel[0]!.trimmed],
    [3, 4, undefined, true],
  );
  const dup = selectExcerpts(
    [
      cand({ sourceId: 'X', chunk: 0, fusedScore: 0.9, text: 'same' }),
      cand({ storeId: 'st2', sourceId: 'Y', chunk: 0, fusedScore: 0.8, text: 'same' }),
    ],
    { contextWindow: BIG },
    countTokens,
  );
  t.deepEqual(
    dup.map((e) => e.key),
    ['st1:X-c0'],
  );
});

test('a section two documents share is shown once, and the second document keeps its place with its next chunk', (t) => {
  const shared = 'OPTIONS\n  -M, --find-renames\n    Detect renames.';
  const spec = (sha: string): Candidate[] => [
    cand({ sourceId: 'A', chunk: 0, fusedScore: 0.9, text: shared, contentSha256: 'a'.repeat(64) }),
    cand({ sourceId: 'B', chunk: 0, fusedScore: 0.8, text: shared, contentSha256: sha }),
    ...['C', 'D', 'E', 'F', 'G'].map((sourceId, i) =>
      cand({ sourceId, chunk: 0, fusedScore: 0.7 - i * 0.05, contentSha256: sourceId.repeat(64) }),
    ),
    cand({ sourceId: 'B', chunk: 1, fusedScore: 0.3, contentSha256: sha }),
  ];
  // B's page repeats A's options: the text is A's excerpt, and B's own chunk stands where B ranked.
  const other = selectExcerpts(spec('b'.repeat(64)), { contextWindow: BIG }, countTokens);
  t.deepEqual(
    other.map((e) => e.key),
    ['st1:A-c0', 'st1:B-c1', 'st1:C-c0', 'st1:D-c0', 'st1:E-c0', 'st1:F-c0'],
  );
  // B is a copy of A (the same document content): nothing of it is shown, and G keeps its place.
  const copy = selectExcerpts(spec('a'.repeat(64)), { contextWindow: BIG }, countTokens);
  t.deepEqual(
    copy.map((e) => e.key),
    ['st1:A-c0', 'st1:C-c0', 'st1:D-c0', 'st1:E-c0', 'st1:F-c0', 'st1:G-c0'],
  );
  // A repeat whose document has nothing else leaves the order as it was.
  const alone = selectExcerpts(spec('b'.repeat(64)).slice(0, -1), { contextWindow: BIG }, countTokens);
  t.deepEqual(
    alone.map((e) => e.key),
    ['st1:A-c0', 'st1:C-c0', 'st1:D-c0', 'st1:E-c0', 'st1:F-c0', 'st1:G-c0'],
  );
  // … and so does one whose next chunk no list scored (fused 0: the starter model's vector hits,
  // which only fill the list after the lexical ones): hybrid then orders the block as lexical does.
  const unscored = spec('b'.repeat(64));
  unscored[unscored.length - 1] = { ...unscored[unscored.length - 1]!, fusedScore: 0 };
  t.deepEqual(
    selectExcerpts(unscored, { contextWindow: BIG }, countTokens).map((e) => e.key),
    ['st1:A-c0', 'st1:C-c0', 'st1:D-c0', 'st1:E-c0', 'st1:F-c0', 'st1:G-c0'],
  );
});

test('markers are stable: any input order, ties broken by key, repeated calls identical', (t) => {
  const base = nine().map((c, i) => ({
    ...c,
    fusedScore: i < 4 ? 0.5 : 0.25,
    vectorRank: undefined,
    lexicalRank: undefined,
  }));
  const expected = JSON.stringify(selectExcerpts(base, { contextWindow: BIG }, countTokens));
  const rnd = lcg(7);
  for (let round = 0; round < 20; round++) {
    const shuffled = [...base].sort(() => rnd() - 0.5);
    t.is(JSON.stringify(selectExcerpts(shuffled, { contextWindow: BIG }, countTokens)), expected);
  }
  // Equal scores: key order (A-c0 < A-c1 < ... ; A-c2 is capped out), A's second after the firsts.
  t.deepEqual(
    JSON.parse(expected).map((e: { marker: string; key: string }) => `${e.marker}=${e.key}`),
    ['R1=st1:A-c0', 'R2=st1:B-c0', 'R3=st1:C-c0', 'R4=st1:D-c0', 'R5=st1:E-c0', 'R6=st1:A-c1'],
  );
  // Duplicated keys (one chunk reached through two lists) count once.
  t.is(selectExcerpts([...base, ...base], { contextWindow: BIG }, countTokens).length, 6);
});

test('first marker can continue numbering (tool-mode searches); bad input is refused', (t) => {
  const sel = selectExcerpts(nine(), { contextWindow: BIG, firstMarker: 7 }, countTokens);
  t.deepEqual(
    sel.map((e) => e.marker),
    ['R7', 'R8', 'R9', 'R10', 'R11', 'R12'],
  );
  t.throws(() => selectExcerpts(nine(), { contextWindow: BIG, firstMarker: 0 }, countTokens), {
    code: 'INVALID_ARGUMENT',
  } as never);
  t.throws(
    () =>
      selectExcerpts(
        [cand({ sourceId: 'A', chunk: 0, fusedScore: Number.NaN })],
        { contextWindow: BIG },
        countTokens,
      ),
    { code: 'INVALID_ARGUMENT' } as never,
  );
  t.deepEqual(selectExcerpts([], { contextWindow: BIG }, countTokens), []);
});

test('the whole rendered block stays within budget for many mixes of sizes and windows', (t) => {
  const rnd = lcg(11);
  for (let round = 0; round < 40; round++) {
    const n = 1 + Math.floor(rnd() * 12);
    const cands = Array.from({ length: n }, (_, i) =>
      cand({
        sourceId: `S${Math.floor(rnd() * 4)}`,
        chunk: i,
        fusedScore: rnd(),
        text: lines(`r${round}c${i} <tag> & [R${i}]`, 1 + Math.floor(rnd() * 60), 1 + Math.floor(rnd() * 16)),
      }),
    );
    const cw = 256 + Math.floor(rnd() * 20000);
    const sel = selectExcerpts(cands, { contextWindow: cw }, countTokens);
    t.true(blockTokens(sel) <= contextBudget({ contextWindow: cw }), `round ${round}`);
    t.true(sel.length <= 6);
    const perDocument = new Map<string, number>();
    for (const e of sel) perDocument.set(e.path, (perDocument.get(e.path) ?? 0) + 1);
    t.true([...perDocument.values()].every((v) => v <= 2));
    t.deepEqual(
      sel.map((e) => e.marker),
      sel.map((_, i) => `R${i + 1}`),
    );
    // Every document's first excerpt stands before any document's second.
    const tiers = sel.map((e, i) => (sel.slice(0, i).some((x) => x.path === e.path) ? 1 : 0));
    t.deepEqual(tiers, [...tiers].sort(), `round ${round}`);
  }
});
