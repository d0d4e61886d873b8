import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { copyFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { openSnapshot, writeSnapshot } from '../../src/index/snapshot-io.js';
import { freshSnapshotPath, makeData, useTempHome } from './fixtures.js';

// A full disk while a snapshot loads: hnswlib reads only files, so loading writes a scratch copy
// of the graph first. On a small real tmpfs filled to ENOSPC, a failed load removes its own scratch
// file at once (a long-lived query service would otherwise hold the space until it exits), falls
// back to the system temp dir, and says which file and why when that is full too; scratch files
// of dead processes are swept when a store is opened. The tmpfs is mounted by this test (it runs
// as root here, like the reliability suite; without the right to mount it fails saying so).

const original = { TMPDIR: process.env.TMPDIR };
const BASE_TMP = tmpdir();
let mnt: string;
let storeDirOnTmpfs: string;
let fullTmp: string;
let source: string;

const free = () => statfsSync(mnt).bavail;
const listing = (dir: string) => readdirSync(dir).sort();

/** Fills the tmpfs until a write fails with ENOSPC. */
async function fill(path: string): Promise<void> {
  const fh = await open(path, 'w');
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) await fh.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await fh.close();
  }
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

test.before(async () => {
  useTempHome();
  source = freshSnapshotPath();
  await writeSnapshot(source, makeData({ sources: 2, docsPerSource: 40, chunksPerDoc: 4, dim: 64 }));
  mnt = mkdtempSync(join(tmpdir(), 'kortty-enospc-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`cannot mount a small tmpfs at ${mnt} (run as root): ${(err as Error).message}`);
  }
  storeDirOnTmpfs = join(mnt, 'store');
  fullTmp = join(mnt, 'tmp');
  mkdirSync(storeDirOnTmpfs);
  mkdirSync(fullTmp);
  await copyFile(source, join(storeDirOnTmpfs, 'index.hnsw'));
  await fill(join(mnt, 'filler'));
});

test.after.always(() => {
  if (original.TMPDIR === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = original.TMPDIR;
  if (mnt) {
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  }
});

test.serial('a load on a full disk removes its scratch file and names the file and ENOSPC', async (t) => {
  const before = free();
  const storeBefore = listing(storeDirOnTmpfs);
  process.env.TMPDIR = fullTmp; // the fallback is full too
  const err = await t.throwsAsync(openSnapshot(join(storeDirOnTmpfs, 'index.hnsw')));
  t.true(isKorttyError(err, 'HNSW_FAILED'), String(err));
  t.regex(err!.message, /ENOSPC/);
  t.regex(err!.message, new RegExp(fullTmp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  t.deepEqual(listing(storeDirOnTmpfs), storeBefore, 'no scratch file left in the store directory');
  t.deepEqual(listing(fullTmp), [], 'no scratch file left in the temp dir');
  t.is(free(), before, 'every block the load wrote is free again');
});

test.serial('with room in the temp dir the load falls back there and leaves nothing behind', async (t) => {
  const before = free();
  const storeBefore = listing(storeDirOnTmpfs);
  const roomy = mkdtempSync(join(BASE_TMP, 'kortty-enospc-tmp-'));
  process.env.TMPDIR = roomy;
  try {
    const snap = await openSnapshot(join(storeDirOnTmpfs, 'index.hnsw'));
    t.truthy(snap);
    t.true(snap!.searchVector(new Float32Array(64).fill(0.1), 3).length > 0);
    snap!.close();
    t.deepEqual(listing(storeDirOnTmpfs), storeBefore);
    t.deepEqual(listing(roomy), []);
    t.is(free(), before);
  } finally {
    rmSync(roomy, { recursive: true, force: true });
  }
});

test.serial('opening a store sweeps the scratch files of dead processes and keeps a live one', async (t) => {
  rmSync(join(mnt, 'filler'));
  const dead = deadPid();
  const roomy = mkdtempSync(join(BASE_TMP, 'kortty-enospc-tmp-'));
  process.env.TMPDIR = roomy;
  try {
    const deadStore = `.tmp-hnsw-load.${dead}-0a1b2c3d4e5f`;
    const liveStore = `.tmp-hnsw-load.${process.pid}-0a1b2c3d4e5f`;
    const deadTmp = `kortty-hnsw.${dead}-0a1b2c3d4e5f`;
    const liveTmp = `kortty-hnsw.${process.pid}-0a1b2c3d4e5f`;
    for (const n of [deadStore, liveStore]) writeFileSync(join(storeDirOnTmpfs, n), Buffer.alloc(64 * 1024));
    for (const n of [deadTmp, liveTmp]) writeFileSync(join(roomy, n), Buffer.alloc(1024));
    // Full again: this load falls back to the temp dir, which is swept on the way.
    await fill(join(mnt, 'filler'));
    const snap = await openSnapshot(join(storeDirOnTmpfs, 'index.hnsw'));
    snap!.close();
    const inStore = listing(storeDirOnTmpfs);
    t.false(inStore.includes(deadStore), inStore.join(', '));
    t.true(inStore.includes(liveStore), 'a live process may still be using its scratch file');
    t.deepEqual(listing(roomy), [liveTmp]);
  } finally {
    rmSync(roomy, { recursive: true, force: true });
  }
});
