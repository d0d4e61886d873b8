import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  checkPages,
  classifyExit,
  classifyParserError,
  type PdfFailure,
} from '../../src/extract/pdf-outcome.js';
import { assemblePageText, type PdfTextBlock } from '../../src/extract/pdf-text.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-pdftext-'));

// Blocks as pdf2json 4 emits them: x/y in form units (1/16 pt), w in points.
const b = (x: number, y: number, T: string, w?: number): PdfTextBlock => ({
  x,
  y,
  R: [{ T }],
  ...(w === undefined ? {} : { w }),
});

const cases: [string, PdfTextBlock[], string, { uriEncoded?: boolean }?][] = [
  ['no blocks', [], ''],
  ['whitespace-only blocks', [b(1, 1, '  ')], ''],
  ['one line', [b(4.25, 3.75, 'Hello page one')], 'Hello page one'],
  ['lines ordered by y', [b(4, 5, 'second'), b(4, 3.75, 'first')], 'first\nsecond'],
  [
    'same line ordered by x, with a word gap',
    [b(6.167, 5, 'world', 28.668), b(4.25, 5, 'Hello', 27.336)],
    'Hello world',
  ],
  ['touching blocks are glued', [b(4.25, 5, 'Hel', 17.34), b(4.25 + 17.34 / 16, 5, 'lo', 10)], 'Hello'],
  [
    'small baseline jitter stays on one line',
    [b(4, 5, 'a', 6), b(5, 5.1, 'b', 6), b(6, 4.95, 'c', 6)],
    'a b c',
  ],
  ['unknown widths are space-separated', [b(4, 5, 'x'), b(5, 5, 'y')], 'x y'],
  [
    'no space added next to an existing one',
    [b(4, 5, 'x ', 10), b(9, 5, 'y', 10), b(12, 5, ' z', 10)],
    'x y z',
  ],
  [
    'a large vertical gap is a paragraph break',
    [b(4, 3.75, 'p1 l1'), b(4, 5, 'p1 l2'), b(4, 6.25, 'p1 l3'), b(4, 10, 'p2 l1'), b(4, 11.25, 'p2 l2')],
    'p1 l1\np1 l2\np1 l3\n\np2 l1\np2 l2',
  ],
  ['multiple runs in a block are joined', [{ x: 1, y: 1, R: [{ T: 'ab' }, { T: 'cd' }] }], 'abcd'],
  ['control characters become spaces', [b(1, 1, 'a\u0000b\u0007c')], 'a b c'],
  ['raw text with % is kept (pdf2json 4)', [b(1, 1, '50% of %20')], '50% of %20'],
  [
    'URI-encoded runs are decoded (pdf2json < 3.1)',
    [b(1, 1, 'caf%C3%A9%20%26%20bar')],
    'café & bar',
    { uriEncoded: true },
  ],
  ['a stray % in URI mode is kept', [b(1, 1, '100%')], '100%', { uriEncoded: true }],
  ['non-finite positions are ignored', [b(Number.NaN, 1, 'bad'), b(1, 1, 'good')], 'good'],
];

for (const [name, blocks, want, opts] of cases) {
  test(`assemblePageText: ${name}`, (t) => {
    t.is(assemblePageText(blocks, opts), want);
  });
}

test('parser errors: password and encryption problems vs malformed files', (t) => {
  const table: [string, PdfFailure['skipReason'], RegExp][] = [
    ['PasswordException: No password given', 'pdf-encrypted', /^password-protected PDF/],
    [
      'Error: Error: unsupported encryption algorithm',
      'pdf-encrypted',
      /^encrypted PDF the parser cannot open \(unsupported/,
    ],
    ['Error: Invalid XRef stream', 'pdf-invalid', /^malformed PDF \(Invalid XRef stream\)$/],
    ['', 'pdf-invalid', /unknown parser error/],
  ];
  for (const [message, skipReason, reason] of table) {
    const f = classifyParserError(message);
    t.is(f.skipReason, skipReason, message);
    t.regex(f.reason, reason);
  }
});

test('pages without text are pdf-no-text; one page with text is enough', (t) => {
  t.is(checkPages([' ', ''])?.skipReason, 'pdf-no-text');
  t.is(checkPages([])?.skipReason, 'pdf-no-text');
  t.is(checkPages(['', 'text']), undefined);
});

test('child exits: timeout, memory cap, other deaths', (t) => {
  const base = { code: null, signal: null, stderr: '', timedOut: false, timeoutMs: 1000, heapMb: 64 };
  t.deepEqual(classifyExit({ ...base, signal: 'SIGKILL', timedOut: true }), {
    skipReason: 'pdf-timeout',
    reason: 'PDF parsing exceeded 1000 ms; the parser was stopped',
  });
  const oom = classifyExit({
    ...base,
    signal: 'SIGABRT',
    stderr: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
  });
  t.is(oom.skipReason, 'pdf-timeout');
  t.regex(oom.reason, /64 MiB memory cap/);
  t.deepEqual(classifyExit({ ...base, code: 0 }), {
    skipReason: 'pdf-invalid',
    reason: 'malformed PDF (the parser stopped without a result, exit code 0)',
  });
});
