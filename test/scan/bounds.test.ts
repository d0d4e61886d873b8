import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import test from 'ava';
import { main } from '../../src/cli/main.js';
import { scanSource, scanSources } from '../../src/scan/scan-source.js';
import { acceptedPaths, put, row, tempTree, useTempHome } from './tree.js';

// The three preview bounds stop the preview with the reason shown, never truncate silently.
// Small bound values keep the tests fast; one test uses the real 5,000-file default.

useTempHome();

const name = (i: number) => `f${String(i).padStart(5, '0')}.md`;

test('the visited-files bound (default 5,000) stops the preview before the next entry', async (t) => {
  const root = await tempTree(t);
  for (let i = 0; i < 5001; i++) put(root, name(i), 'x\n');
  const review = await scanSource({ root, kind: 'folder' });
  t.is(review.rows.length, 5000);
  t.is(review.summary.visited, 5000);
  t.is(review.rows.at(-1)!.relPath, name(4999));
  t.is(review.stoppedBy?.bound, 'files');
  t.is(
    review.stoppedBy?.message,
    `preview stopped before ${join(root, name(5000))}: 5,000 files visited, the limit for one preview; ` +
      'narrow the source (exclude globs, subfolders) to review the rest',
  );
  // The CLI says so and exits with status 3: a stopped preview is never passed off as complete.
  const out = new PassThrough();
  let text = '';
  out.on('data', (c) => {
    text += c;
  });
  const io = {
    stdout: out,
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: process.env,
    cwd: root,
  };
  t.is(await main(['scan', root], io), 3);
  t.regex(
    text,
    /\nPREVIEW INCOMPLETE \(files bound\): preview stopped before .*f05000\.md: 5,000 files visited/,
  );
});

test('exactly the file bound is a complete preview', async (t) => {
  const root = await tempTree(t);
  for (let i = 0; i < 7; i++) put(root, name(i));
  const review = await scanSource({ root, kind: 'folder', bounds: { maxFiles: 7 } });
  t.is(review.rows.length, 7);
  t.is(review.stoppedBy, undefined);
});

test('skipped entries count as visited too', async (t) => {
  const root = await tempTree(t);
  put(root, 'a.xlsx');
  put(root, 'b/node_modules/x.js');
  put(root, 'c.md');
  put(root, 'd.md');
  const review = await scanSource({ root, kind: 'folder', bounds: { maxFiles: 2 } });
  t.deepEqual(
    review.rows.map((r) => [r.relPath, r.reason]),
    [
      ['a.xlsx', 'unsupported-format'],
      ['b/node_modules/', 'excluded-dir'],
    ],
  );
  t.is(review.stoppedBy?.bound, 'files');
});

test('the accepted-bytes bound stops at the file that would pass it', async (t) => {
  const root = await tempTree(t);
  for (let i = 0; i < 5; i++) put(root, name(i), 'a'.repeat(1000));
  const review = await scanSource({ root, kind: 'folder', bounds: { maxAcceptedBytes: 3000 } });
  t.deepEqual(acceptedPaths(review), [name(0), name(1), name(2)]);
  const stop = row(review, name(3));
  t.is(stop.reason, 'bound-reached');
  t.is(review.rows.length, 4);
  t.is(review.summary.acceptedBytes, 3000);
  t.is(review.stoppedBy?.bound, 'bytes');
  t.is(
    review.stoppedBy?.message,
    `preview stopped at ${join(root, name(3))} (1000 B): accepting it would pass 2.9 KiB (3,000 bytes) of accepted source data, the limit for one preview`,
  );
  t.is(stop.explanation, review.stoppedBy?.message);
});

test('the extracted-characters bound counts code points, not bytes', async (t) => {
  const root = await tempTree(t);
  for (let i = 0; i < 4; i++) put(root, name(i), 'é'.repeat(500)); // 1000 bytes, 500 characters each
  const review = await scanSource({ root, kind: 'folder', bounds: { maxExtractedChars: 1200 } });
  t.deepEqual(acceptedPaths(review), [name(0), name(1)]);
  t.is(row(review, name(2)).reason, 'bound-reached');
  t.is(review.summary.extractedChars, 1000);
  t.is(review.stoppedBy?.bound, 'chars');
  t.regex(
    review.stoppedBy!.message,
    /\(500 characters\): accepting it would pass 1,200 extracted characters/,
  );
  // The byte-sized equivalent would have stopped earlier: characters really are counted.
  const bytes = await scanSource({ root, kind: 'folder', bounds: { maxExtractedChars: 2000 } });
  t.is(bytes.stoppedBy, undefined);
  t.is(bytes.summary.extractedChars, 2000);
});

test('bounds apply across all roots of one preview; later roots are not scanned and say so', async (t) => {
  const base = await tempTree(t);
  const [a, b, c] = ['a', 'b', 'c'].map((d) => join(base, d)) as [string, string, string];
  put(a, 'one.md');
  put(a, 'two.md');
  put(b, 'three.md');
  put(b, 'four.md');
  put(c, 'five.md');
  const reviews = await scanSources(
    [
      { root: a, kind: 'folder' },
      { root: b, kind: 'folder' },
      { root: c, kind: 'folder' },
    ],
    { bounds: { maxFiles: 3 } },
  );
  t.deepEqual(
    reviews.map((r) => r.rows.length),
    [2, 1, 0],
  );
  t.is(reviews[0]!.stoppedBy, undefined);
  t.is(reviews[1]!.stoppedBy?.bound, 'files');
  t.is(reviews[2]!.stoppedBy?.message, `not scanned: ${reviews[1]!.stoppedBy?.message}`);
});
