import * as fs from 'node:fs';
import test from 'ava';
import { MiB } from '../../src/scan/rules.js';
import { scanSource } from '../../src/scan/scan-source.js';
import type { ScanProgress } from '../../src/scan/walk.js';
import { put, tempTree, useTempHome } from './tree.js';

useTempHome();

async function manyFiles(t: Parameters<typeof tempTree>[0], n: number) {
  const root = await tempTree(t);
  for (let i = 0; i < n; i++) put(root, `d${i % 20}/f${i}.md`, `# file ${i}\n${'text '.repeat(200)}\n`);
  return root;
}

test('an already aborted signal cancels before any work', async (t) => {
  const root = await tempTree(t);
  put(root, 'a.md');
  await t.throwsAsync(scanSource({ root, kind: 'folder', signal: AbortSignal.abort() }), {
    code: 'SCAN_CANCELLED',
  } as never);
});

test('aborting while the scan runs cancels it: the scan yields to the event loop as it goes', async (t) => {
  const root = await manyFiles(t, 3000);
  const controller = new AbortController();
  let timerFired = false;
  // A timer can only fire mid-scan if the scan gives the event loop a turn.
  setTimeout(() => {
    timerFired = true;
    controller.abort();
  }, 1);
  await t.throwsAsync(scanSource({ root, kind: 'folder', signal: controller.signal }), {
    code: 'SCAN_CANCELLED',
  } as never);
  t.true(timerFired);
});

test('progress reports grow monotonically and end with the totals', async (t) => {
  const root = await manyFiles(t, 3000);
  const seen: ScanProgress[] = [];
  const review = await scanSource({ root, kind: 'folder', onProgress: (p) => seen.push({ ...p }) });
  t.true(seen.length >= 2, `progress reported ${seen.length} times`);
  for (let i = 1; i < seen.length; i++) {
    t.true(seen[i]!.visited >= seen[i - 1]!.visited);
    t.true(seen[i]!.bytes >= seen[i - 1]!.bytes);
  }
  t.deepEqual(seen.at(-1), {
    visited: review.summary.visited,
    accepted: review.summary.toIndex.new,
    bytes: review.summary.acceptedBytes,
  });
  t.is(review.summary.visited, 3000);
});

test('a large file is read in steps: cancelling during it works and leaves no file descriptor open', async (t) => {
  const root = await tempTree(t);
  put(root, 'big.log', Buffer.alloc(96 * 1024 * 1024, 'log line\n'));
  // Descriptors on this tree (other tests of this file run concurrently and hold their own).
  const fds = () =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(root);
      } catch {
        return false;
      }
    }).length;
  const before = fds();
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1);
  await t.throwsAsync(
    scanSource({ root, kind: 'folder', signal: controller.signal, options: { maxFileBytes: 128 * MiB } }),
    {
      code: 'SCAN_CANCELLED',
    } as never,
  );
  t.is(fds(), before);
  // Uncancelled, the same file is read to the end.
  const review = await scanSource({ root, kind: 'folder', options: { maxFileBytes: 128 * MiB } });
  t.is(review.rows[0]!.status, 'new');
  t.is(review.rows[0]!.size, 96 * MiB);
});
