import * as fs from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { extractDocument } from '../../src/extract/extract.js';
import { setProcFdForTests } from '../../src/scan/dir-handle.js';
import { scanSource } from '../../src/scan/scan-source.js';
import { scannedFile } from '../../src/store/sync-plan.js';
import { put, row, tempTree, useTempHome } from './tree.js';

// What the walk records for extraction (the identity of each folder entered and of each file
// read), and the same walk with names instead of /proc/self/fd (platforms without /proc).
// Serial: the fallback switch is process-wide.

useTempHome();

const idOf = (p: string) => {
  const st = fs.lstatSync(p);
  return `${st.dev}:${st.ino}`;
};

test.serial(
  'accepted rows carry the file identity; the review the identity of every folder entered',
  async (t) => {
    const root = await tempTree(t);
    put(root, 'a.md');
    put(root, 'sub/deeper/b.md');
    put(root, 'sub/skip.bin', Buffer.from([0, 1, 2]));
    const review = await scanSource({ root, kind: 'folder' });
    t.is(row(review, 'a.md').fileId, idOf(join(root, 'a.md')));
    t.is(row(review, 'sub/deeper/b.md').fileId, idOf(join(root, 'sub/deeper/b.md')));
    t.is(row(review, 'sub/skip.bin').fileId, undefined);
    t.deepEqual(review.dirIds, {
      '': idOf(root),
      sub: idOf(join(root, 'sub')),
      'sub/deeper': idOf(join(root, 'sub/deeper')),
    });
    t.deepEqual(scannedFile(review, row(review, 'sub/deeper/b.md')), {
      root,
      names: ['sub', 'deeper', 'b.md'],
      dirIds: [idOf(root), idOf(join(root, 'sub')), idOf(join(root, 'sub/deeper'))],
      fileId: idOf(join(root, 'sub/deeper/b.md')),
      size: 5,
      sha256: row(review, 'sub/deeper/b.md').sha256!,
    });
    const file = await scanSource({ root: join(root, 'a.md'), kind: 'file' });
    t.is(file.dirIds, undefined);
    t.deepEqual(scannedFile(file, file.rows[0]!)?.names, []);
  },
);

test.serial(
  'without /proc the walk gives the same review, and extraction still refuses a swapped folder',
  async (t) => {
    const root = await tempTree(t);
    put(root, 'a.md', 'alpha\n');
    put(root, 'sub/b.md', 'bravo\n');
    fs.symlinkSync('/etc', join(root, 'link'));
    const withProc = await scanSource({ root, kind: 'folder' });
    setProcFdForTests(false);
    t.teardown(() => setProcFdForTests(undefined));
    const byName = await scanSource({ root, kind: 'folder' });
    t.deepEqual(byName, withProc);
    const scanned = scannedFile(byName, row(byName, 'sub/b.md'))!;
    const ok = await extractDocument(join(root, 'sub/b.md'), 'text', { scanned });
    t.deepEqual(ok, { kind: 'lines', text: 'bravo\n', sourceLines: true });
    // The folder swapped for a link to a copy elsewhere: the same bytes, not the scanned file.
    const elsewhere = await tempTree(t);
    put(elsewhere, 'b.md', 'bravo\n');
    fs.renameSync(join(root, 'sub'), join(root, '.sub'));
    fs.symlinkSync(elsewhere, join(root, 'sub'));
    const err = (await t.throwsAsync(extractDocument(join(root, 'sub/b.md'), 'text', { scanned }))) as {
      details?: { skipReason?: string };
    };
    t.is(err.details?.skipReason, 'symlink');
  },
);
