import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { get_encoding } from 'tiktoken';
import { findGiantRuns, MAX_RUN, runSeams, segmentForEncoding } from '../../src/chunk/segments.js';
import { countTokens, disposeTokenizer, TOKEN_ENCODING } from '../../src/chunk/tokenizer.js';
import { prose } from './corpus.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-seg-'));
test.after.always(() => disposeTokenizer());

test('the fixed encoding is cl100k_base', (t) => {
  t.is(TOKEN_ENCODING, 'cl100k_base');
});

const runCases: [string, string, number[]][] = [
  ['short text', 'hello world', []],
  ['run of exactly MAX_RUN', 'a'.repeat(MAX_RUN), []],
  ['letters over MAX_RUN', `ab ${'x'.repeat(MAX_RUN + 1)} cd`, [3, 3 + MAX_RUN + 1]],
  ['whitespace over MAX_RUN', `a${' '.repeat(300)}b`, [1, 301]],
  ['newlines count as whitespace', `a${'\n'.repeat(300)}`, [1, 301]],
];
for (const [name, text, runs] of runCases) {
  test(`findGiantRuns: ${name}`, (t) => {
    t.deepEqual(findGiantRuns(text), runs);
  });
}

test('segments rejoin to the text, seams every MAX_RUN characters of a run', (t) => {
  const text = `head ${'y'.repeat(1000)} tail`;
  const { segments, runs } = segmentForEncoding(text);
  t.is(segments.join(''), text);
  t.deepEqual(runs, [5, 1005]);
  t.deepEqual(
    segments.map((s) => s.length),
    [5 + MAX_RUN, MAX_RUN, MAX_RUN, 1000 - 3 * MAX_RUN + 5],
  );
});

test('a seam never splits a surrogate pair', (t) => {
  const text = `a${'😀'.repeat(400)}`; // run starts at 1; 1 + 256 lands on a low surrogate
  const seams = runSeams(text, 1, text.length);
  t.true(seams.length > 0);
  for (const s of seams) {
    const c = text.charCodeAt(s);
    t.false(c >= 0xdc00 && c <= 0xdfff, `seam ${s} is not inside a pair`);
  }
  t.false(segmentForEncoding(text).segments.join('|').includes('\ufffd'));
});

test('countTokens equals encode_ordinary for ordinary text and counts giant runs in segments', (t) => {
  const enc = get_encoding('cl100k_base');
  try {
    const text = prose(50, 2);
    t.is(countTokens(text), enc.encode_ordinary(text).length);
    t.is(countTokens('<|endoftext|>'), enc.encode_ordinary('<|endoftext|>').length);
    t.is(countTokens(''), 0);
    const run = 'q'.repeat(MAX_RUN * 3);
    t.is(countTokens(run), 3 * enc.encode_ordinary('q'.repeat(MAX_RUN)).length);
  } finally {
    enc.free();
  }
});
