import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import {
  chunkDocument,
  chunkDocumentWithOffsets,
  DEFAULT_CHUNK_PARAMS,
  type PlacedChunk,
} from '../../src/chunk/chunk-document.js';
import { flattenDoc } from '../../src/chunk/doc-text.js';
import { countTokens, disposeTokenizer, getTokenizer } from '../../src/chunk/tokenizer.js';
import type { ChunkParams, ExtractedDoc } from '../../src/types.js';
import { oneLine, prng, prose } from './corpus.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-chunk-'));

const tok = getTokenizer();
// An independent encoder: the reference for "token count = encode_ordinary(chunk.text).length".
const reference = get_encoding('cl100k_base');
test.after.always(() => {
  reference.free();
  disposeTokenizer();
});

const P = DEFAULT_CHUNK_PARAMS;
const lines = (text: string): ExtractedDoc => ({ kind: 'lines', text, sourceLines: true });
const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;

/** Structural invariants every chunking must satisfy; returns the placed chunks. */
function checkChunking(
  t: import('ava').ExecutionContext,
  doc: ExtractedDoc,
  params: ChunkParams,
): PlacedChunk[] {
  const placed = chunkDocumentWithOffsets(doc, params, tok);
  const { text } = flattenDoc(doc);
  let prevEnd = 0;
  placed.forEach((p, i) => {
    const c = p.chunk;
    t.is(c.index, i);
    t.is(text.slice(p.start, p.end), c.text, `chunk ${i} is the document text at its offsets`);
    t.true(c.tokens >= 1 && c.tokens <= params.chunkTokens, `chunk ${i} has ${c.tokens} tokens`);
    t.is(c.tokens, countTokens(c.text), `chunk ${i} token count`);
    t.false(c.text.includes('\ufffd'), `chunk ${i} has no replacement character`);
    // Coverage: nothing but whitespace is ever left out between chunks.
    if (p.start > prevEnd) t.regex(text.slice(prevEnd, p.start), /^\s*$/, `gap before chunk ${i}`);
    if (i > 0) t.true(p.start > (placed[i - 1] as PlacedChunk).start, 'chunks advance');
    prevEnd = Math.max(prevEnd, p.end);
  });
  t.regex(text.slice(prevEnd), /^\s*$/, 'the end of the document is covered');
  return placed;
}

test('an empty or whitespace-only document gives no chunks', (t) => {
  t.deepEqual(chunkDocument(lines(''), P, tok), []);
  t.deepEqual(chunkDocument(lines('\n\n  \t\n'), P, tok), []);
  t.deepEqual(chunkDocument({ kind: 'pages', pages: [] }, P, tok), []);
  t.deepEqual(chunkDocument({ kind: 'pages', pages: ['', '  \n'] }, P, tok), []);
});

test('chunking is deterministic, also across a fresh encoder', (t) => {
  const doc = lines(prose(300, 3));
  const a = chunkDocument(doc, P, tok);
  const b = chunkDocument(doc, P, tok);
  disposeTokenizer();
  const c = chunkDocument(doc, P, getTokenizer());
  t.true(a.length > 5);
  t.deepEqual(a, b);
  t.deepEqual(a, c);
});

/** Mean token count of all chunks but the last (which holds whatever is left). */
const meanTokens = (placed: PlacedChunk[]) =>
  placed.slice(0, -1).reduce((n, p) => n + p.chunk.tokens, 0) / Math.max(1, placed.length - 1);

test('prose: up to 800-token chunks cut at line ends, ~120-token overlap from a line start, exact counts', (t) => {
  const text = prose(400, 5);
  const placed = checkChunking(t, lines(text), P);
  t.true(placed.length >= 10);
  // Content-defined cuts trade a little size for stability under edits: sizes vary, 800 is the cap.
  t.true(meanTokens(placed) >= 0.7 * P.chunkTokens, `mean ${meanTokens(placed)} tokens`);
  placed.forEach((p, i) => {
    const c = p.chunk;
    t.is(c.tokens, reference.encode_ordinary(c.text).length, `chunk ${i}: tiktoken agrees`);
    const last = i === placed.length - 1;
    if (!last) {
      t.true(c.text.endsWith('\n'), `chunk ${i} ends at a line end`);
      t.true(c.tokens >= P.chunkTokens / 2, `chunk ${i} is not tiny (${c.tokens})`);
    }
    if (i > 0) {
      const prev = placed[i - 1] as PlacedChunk;
      t.regex(c.text, /^L\d+ /, `chunk ${i} starts at a line start`);
      const overlap = countTokens(text.slice(p.start, prev.end));
      t.true(overlap >= 90 && overlap <= 150, `overlap ${overlap} tokens between chunks ${i - 1} and ${i}`);
    }
    // Line ranges are 1-based and inclusive, counted by LF.
    const first = p.start + (c.text.length - c.text.trimStart().length);
    const lastChar = p.start + c.text.trimEnd().length - 1;
    t.is(c.lineStart, lineOf(text, first));
    t.is(c.lineEnd, lineOf(text, lastChar));
    t.is(text.split('\n')[(c.lineStart as number) - 1], c.text.split('\n')[0]);
  });
});

test('a paragraph end wins over line ends when the chunks on both sides fit', (t) => {
  const para = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag}${i} alpha beta gamma delta epsilon zeta eta theta`).join(
      '\n',
    );
  const first = para(54, 'a'); // ~650 tokens
  const text = `${first}\n\n${para(40, 'b')}\n`;
  const tokensFirst = countTokens(`${first}\n\n`);
  t.true(tokensFirst > 600 && tokensFirst < 800, `fixture: first paragraph has ${tokensFirst} tokens`);
  const [c0] = chunkDocument(lines(text), P, tok);
  t.is(c0?.text, `${first}\n\n`);
  t.is(c0?.lineStart, 1);
  t.is(c0?.lineEnd, 54, 'the blank line after the paragraph is not cited');
});

test('overlap 0 partitions the document; the overlap parameter is honoured', (t) => {
  const text = prose(200, 9);
  const placed = checkChunking(t, lines(text), { chunkTokens: 300, overlapTokens: 0 });
  t.is(placed.map((p) => p.chunk.text).join(''), text);
  const withOverlap = checkChunking(t, lines(text), { chunkTokens: 300, overlapTokens: 60 });
  for (let i = 1; i < withOverlap.length; i++) {
    const ov = countTokens(
      text.slice((withOverlap[i] as PlacedChunk).start, (withOverlap[i - 1] as PlacedChunk).end),
    );
    t.true(ov >= 45 && ov <= 75, `overlap ${ov}`);
  }
});

test('PDF pages: chunks carry the page or page range they come from', (t) => {
  const pages = Array.from({ length: 8 }, (_, p) =>
    p === 3
      ? '' // a page without text keeps its number
      : Array.from({ length: 25 }, (_, l) => `P${p + 1}L${l} page text about stores and chunks`).join('\n'),
  );
  const placed = checkChunking(t, { kind: 'pages', pages }, P);
  t.true(
    placed.some((p) => (p.chunk.pageEnd as number) > (p.chunk.pageStart as number)),
    'some chunk spans pages',
  );
  for (const { chunk } of placed) {
    t.is(chunk.lineStart, undefined);
    const tags = [...chunk.text.matchAll(/P(\d+)L\d+/g)].map((m) => Number(m[1]));
    t.is(chunk.pageStart, tags[0]);
    t.is(chunk.pageEnd, tags[tags.length - 1]);
    t.false(tags.includes(4));
  }
  t.is(placed[0]?.chunk.pageStart, 1);
  t.is(placed[placed.length - 1]?.chunk.pageEnd, 8);
});

test('one 5,000-token line: chunks at word starts, all on line 1', (t) => {
  const text = oneLine(2000);
  t.true(Math.abs(countTokens(text) - 5000) < 500, `fixture has ${countTokens(text)} tokens`);
  const placed = checkChunking(t, lines(text), P);
  t.true(placed.length >= 7);
  for (const [i, { chunk }] of placed.entries()) {
    t.is(chunk.lineStart, 1);
    t.is(chunk.lineEnd, 1);
    t.regex(chunk.text, /^ ?w\d+ .* w\d+$/, 'never cuts inside a word');
    t.is(chunk.tokens, reference.encode_ordinary(chunk.text).length);
    if (i < placed.length - 1) t.true(chunk.tokens >= P.chunkTokens / 2);
  }
  t.true(meanTokens(placed) >= 0.7 * P.chunkTokens, `mean ${meanTokens(placed)} tokens`);
});

test('a 1 MB line without whitespace is chunked in bounded time, never splitting a character', (t) => {
  // Guard only (not a benchmark): unsegmented, tiktoken would need many minutes for one such run.
  t.timeout(60_000);
  const rnd = prng(11);
  const letters = Array.from({ length: 1 << 20 }, () =>
    String.fromCharCode(97 + Math.floor(rnd() * 26)),
  ).join('');
  // Base64 (letters, digits, '+', '/') is slow for tiktoken even in short pieces: 256 KB suffices.
  const base64 = Buffer.from(Array.from({ length: 196_608 }, () => Math.floor(rnd() * 256))).toString(
    'base64',
  );
  for (const text of ['x'.repeat(1 << 20), letters, base64]) {
    const placed = checkChunking(t, lines(text), P);
    t.true(placed.length > 100);
    t.true(placed.every((p) => p.chunk.lineStart === 1 && p.chunk.lineEnd === 1));
  }
});

test('tokenizer special-token strings are plain text', (t) => {
  const specials = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>'];
  const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${specials[i % specials.length]} text`).join(
    '\n',
  );
  t.throws(() => reference.encode(text), undefined, 'plain encode() would refuse this text');
  const ids = tok.encodeOrdinary(text);
  t.false([100257, 100258, 100259, 100260, 100276].some((id) => ids.includes(id)));
  const chunks = checkChunking(t, lines(text), P).map((p) => p.chunk);
  t.true(chunks[0]?.text.includes('<|endoftext|>'));
  for (const c of chunks) t.is(c.tokens, reference.encode_ordinary(c.text).length);
});

test('multibyte text (CJK, emoji sequences, combining marks) round-trips at any chunk size', (t) => {
  const text =
    '日本語のテキストと中文文本。'.repeat(40) +
    '\n' +
    '👩‍👩‍👧‍👦👍🏽🇩🇪'.repeat(60) +
    '\n' +
    'e\u0301a\u0308o\u0302 '.repeat(80) +
    '\n' +
    Array.from({ length: 500 }, (_, i) => String.fromCodePoint(0x20000 + i)).join('');
  for (const params of [P, { chunkTokens: 16, overlapTokens: 4 }, { chunkTokens: 17, overlapTokens: 0 }]) {
    checkChunking(t, lines(text), params);
  }
});

test('random text: invariants hold for any content and parameters', (t) => {
  const pieces = [
    'a',
    'word ',
    ' ',
    '\n',
    '\n\n',
    '\r\n',
    '\t',
    'é',
    '中文',
    '😀',
    '👍🏽',
    '12345',
    '.,;',
    '<|endoftext|>',
    'x'.repeat(300),
  ];
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...pieces), { maxLength: 400 }),
      fc.integer({ min: 16, max: 120 }),
      fc.integer({ min: 0, max: 60 }),
      (parts, chunkTokens, ov) => {
        const overlapTokens = Math.min(ov, Math.floor(chunkTokens / 2));
        checkChunking(t, lines(parts.join('')), { chunkTokens, overlapTokens });
      },
    ),
    { numRuns: 150 },
  );
});

test('chunk parameters are validated', (t) => {
  const doc = lines('some text');
  for (const params of [
    { chunkTokens: 8, overlapTokens: 0 },
    { chunkTokens: 100.5, overlapTokens: 0 },
    { chunkTokens: 100, overlapTokens: 51 },
    { chunkTokens: 100, overlapTokens: -1 },
  ]) {
    const err = t.throws(() => chunkDocument(doc, params, tok));
    t.is((err as { code?: string }).code, 'INVALID_ARGUMENT');
  }
});

/** Chunks of `after` whose text is not among the chunks of `before`: what an update would embed. */
function newChunks(before: string, after: string): number {
  const old = new Set(chunkDocument(lines(before), P, tok).map((c) => c.text));
  return chunkDocument(lines(after), P, tok).filter((c) => !old.has(c.text)).length;
}

test('cuts re-synchronise: a one-line insertion or deletion changes only the chunks around it', (t) => {
  // Prose with paragraphs, and plain lines without any blank line (where only line ends compete).
  const plainLines = Array.from(
    { length: 3000 },
    (_, i) =>
      `row ${i} ${prose(1, i + 7)
        .replace(/^L\d+ /, '')
        .trim()}`,
  ).join('\n');
  for (const [name, text] of [
    ['paragraphs', prose(1200, 3)],
    ['plain lines', `${plainLines}\n`],
  ] as const) {
    const textLines = text.split('\n');
    t.true(chunkDocument(lines(text), P, tok).length >= 50, `${name}: a long document`);
    const counts: number[] = [];
    for (let k = 0; k < 40; k++) {
      const at = Math.floor(textLines.length * (0.05 + (0.9 * k) / 40));
      const inserted = [...textLines];
      inserted.splice(at, 0, `An inserted line ${k} about stores and snapshots.`);
      counts.push(newChunks(text, inserted.join('\n')));
      const deleted = [...textLines];
      deleted.splice(at, 1);
      counts.push(newChunks(text, deleted.join('\n')));
    }
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    // A greedy chunker (each cut ~800 tokens after the previous one) often re-makes every later
    // chunk: 6.5 per edit on average here, up to 80. Content-defined cuts: ~1.5, rarely over 3.
    t.true(mean <= 2, `${name}: ${mean.toFixed(2)} new chunks per edit on average (${counts.join(' ')})`);
    t.true(counts.filter((c) => c > 3).length <= counts.length / 10, `${name}: ${counts.join(' ')}`);
    t.true(Math.max(...counts) <= 6, `${name}: ${counts.join(' ')}`);
  }
});

test('an append changes the last chunk only, unless it was full', (t) => {
  const add = 'One more line appended at the end of the document.\n';
  let fits = 0;
  let full = 0;
  for (let paragraphs = 60; paragraphs < 900; paragraphs += 7) {
    const text = prose(paragraphs, paragraphs);
    const before = chunkDocument(lines(text), P, tok);
    const last = before[before.length - 1] as { tokens: number };
    const changed = newChunks(text, text + add);
    if (last.tokens + countTokens(add) > P.chunkTokens) {
      full++;
      t.true(changed <= 3, `${paragraphs} paragraphs, last chunk full: ${changed} new chunks`);
    } else {
      fits++;
      t.is(changed, 1, `${paragraphs} paragraphs`);
    }
  }
  t.true(fits >= 60 && full >= 3, `${fits} documents whose last chunk had room, ${full} full`);
});
