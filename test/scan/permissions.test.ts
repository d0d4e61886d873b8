import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { scanSource } from '../../src/scan/scan-source.js';
import type { Review } from '../../src/types.js';
import { put, row, tempTree, useTempHome } from './tree.js';

// Permission errors must come from the kernel, not from a fake. Root bypasses file modes, so when
// the tests run as root the scan runs in a child process that loads the scanner and then drops
// to uid/gid 65534 (nobody) before scanning; as any other user the scan runs in-process.

useTempHome();

const run = promisify(execFile);
const NOBODY = 65534;
const scanModule = new URL('../../src/scan/scan-source.js', import.meta.url).href;

type Outcome = { review: Review } | { code: string; message: string };

/** Scan `root` without root's privileges; also reports whether `probe` really is unreadable. */
async function scanUnprivileged(
  root: string,
  kind: 'file' | 'folder',
  probe: string,
): Promise<Outcome & { probeCode: string }> {
  if (process.getuid?.() !== 0) {
    let probeCode = 'readable';
    try {
      fs.closeSync(fs.openSync(probe, 'r'));
    } catch (err) {
      probeCode = (err as NodeJS.ErrnoException).code ?? 'error';
    }
    try {
      return { review: await scanSource({ root, kind }), probeCode };
    } catch (err) {
      const e = err as { code: string; message: string };
      return { code: e.code, message: e.message, probeCode };
    }
  }
  const child = `
    import * as fs from 'node:fs';
    const { scanSource } = await import(${JSON.stringify(scanModule)});
    process.setgroups([]); process.setgid(${NOBODY}); process.setuid(${NOBODY});
    let probeCode = 'readable';
    try { fs.closeSync(fs.openSync(${JSON.stringify(probe)}, 'r')); } catch (e) { probeCode = e.code; }
    let out;
    try { out = { review: await scanSource({ root: ${JSON.stringify(root)}, kind: ${JSON.stringify(kind)} }) }; }
    catch (e) { out = { code: e.code, message: e.message }; }
    process.stdout.write(JSON.stringify({ ...out, probeCode, uid: process.getuid() }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', child], { timeout: 60_000 });
  const parsed = JSON.parse(stdout);
  if (parsed.uid !== NOBODY) throw new Error('child did not drop privileges');
  return parsed;
}

/** A tree that user nobody can traverse, except where a test locks it. */
async function openTree(t: Parameters<typeof tempTree>[0]) {
  const root = await tempTree(t);
  fs.chmodSync(root, 0o755);
  return root;
}

test('an unreadable file and an unreadable folder are reported and the scan continues', async (t) => {
  const root = await openTree(t);
  put(root, 'a-ok.md');
  const secret = put(root, 'secret.md', '# secret\n');
  fs.chmodSync(secret, 0o000);
  put(root, 'locked/inside.md');
  fs.chmodSync(join(root, 'locked'), 0o000);
  put(root, 'noexec/child.md'); // listable but not searchable: children cannot be opened
  fs.chmodSync(join(root, 'noexec/child.md'), 0o644);
  fs.chmodSync(join(root, 'noexec'), 0o644);
  put(root, 'z-ok.md');
  fs.chmodSync(join(root, 'a-ok.md'), 0o644);
  fs.chmodSync(join(root, 'z-ok.md'), 0o644);

  const out = await scanUnprivileged(root, 'folder', secret);
  t.is(out.probeCode, 'EACCES', 'the precondition: the file really is unreadable for the scanning user');
  if (!('review' in out)) return t.fail(`scan threw ${out.code}: ${out.message}`);
  const review = out.review;
  t.is(row(review, 'secret.md').reason, 'permission-denied');
  t.is(row(review, 'secret.md').explanation, 'permission denied (EACCES) reading this file');
  t.is(row(review, 'locked/').reason, 'permission-denied');
  t.is(row(review, 'locked/').explanation, 'permission denied (EACCES) reading this directory');
  t.is(row(review, 'noexec/child.md').reason, 'permission-denied');
  t.deepEqual(
    review.rows.filter((r) => r.status === 'new').map((r) => r.relPath),
    ['a-ok.md', 'z-ok.md'],
  );
  t.is(review.summary.skipped['permission-denied'], 3);
});

test('an unreadable root is an error, not an empty source', async (t) => {
  const base = await openTree(t);
  const folder = join(base, 'folder');
  put(folder, 'a.md');
  fs.chmodSync(folder, 0o000);
  const file = put(base, 'file.md');
  fs.chmodSync(file, 0o000);
  const f = await scanUnprivileged(folder, 'folder', folder);
  t.like(f, { code: 'SOURCE_PERMISSION_DENIED', message: `${folder}: permission denied` });
  const g = await scanUnprivileged(file, 'file', file);
  t.is(g.probeCode, 'EACCES');
  t.like(g, { code: 'SOURCE_PERMISSION_DENIED', message: `${file}: permission denied` });
});
