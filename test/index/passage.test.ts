import test from 'ava';
import { buildBm25, DEFAULT_WEIGHTS } from '../../src/index/bm25.js';
import { searchLexical } from '../../src/index/lexical-search.js';
import { meanParagraphLength, passageScore } from '../../src/index/passage.js';
import { walkTerms } from '../../src/index/term-walk.js';

// The walk over a chunk's words and the passage signal (the best paragraph's BM25), on real
// indexes built by buildBm25.

const CP_OPTIONS = `       -n, --no-clobber
              do not overwrite an existing file

       -u, --update
              copy only when the SOURCE file is newer than the destination file
   \t
       -v, --verbose
              explain what is being done
`;

test('paragraphs end at blank lines (spaces and tabs count as blank); stop words are not counted', (t) => {
  const w = walkTerms(CP_OPTIONS, new Set(['newer', 'file', 'overwrit']));
  t.is(w.paragraphLengths.length, 3);
  t.deepEqual(w.terms, ['overwrit', 'file', 'file', 'newer', 'file']);
  t.deepEqual(w.paragraphs, [0, 0, 1, 1, 1]);
  // positions count words across paragraphs; the stop words (not, an, the, is) take none
  t.deepEqual(w.positions, [4, 6, 13, 14, 17]);
  t.deepEqual(w.paragraphLengths, [7, 11, 6]);
  t.is(meanParagraphLength([w]), 8);
  t.is(meanParagraphLength([]), 1);
  // non-ASCII text is read with the Unicode word pattern: the same words where both apply
  const accented = walkTerms(`${CP_OPTIONS}\n\nnaïve newer`, new Set(['newer']));
  t.deepEqual(accented.terms, ['newer', 'newer']);
  t.deepEqual(accented.paragraphs, [1, 3]);
  t.is(accented.paragraphLengths[3], 2);
});

test('the best paragraph scores, not the sum over paragraphs', (t) => {
  const idf = new Map([
    ['newer', 2],
    ['overwrit', 2],
  ]);
  const p = walkTerms(CP_OPTIONS, idf);
  const both = passageScore(p, idf, 1.2, 5);
  const newerOnly = passageScore(p, new Map([['newer', 2]]), 1.2, 5);
  const overwriteOnly = passageScore(p, new Map([['overwrit', 2]]), 1.2, 5);
  // the two words are in different paragraphs: the best one holds one of them
  t.is(both, Math.max(newerOnly, overwriteOnly));
  t.true(newerOnly > 0 && overwriteOnly > 0);
  // a longer paragraph than the mean is normalised down
  t.true(passageScore(p, idf, 1.2, 50) > passageScore(p, idf, 1.2, 5));
  t.is(passageScore(walkTerms('nothing here', idf), idf, 1.2, 5), 0);
});

test('a chunk answering in one paragraph outranks the same words spread over its paragraphs', async (t) => {
  // The same words in both chunks (so the same BM25 score) and the same length; only the
  // grouping into paragraphs differs.
  const texts = [
    'copy alpha beta\n\ngamma newer delta\n\nepsilon zeta files',
    'copy newer files\n\nalpha beta gamma\n\ndelta epsilon zeta',
  ];
  const index = await buildBm25(texts.map((body) => ({ body, title: '', headings: '' })));
  const noProximity = { ...DEFAULT_WEIGHTS, proximity: 0 };
  const hits = searchLexical(index, 'copy newer files', 2, (o) => texts[o]!, undefined, noProximity);
  t.deepEqual(
    hits.map((h) => h.chunkOrdinal),
    [1, 0],
  );
  t.true(hits[0]!.explain.shares.passage > hits[1]!.explain.shares.passage);
  // without the passage signal the two tie and the lower ordinal wins
  const off = searchLexical(index, 'copy newer files', 2, (o) => texts[o]!, undefined, {
    ...noProximity,
    passage: 0,
  });
  t.deepEqual(
    off.map((h) => h.chunkOrdinal),
    [0, 1],
  );
  t.is(off[0]!.score, off[1]!.score);
  t.is(off[0]!.explain.shares.passage, 0);
});
