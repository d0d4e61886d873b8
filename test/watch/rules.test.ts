import { mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createError } from '../../src/errors.js';
import { createIgnoreFrame } from '../../src/scan/gitignore.js';
import { createGlobRules, DEFAULT_SOURCE_OPTIONS } from '../../src/scan/rules.js';
import { scanSource } from '../../src/scan/scan-source.js';
import type { SourceRecord, StoreConfig } from '../../src/store/store-types.js';
import { classifyFs, mountFor, networkFsName, parseMounts } from '../../src/watch/fs-kind.js';
import { type PathKind, pathVerdict, relativeToRoot } from '../../src/watch/path-rules.js';
import {
  isOverflowReason,
  networkReason,
  overflowReason,
  watcherErrorReason,
} from '../../src/watch/reasons.js';
import { rootChange } from '../../src/watch/roots.js';
import { createSourceFilter } from '../../src/watch/source-filter.js';
import { classifySyncError } from '../../src/watch/sync-runner.js';
import { diffTargets, watchTargets } from '../../src/watch/targets.js';
import { writeTree } from '../helpers/store-env.js';

// Pure parts of the watcher, table-tested: which source a path belongs to, whether an event can
// matter (the scanner's rules), which sources are watched, network filesystems, reasons.

test('relativeToRoot: which source a path belongs to', (t) => {
  const folder = { path: '/home/u/notes', kind: 'folder' as const };
  const file = { path: '/home/u/todo.md', kind: 'file' as const };
  const rows: [typeof folder | typeof file, string, string | null][] = [
    [folder, '/home/u/notes', ''],
    [folder, '/home/u/notes/', ''],
    [folder, '/home/u/notes/a.md', 'a.md'],
    [folder, '/home/u/notes/sub/b.md', 'sub/b.md'],
    [folder, '/home/u/notes2/a.md', null], // a sibling with the same prefix is outside
    [folder, '/home/u', null],
    [file, '/home/u/todo.md', ''],
    [file, '/home/u/todo.md.swp', null],
    [file, '/home/u/other.md', null],
    [{ path: '/', kind: 'folder' }, '/etc/x.md', 'etc/x.md'],
  ];
  for (const [root, path, want] of rows) t.is(relativeToRoot(root, path), want, `${root.path} ${path}`);
});

test('pathVerdict follows the scanner: excluded dirs, hidden, .gitignore, globs, formats', (t) => {
  const frames = [createIgnoreFrame('*.log\nlogs/\n!keep.log\nsecret.md\n', '', '/r/.gitignore')];
  const globs = createGlobRules({ include: [], exclude: ['drafts/**', '*.tmp.md'] });
  const ctx = { frames, globs };
  const rows: [string, PathKind, boolean, string?][] = [
    ['a.md', 'file', true],
    ['src/main.py', 'file', true],
    ['node_modules', 'dir', false, 'excluded-dir'],
    ['node_modules/x.md', 'file', false, 'excluded-dir'],
    ['build', 'dir', false, 'excluded-dir'],
    ['build', 'unknown', false, 'excluded-dir'], // and a file named build is not indexable either
    ['build.md', 'file', true],
    ['.git', 'dir', false, 'excluded-dir'],
    ['.git/HEAD', 'file', false, 'excluded-dir'],
    ['.cache', 'dir', false, 'hidden'],
    ['.cache/x.md', 'file', false, 'hidden'],
    ['.env', 'file', false, 'hidden'],
    ['.gitignore', 'file', true], // rules changed: a rescan is due
    ['sub/.gitignore', 'file', true],
    ['.gitignore', 'dir', false, 'hidden'],
    ['app.log', 'file', false, 'gitignored'],
    ['keep.log', 'file', true], // re-included by !keep.log
    ['logs', 'dir', false, 'gitignored'],
    ['logs', 'unknown', false, 'gitignored'],
    ['secret.md', 'file', false, 'gitignored'],
    ['logs.md', 'file', true],
    ['drafts', 'dir', false, 'excluded-by-glob'],
    ['drafts/x.md', 'file', false, 'excluded-by-glob'],
    ['x.tmp.md', 'file', false, 'excluded-by-glob'],
    ['photo.png', 'file', false, 'unsupported-format'],
    ['photo.png', 'unknown', true], // might be a directory: keep watching
    ['docs', 'unknown', true],
  ];
  for (const [rel, kind, relevant, why] of rows) {
    const v = pathVerdict(rel, kind, ctx);
    t.is(v.relevant, relevant, `${rel} (${kind})`);
    if (!v.relevant) t.is(v.why as string | undefined, why, `${rel} (${kind}) reason`);
  }
  const inc = { frames: [], globs: createGlobRules({ include: ['docs/**'], exclude: [] }) };
  t.true(pathVerdict('docs/a.md', 'file', inc).relevant);
  t.true(pathVerdict('other', 'dir', inc).relevant); // include globs apply to files only
  t.deepEqual(pathVerdict('other/a.md', 'file', inc), { relevant: false, why: 'not-included' });
  t.deepEqual(pathVerdict('.gitignore', 'file', inc), { relevant: true, rules: true });
});

test('the source filter agrees with a real scan of a real tree', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'kortty-filter-'));
  await writeTree(root, {
    '.gitignore': 'ignored/\n*.gen.md\n',
    'a.md': 'a',
    'b.gen.md': 'generated',
    'ignored/c.md': 'c',
    'sub/.gitignore': '!d.gen.md\n',
    'sub/d.gen.md': 'd',
    'sub/e.md': 'e',
    'node_modules/f.md': 'f',
    '.hidden/g.md': 'g',
    'pic.png': 'png',
    'data.json': '{}',
  });
  await symlink(join(root, 'a.md'), join(root, 'link.md'));
  const review = await scanSource({ root, kind: 'folder', options: DEFAULT_SOURCE_OPTIONS });
  const filter = createSourceFilter({ path: root, kind: 'folder' }, DEFAULT_SOURCE_OPTIONS);
  const { lstatSync } = await import('node:fs');
  for (const row of review.rows) {
    const abs = join(root, row.relPath.replace(/\/$/, ''));
    const st = lstatSync(abs);
    const indexed = row.status !== 'skipped';
    // The one difference by design: a .gitignore is never indexed, but changing it is a change.
    const want = indexed || row.relPath.endsWith('.gitignore');
    t.is(
      !filter.ignored(abs, st),
      want,
      `${row.relPath}: scanner says ${row.status}${row.reason ? ` (${row.reason})` : ''}`,
    );
  }
  t.true(review.rows.length >= 9);
});

test('watchTargets: enabled automatic sources only; diffTargets', (t) => {
  const src = (id: string, over: Partial<SourceRecord> = {}): SourceRecord => ({
    id,
    path: `/d/${id}`,
    kind: 'folder',
    sync: 'automatic',
    enabled: true,
    options: { ...DEFAULT_SOURCE_OPTIONS },
    status: 'READY',
    files: 0,
    chunks: 0,
    problems: 0,
    problemList: [],
    skipped: 0,
    skippedList: [],
    hashes: {},
    ...over,
  });
  const store = (id: string, sources: SourceRecord[]) =>
    ({ id, name: id.toUpperCase(), sources }) as unknown as StoreConfig;
  const before = watchTargets([
    store('a', [src('s1'), src('s2', { sync: 'manual' }), src('s3', { enabled: false }), src('s4')]),
    store('b', [src('s1', { limitedMonitoring: 'x' })]),
  ]);
  t.deepEqual(
    before.map((x) => `${x.storeId}/${x.sourceId}`),
    ['a/s1', 'a/s4', 'b/s1'],
  );
  t.is(before[2]!.limitedMonitoring, 'x');
  const after = watchTargets([
    store('a', [
      src('s1', { files: 9, status: 'MISSING' }),
      src('s4', { options: { ...DEFAULT_SOURCE_OPTIONS, exclude: ['x/**'] } }),
      src('s5'),
    ]),
  ]);
  const d = diffTargets(before, after);
  t.deepEqual(
    d.kept.map((x) => x.sourceId),
    ['s1'],
  ); // status changes do not restart a watch
  t.deepEqual(
    d.changed.map((x) => x.sourceId),
    ['s4'],
  );
  t.deepEqual(
    d.added.map((x) => x.sourceId),
    ['s5'],
  );
  t.deepEqual(
    d.removed.map((x) => `${x.storeId}/${x.sourceId}`),
    ['b/s1'],
  );
});

test('network filesystems: /proc/mounts parsing, longest mount, statfs magic', (t) => {
  const mounts = parseMounts(
    [
      '/dev/sda1 / ext4 rw 0 0',
      'server:/export /mnt/nfs nfs4 rw 0 0',
      '//nas/share /mnt/my\\040share cifs rw 0 0',
      'user@host:/ /home/u/remote fuse.sshfs rw 0 0',
      '/dev/sdb1 /mnt/nfs/local ext4 rw 0 0',
      'tmpfs /tmp tmpfs rw 0 0',
    ].join('\n'),
  );
  t.is(mounts[2]!.mountPoint, '/mnt/my share');
  const fsOf = (p: string) => classifyFs(undefined, mountFor(mounts, p));
  t.is(fsOf('/home/u/notes'), undefined);
  t.is(fsOf('/mnt/nfs/docs'), 'nfs4');
  t.is(fsOf('/mnt/nfs'), 'nfs4');
  t.is(fsOf('/mnt/nfsx/docs'), undefined);
  t.is(fsOf('/mnt/nfs/local/x'), undefined); // a local disk mounted inside the share
  t.is(fsOf('/mnt/my share/x'), 'cifs');
  t.is(fsOf('/home/u/remote/x'), 'fuse.sshfs');
  t.is(fsOf('/tmp/x'), undefined);
  t.is(classifyFs(0x6969, undefined), 'nfs');
  t.is(classifyFs(0xff534d42, mountFor(mounts, '/')), 'cifs');
  t.is(classifyFs(0xef53, mountFor(mounts, '/')), undefined); // ext4
  t.is(networkFsName('fuse.rclone'), 'fuse.rclone');
  t.is(networkFsName('fuse.encfs'), undefined);
  t.is(networkFsName('virtiofs'), 'virtiofs');
});

test('limited-monitoring reasons name the cause and the fallback', (t) => {
  t.regex(
    watcherErrorReason(Object.assign(new Error('watch /x ENOSPC'), { code: 'ENOSPC' })),
    /^inotify watch limit reached \(ENOSPC; raise fs\.inotify\.max_user_watches\): relying on periodic rescans$/,
  );
  t.regex(
    watcherErrorReason(Object.assign(new Error('x'), { code: 'EMFILE' })),
    /too many open files .*EMFILE/,
  );
  t.is(
    watcherErrorReason(Object.assign(new Error('boom\nstack'), { code: 'EIO' })),
    'watcher error (EIO): boom; relying on periodic rescans',
  );
  t.is(
    networkReason('nfs4'),
    'network filesystem (nfs4): changes made elsewhere are not reported; relying on periodic rescans',
  );
  t.true(isOverflowReason(overflowReason(100, 2000)));
  t.false(isOverflowReason(networkReason('nfs')));
  t.false(isOverflowReason(undefined));
});

test('rootChange: missing, back (absent → present, or replaced between polls)', (t) => {
  const p = (ino: string) => ({ state: 'present' as const, ino });
  const absent = { state: 'absent' as const };
  const unknown = { state: 'unknown' as const };
  t.is(rootChange(unknown, p('1')), null);
  t.is(rootChange(unknown, absent), null);
  t.is(rootChange(p('1'), p('1')), null);
  t.is(rootChange(p('1'), absent), 'missing');
  t.is(rootChange(absent, absent), null);
  t.is(rootChange(absent, p('2')), 'back');
  t.is(rootChange(p('1'), p('2')), 'back');
});

test('classifySyncError: busy → retry, cancelled only when stopping, vanished → reload', (t) => {
  t.is(classifySyncError(createError('STORE_BUSY', { store: 'S' }), 'S', false).outcome, 'busy');
  t.is(classifySyncError(createError('JOB_CANCELLED'), 'S', true).outcome, 'cancelled');
  t.is(classifySyncError(createError('JOB_CANCELLED'), 'S', false).outcome, 'failed');
  t.deepEqual(classifySyncError(createError('SOURCE_UNKNOWN', { id: 'x', store: 'S' }), 'S', false), {
    outcome: 'ok',
    reload: true,
  });
  t.deepEqual(classifySyncError(createError('STORE_NOT_FOUND', { name: 'S' }), 'S', false), {
    outcome: 'ok',
    reload: true,
  });
  const failed = classifySyncError(new Error('disk on fire'), 'S', false);
  t.deepEqual(failed, {
    outcome: 'failed',
    event: { type: 'sync-failed', store: 'S', reason: 'disk on fire' },
  });
});
