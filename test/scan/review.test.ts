import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { buildReview, compareWalkOrder } from '../../src/scan/review.js';
import { scanSource } from '../../src/scan/scan-source.js';
import { put, row, tempTree, useTempHome } from './tree.js';

useTempHome();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('status against the previous hashes: new, changed, unchanged, removed; sha256 is of the whole file', async (t) => {
  const root = await tempTree(t);
  put(root, 'same.md', 'same\n');
  put(root, 'edited.md', 'new text\n');
  put(root, 'added.md', 'added\n');
  put(root, 'now-binary.md', 'a\u0000b');
  const previous = new Map([
    [join(root, 'same.md'), sha('same\n')],
    [join(root, 'edited.md'), sha('old text\n')],
    [join(root, 'deleted.md'), sha('gone\n')],
    [join(root, 'now-binary.md'), sha('was text\n')],
    ['/elsewhere/other-source.md', sha('x')], // another source's file: not this scan's business
  ]);
  const review = await scanSource({ root, kind: 'folder', previous });
  t.is(row(review, 'same.md').status, 'unchanged');
  t.is(row(review, 'same.md').sha256, sha('same\n'));
  t.is(row(review, 'edited.md').status, 'changed');
  t.is(row(review, 'added.md').status, 'new');
  t.is(row(review, 'now-binary.md').status, 'skipped');
  t.deepEqual(review.removed, [join(root, 'deleted.md'), join(root, 'now-binary.md')]);
  t.deepEqual(review.summary.toIndex, { new: 1, changed: 1 });
  t.is(review.summary.unchanged, 1);
  t.is(review.summary.removed, 2);
  t.deepEqual(review.summary.skipped, { binary: 1 });
  t.deepEqual(review.summary.formats, { markdown: { count: 3, bytes: 5 + 9 + 6 } });
});

test('a file hashed across several read chunks matches sha256 of its bytes, and mtime is kept', async (t) => {
  const root = await tempTree(t);
  const body = 'line of text é\n'.repeat(200_000); // ~3.2 MB: four read chunks
  const file = put(root, 'big.txt', body);
  const review = await scanSource({ root: file, kind: 'file' });
  t.is(review.rows[0]!.sha256, sha(body));
  t.is(review.rows[0]!.mtimeMs, fs.statSync(file).mtimeMs);
  t.is(review.rows[0]!.size, Buffer.byteLength(body));
});

test('when a bound stops the walk, only paths already passed can be reported removed', async (t) => {
  const root = await tempTree(t);
  for (const f of ['b.md', 'd.md', 'f.md']) put(root, f);
  const previous = new Map([
    [join(root, 'a.md'), sha('gone before the stop')],
    [join(root, 'c/x.md'), sha('gone before the stop')],
    [join(root, 'e.md'), sha('gone, and the walk passed its place')],
    [join(root, 'f.md'), sha('the stop point: not visited, unknown')],
    [join(root, 'g.md'), sha('after the stop: unknown')],
  ]);
  const review = await scanSource({ root, kind: 'folder', previous, bounds: { maxFiles: 2 } });
  t.is(review.stoppedBy?.bound, 'files');
  t.deepEqual(review.removed, [join(root, 'a.md'), join(root, 'c/x.md'), join(root, 'e.md')]);
});

test('a file root still there is changed, not removed; once deleted it is SOURCE_NOT_FOUND', async (t) => {
  const root = await tempTree(t);
  const file = put(root, 'doc.md', 'v2\n');
  const previous = new Map([[file, sha('v1\n')]]);
  const review = await scanSource({ root: file, kind: 'file', previous });
  t.is(review.rows[0]!.status, 'changed');
  t.deepEqual(review.removed, []);
  fs.unlinkSync(file);
  // The store layer turns this into a MISSING source with its documents removed (spec).
  await t.throwsAsync(scanSource({ root: file, kind: 'file', previous }), {
    code: 'SOURCE_NOT_FOUND',
  } as never);
});

test('walk order is component-wise byte order', (t) => {
  const p = (s: string) => s.split('/').map((x) => Buffer.from(x));
  t.true(compareWalkOrder(p('a/z'), p('a.md')) < 0);
  t.true(compareWalkOrder(p('a'), p('a/b')) < 0);
  t.true(compareWalkOrder(p('B'), p('a')) < 0);
  t.true(compareWalkOrder(p('z'), p('é')) < 0);
  t.is(compareWalkOrder(p('x/y'), p('x/y')), 0);
});

test('buildReview keeps row order and counts skipped reasons', (t) => {
  const review = buildReview({
    root: '/r',
    entries: [
      {
        path: '/r/a',
        relPath: 'a',
        format: null,
        size: 1,
        accepted: false,
        reason: 'hidden',
        explanation: 'h',
      },
      {
        path: '/r/b.md',
        relPath: 'b.md',
        format: 'markdown',
        size: 3,
        accepted: true,
        sha256: 'x',
        chars: 3,
      },
      {
        path: '/r/c',
        relPath: 'c',
        format: null,
        size: 0,
        accepted: false,
        reason: 'hidden',
        explanation: 'h',
      },
    ],
  });
  t.deepEqual(
    review.rows.map((r) => [r.relPath, r.status]),
    [
      ['a', 'skipped'],
      ['b.md', 'new'],
      ['c', 'skipped'],
    ],
  );
  t.deepEqual(review.summary.skipped, { hidden: 2 });
  t.is(review.summary.visited, 3);
  t.is(review.summary.extractedChars, 3);
  t.false('accepted' in review.rows[0]!);
});
