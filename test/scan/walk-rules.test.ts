import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import { EXCLUDED_DIRS, MiB } from '../../src/scan/rules.js';
import { scanSource } from '../../src/scan/scan-source.js';
import { acceptedPaths, put, row, rowMap, tempTree, useTempHome } from './tree.js';

useTempHome();

test('each excluded directory is reported once and not entered', async (t) => {
  const root = await tempTree(t);
  for (const dir of EXCLUDED_DIRS) put(root, `${dir}/inside.md`, '# hidden\n');
  put(root, 'src/build/nested.md'); // excluded names apply at any depth
  put(root, 'keep.md');
  const review = await scanSource({ root, kind: 'folder' });
  for (const dir of EXCLUDED_DIRS) {
    const r = row(review, `${dir}/`);
    t.is(r.reason, 'excluded-dir', dir);
    t.is(r.status, 'skipped');
    t.false(
      review.rows.some((x) => x.relPath.startsWith(`${dir}/inside`)),
      `${dir} was entered`,
    );
  }
  t.is(row(review, 'src/build/').reason, 'excluded-dir');
  t.deepEqual(acceptedPaths(review), ['keep.md']);
  t.is(review.summary.skipped['excluded-dir'], EXCLUDED_DIRS.size + 1);
});

test('a file named like an excluded directory is not excluded; the chosen root itself is exempt', async (t) => {
  const base = await tempTree(t);
  const root = join(base, 'build');
  put(root, 'notes.md');
  put(root, 'dist.txt');
  const review = await scanSource({ root, kind: 'folder' });
  t.deepEqual(acceptedPaths(review).sort(), ['dist.txt', 'notes.md']);
});

test('hidden files and directories are skipped as hidden', async (t) => {
  const root = await tempTree(t);
  put(root, '.env', 'SECRET=1\n');
  put(root, '.config/app.yaml', 'a: 1\n');
  put(root, 'docs/.draft.md');
  put(root, 'docs/visible.md');
  const review = await scanSource({ root, kind: 'folder' });
  t.is(row(review, '.env').reason, 'hidden');
  t.is(row(review, '.env').size, 9);
  t.is(row(review, '.config/').reason, 'hidden');
  t.is(row(review, 'docs/.draft.md').reason, 'hidden');
  t.false(review.rows.some((r) => r.relPath.startsWith('.config/app')));
  t.deepEqual(acceptedPaths(review), ['docs/visible.md']);
});

test('symbolic links to files and folders, dangling and looping links are reported, never followed', async (t) => {
  const root = await tempTree(t);
  const outside = await tempTree(t);
  put(outside, 'secret.md', 'outside the source\n');
  put(root, 'real/a.md');
  fs.symlinkSync(join(outside, 'secret.md'), join(root, 'file-link.md'));
  fs.symlinkSync(outside, join(root, 'dir-link'));
  fs.symlinkSync('..', join(root, 'real/up')); // a cycle if followed
  fs.symlinkSync('loop-b.md', join(root, 'loop-a.md'));
  fs.symlinkSync('loop-a.md', join(root, 'loop-b.md'));
  fs.symlinkSync('self.md', join(root, 'self.md'));
  fs.symlinkSync('missing.md', join(root, 'dangling.md'));
  const review = await scanSource({ root, kind: 'folder' });
  for (const rel of [
    'file-link.md',
    'dir-link',
    'real/up',
    'loop-a.md',
    'loop-b.md',
    'self.md',
    'dangling.md',
  ]) {
    t.is(row(review, rel).reason, 'symlink', rel);
  }
  t.is(
    row(review, 'file-link.md').explanation,
    `symbolic link to ${join(outside, 'secret.md')}; links are never followed`,
  );
  t.is(row(review, 'loop-a.md').explanation, 'symbolic link to loop-b.md; links are never followed');
  t.deepEqual(acceptedPaths(review), ['real/a.md']);
  t.false(review.rows.some((r) => r.path.startsWith(outside)));
});

test('a symbolic link as the root is an error, for folder and file sources', async (t) => {
  const base = await tempTree(t);
  put(base, 'real/a.md');
  fs.symlinkSync(join(base, 'real'), join(base, 'link'));
  fs.symlinkSync(join(base, 'real/a.md'), join(base, 'a-link.md'));
  await t.throwsAsync(scanSource({ root: join(base, 'link'), kind: 'folder' }), {
    code: 'SOURCE_IS_SYMLINK',
  } as never);
  await t.throwsAsync(scanSource({ root: join(base, 'a-link.md'), kind: 'file' }), {
    code: 'SOURCE_IS_SYMLINK',
  } as never);
});

test('missing roots, type mismatches and devices are errors with codes', async (t) => {
  const base = await tempTree(t);
  put(base, 'f.md');
  await t.throwsAsync(scanSource({ root: join(base, 'nope'), kind: 'folder' }), {
    code: 'SOURCE_NOT_FOUND',
  } as never);
  await t.throwsAsync(scanSource({ root: join(base, 'f.md'), kind: 'folder' }), {
    code: 'SOURCE_TYPE_MISMATCH',
    message: `${join(base, 'f.md')}: expected a folder, found a file`,
  } as never);
  await t.throwsAsync(scanSource({ root: base, kind: 'file' }), { code: 'SOURCE_TYPE_MISMATCH' } as never);
  await t.throwsAsync(scanSource({ root: '/dev/null', kind: 'file' }), {
    code: 'SOURCE_TYPE_MISMATCH',
    message: '/dev/null: expected a file, found a device',
  } as never);
});

test('FIFOs and sockets are skipped without being opened', async (t) => {
  const root = await tempTree(t);
  put(root, 'ok.md');
  execFileSync('mkfifo', [join(root, 'pipe.md')]);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(root, 'sock.txt'), resolve));
  t.teardown(() => server.close());
  const review = await scanSource({ root, kind: 'folder' });
  t.is(row(review, 'pipe.md').reason, 'special-file');
  t.is(row(review, 'pipe.md').explanation, 'FIFO; not opened');
  t.is(row(review, 'sock.txt').explanation, 'socket; not opened');
  t.deepEqual(acceptedPaths(review), ['ok.md']);
  await t.throwsAsync(scanSource({ root: join(root, 'pipe.md'), kind: 'file' }), {
    message: `${join(root, 'pipe.md')}: expected a file, found a FIFO`,
  });
});

test('per-source size limit: over the limit is too-large, at the limit is read; bad limits are refused', async (t) => {
  const root = await tempTree(t);
  put(root, 'at-limit.txt', Buffer.alloc(MiB, 'a'));
  put(root, 'over-limit.txt', Buffer.alloc(MiB + 1, 'a'));
  // The default limit is 50 MiB: a sparse file one byte over it is refused without reading.
  const big = put(root, 'default-over.log', '');
  fs.truncateSync(big, 50 * MiB + 1);
  const small = await scanSource({ root, kind: 'folder', options: { maxFileBytes: MiB } });
  t.is(row(small, 'at-limit.txt').status, 'new');
  t.is(row(small, 'over-limit.txt').reason, 'too-large');
  t.is(
    row(small, 'over-limit.txt').explanation,
    "1.0 MiB (1,048,577 bytes) is over this source's per-file limit of 1 MiB",
  );
  t.is(row(small, 'over-limit.txt').size, MiB + 1);
  const byDefault = await scanSource({ root, kind: 'folder' });
  t.is(row(byDefault, 'over-limit.txt').status, 'new');
  t.is(row(byDefault, 'default-over.log').reason, 'too-large');
  for (const bad of [0, MiB - 1, 1024 * MiB + 1, 1.5 * MiB + 0.5]) {
    await t.throwsAsync(scanSource({ root, kind: 'folder', options: { maxFileBytes: bad } }), {
      code: 'INVALID_SIZE_LIMIT',
    } as never);
  }
});

test('content rules on real files: invalid UTF-8, UTF-16 with BOM, NUL, control bytes, BOM and form feed', async (t) => {
  const root = await tempTree(t);
  put(root, 'latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
  put(root, 'utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')]));
  put(root, 'nul.json', Buffer.from('{"a":1}\u0000', 'utf8'));
  put(root, 'ansi.log', 'ok\n\u001b[31mred\u001b[0m\n');
  put(root, 'bom.md', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# title\n')]));
  put(root, 'gnu.c', 'int a;\n\f\nint b;\r\n');
  put(root, 'empty.txt', '');
  // A multi-byte character straddling the 1 MiB read-buffer boundary.
  put(root, 'straddle.md', Buffer.concat([Buffer.alloc(MiB - 1, 'a'), Buffer.from('é世\n')]));
  const review = await scanSource({ root, kind: 'folder' });
  const rows = rowMap(review);
  t.is(rows.get('latin1.txt')!.reason, 'not-utf8');
  t.is(rows.get('latin1.txt')!.explanation, 'not UTF-8: invalid byte sequence at byte offset 3');
  t.is(rows.get('utf16.txt')!.reason, 'not-utf8');
  t.regex(rows.get('utf16.txt')!.explanation!, /UTF-16 LE/);
  t.is(rows.get('nul.json')!.reason, 'binary');
  t.is(rows.get('ansi.log')!.reason, 'control-bytes');
  t.is(rows.get('bom.md')!.status, 'new');
  t.is(rows.get('bom.md')!.chars, 8);
  t.is(rows.get('gnu.c')!.status, 'new');
  t.is(rows.get('empty.txt')!.status, 'new');
  t.is(rows.get('straddle.md')!.status, 'new');
  t.is(rows.get('straddle.md')!.chars, MiB - 1 + 3);
  t.is(review.summary.skipped['not-utf8'], 2);
});

test('uppercase suffixes are accepted; unsupported formats are skipped with the kind named', async (t) => {
  const root = await tempTree(t);
  put(root, 'README.MD');
  put(root, 'Main.PY', 'print(1)\n');
  put(root, 'Dockerfile.dev', 'FROM x\n');
  put(root, 'budget.XLSX', Buffer.from([0x50, 0x4b, 3, 4]));
  put(root, 'photo.png', Buffer.from([0x89, 0x50]));
  put(root, 'fake.pdf', 'not really a pdf\n');
  put(root, 'real.PDF', '%PDF-1.4\n%%EOF\n');
  const review = await scanSource({ root, kind: 'folder' });
  t.deepEqual(acceptedPaths(review), ['Dockerfile.dev', 'Main.PY', 'README.MD', 'real.PDF']);
  t.is(row(review, 'budget.XLSX').reason, 'unsupported-format');
  t.is(row(review, 'budget.XLSX').explanation, 'Office document (.xlsx) is not indexed in v1');
  t.is(row(review, 'photo.png').explanation, 'image (.png) is not indexed in v1');
  t.is(row(review, 'fake.pdf').reason, 'pdf-invalid');
  t.deepEqual(review.summary.formats, {
    dockerfile: { count: 1, bytes: 7 },
    python: { count: 1, bytes: 9 },
    markdown: { count: 1, bytes: 5 },
    pdf: { count: 1, bytes: 15 },
  });
});

test('include globs only narrow the allowlist; exclude globs skip files and folders', async (t) => {
  const root = await tempTree(t);
  put(root, 'docs/guide.md');
  put(root, 'docs/deep/more.MD');
  put(root, 'docs/table.xlsx');
  put(root, 'docs/bin.md', 'a\u0000b');
  put(root, 'src/app.ts');
  put(root, 'src/tmp/scratch.ts');
  put(root, 'notes.txt');
  const inc = await scanSource({ root, kind: 'folder', options: { include: ['docs/**/*.md', '*.xlsx'] } });
  t.deepEqual(acceptedPaths(inc), ['docs/deep/more.MD', 'docs/guide.md']);
  t.is(row(inc, 'docs/table.xlsx').reason, 'unsupported-format'); // an include cannot widen the allowlist
  t.is(row(inc, 'docs/bin.md').reason, 'binary');
  t.is(row(inc, 'src/app.ts').reason, 'not-included');
  t.is(row(inc, 'notes.txt').reason, 'not-included');
  const exc = await scanSource({
    root,
    kind: 'folder',
    options: { exclude: ['tmp', '*.txt', 'docs/deep/**'] },
  });
  t.deepEqual(acceptedPaths(exc), ['docs/guide.md', 'src/app.ts']);
  t.is(row(exc, 'src/tmp/').reason, 'excluded-by-glob');
  t.is(row(exc, 'docs/deep/').reason, 'excluded-by-glob');
  t.is(row(exc, 'notes.txt').reason, 'excluded-by-glob');
  t.false(exc.rows.some((r) => r.relPath === 'src/tmp/scratch.ts'));
  await t.throwsAsync(scanSource({ root, kind: 'folder', options: { include: ['../x'] } }), {
    code: 'INVALID_ARGUMENT',
  } as never);
});

test('names with invalid UTF-8 or line breaks are reported as bad-name with an escaped path', async (t) => {
  const root = await tempTree(t);
  const rootBytes = Buffer.from(root);
  fs.writeFileSync(Buffer.concat([rootBytes, Buffer.from('/bad\xff.md', 'latin1')]), 'x');
  fs.mkdirSync(Buffer.concat([rootBytes, Buffer.from('/dir\xfe', 'latin1')]));
  fs.writeFileSync(Buffer.concat([rootBytes, Buffer.from('/dir\xfe/inner.md', 'latin1')]), 'x');
  put(root, 'two\nlines.md');
  put(root, 'tab\there.md');
  put(root, 'fine-é.md');
  const review = await scanSource({ root, kind: 'folder' });
  t.is(row(review, 'bad\\xff.md').reason, 'bad-name');
  t.is(row(review, 'bad\\xff.md').size, 1);
  t.is(row(review, 'bad\\xff.md').path, `${root}/bad\\xff.md`);
  t.is(row(review, 'dir\\xfe/').reason, 'bad-name');
  t.is(row(review, 'two\\nlines.md').explanation, 'name contains a line break; not indexed');
  t.is(row(review, 'tab\\there.md').reason, 'bad-name');
  t.deepEqual(acceptedPaths(review), ['fine-é.md']);
  for (const r of review.rows) t.false(/[\u0000-\u001f]/.test(r.path + r.relPath + (r.explanation ?? '')));
});

test('rows come in byte order of names, depth first', async (t) => {
  const root = await tempTree(t);
  for (const rel of ['b.md', 'a/z.md', 'a.md', 'B.md', 'é.md', 'a/b/c.md', 'a-b.md']) put(root, rel);
  const review = await scanSource({ root, kind: 'folder' });
  t.deepEqual(
    review.rows.map((r) => r.relPath),
    ['B.md', 'a/b/c.md', 'a/z.md', 'a-b.md', 'a.md', 'b.md', 'é.md'],
  );
});

test('a file source applies the format and content rules to that file', async (t) => {
  const root = await tempTree(t);
  const file = put(root, '.hidden-but-chosen.md', '# explicit\n');
  const review = await scanSource({ root: file, kind: 'file' });
  t.is(review.rows.length, 1);
  t.is(review.rows[0]!.status, 'new');
  t.is(review.rows[0]!.relPath, '.hidden-but-chosen.md');
  const bin = put(root, 'bin.txt', 'a\u0000');
  t.is((await scanSource({ root: bin, kind: 'file' })).rows[0]!.reason, 'binary');
});
