import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { buildBm25 } from '../../src/index/bm25.js';
import { buildHnswGraph, DEFAULT_HNSW } from '../../src/index/hnsw.js';
import { buildSnapshot, collectLexicalDocs } from '../../src/index/snapshot-build.js';
import { decodeSnapshot } from '../../src/index/snapshot-decode.js';
import { encodeSnapshot } from '../../src/index/snapshot-format.js';
import { encodeSnapshotV1 } from '../../src/index/snapshot-format-v1.js';
import { openSnapshot, type SnapshotStep, writeSnapshot } from '../../src/index/snapshot-io.js';
import { tempNonce } from '../../src/storage/atomic-write.js';
import { createNodeFsEnv, type FsEnv } from '../../src/storage/fs-env.js';
import { tempPathFor } from '../../src/storage/paths.js';
import { fingerprint, freshSnapshotPath, makeData, plain, useTempHome } from './fixtures.js';

useTempHome();

const tempsIn = (path: string) => readdirSync(dirname(path)).filter((n) => n.startsWith('.tmp-'));

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

test('a snapshot built with another model fingerprint is refused, naming the difference', async (t) => {
  const path = freshSnapshotPath();
  const data = makeData();
  await writeSnapshot(path, data);
  t.truthy(await openSnapshot(path, { expectFingerprint: fingerprint(8) }));
  for (const other of [
    fingerprint(8, { fileSha256: 'b'.repeat(64) }),
    fingerprint(8, { queryPrefix: 'search_query: ' }),
    fingerprint(16),
  ]) {
    const err = await t.throwsAsync(openSnapshot(path, { expectFingerprint: other }));
    t.true(isKorttyError(err, 'FINGERPRINT_MISMATCH'));
    t.true(err!.message.includes(path));
    t.true(err!.message.includes('Rebuild the store'));
  }
  const err = await t.throwsAsync(
    openSnapshot(path, { expectFingerprint: fingerprint(8, { pooling: 'cls' }) }),
  );
  t.deepEqual((err as { details?: { fields?: string[] } }).details?.fields, ['pooling']);
});

test('no snapshot file: openSnapshot returns null', async (t) => {
  t.is(await openSnapshot(join(dirname(freshSnapshotPath()), 'index.hnsw')), null);
});

test('v1 is rebuilt into the current format and promoted atomically; the content is unchanged', async (t) => {
  const path = freshSnapshotPath();
  const data = makeData({ sources: 3, docsPerSource: 4, chunksPerDoc: 5, dim: 8 });
  writeFileSync(path, encodeSnapshotV1(data, 6));
  const inodeBefore = statSync(path).ino;
  const snap = (await openSnapshot(path, { expectFingerprint: data.fingerprint }))!;
  t.is(snap.openedVersion, 1);
  t.true(snap.promoted);
  t.deepEqual(plain(snap.data), plain(data));
  // replaced by rename (a new inode), now a valid v2 file with the same content
  t.not(statSync(path).ino, inodeBefore);
  const onDisk = decodeSnapshot(readFileSync(path), path);
  t.is(onDisk.version, 3);
  t.deepEqual(plain(onDisk.data), plain(data));
  t.deepEqual(tempsIn(path), []);
  // promotion gives exactly the bytes a direct v2 write gives
  const direct = freshSnapshotPath();
  await writeSnapshot(direct, data);
  t.true(readFileSync(direct).equals(readFileSync(path)));
  // and search works on the promoted index
  const hit = snap.searchVector(data.docs[5]!.chunks[2]!.vector, 1)[0]!;
  t.is(snap.chunkAt(hit.chunkOrdinal).chunk.id, data.docs[5]!.chunks[2]!.id);
  const again = (await openSnapshot(path))!;
  t.is(again.openedVersion, 3);
  t.false(again.promoted);
});

test('v1 with promote:false is served from memory and the file stays as it was', async (t) => {
  const path = freshSnapshotPath();
  const data = makeData();
  const v1 = encodeSnapshotV1(data);
  writeFileSync(path, v1);
  const snap = (await openSnapshot(path, { promote: false }))!;
  t.is(snap.openedVersion, 1);
  t.false(snap.promoted);
  t.true(readFileSync(path).equals(v1));
  t.is(snap.searchLexical('s1d1c2', 1)[0]!.chunkOrdinal, 11);
});

test('a v1 file of another model is refused before any rebuild and left untouched', async (t) => {
  const path = freshSnapshotPath();
  const v1 = encodeSnapshotV1(makeData());
  writeFileSync(path, v1);
  const err = await t.throwsAsync(
    openSnapshot(path, { expectFingerprint: fingerprint(8, { modelId: 'other' }) }),
  );
  t.true(isKorttyError(err, 'FINGERPRINT_MISMATCH'));
  t.true(readFileSync(path).equals(v1));
});

test('open removes temp files of dead writers and keeps those of live ones', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData());
  const dead = deadPid();
  const stale = [
    tempPathFor(path, tempNonce(dead)),
    tempPathFor(join(dirname(path), 'hnsw-load'), tempNonce(dead)),
    tempPathFor(path, 'legacy0nonce'),
  ];
  const live = tempPathFor(path, tempNonce(process.pid));
  for (const p of [...stale, live]) writeFileSync(p, 'partial candidate');
  const snap = (await openSnapshot(path))!;
  t.deepEqual([...snap.removedTemps].sort(), stale.map((p) => p.slice(p.lastIndexOf('/') + 1)).sort());
  t.deepEqual(tempsIn(path), [live.slice(live.lastIndexOf('/') + 1)]);
  t.is(snap.chunkCount, 12);
});

const PRE_RENAME: SnapshotStep[] = ['built', 'encoded', 'written', 'fsynced', 'verified'];

test('a write aborted at any step before the rename leaves the old file byte-identical and no temp file', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData({ seed: 1 }));
  const before = readFileSync(path);
  const next = makeData({ seed: 2 });
  for (const at of PRE_RENAME) {
    const seen: SnapshotStep[] = [];
    const err = await t.throwsAsync(
      writeSnapshot(path, next, {
        checkpoint: (s) => {
          seen.push(s);
          if (s === at) throw new Error(`killed at ${s}`);
        },
      }),
    );
    t.is(err!.message, `killed at ${at}`);
    t.deepEqual(seen, PRE_RENAME.slice(0, PRE_RENAME.indexOf(at) + 1));
    t.true(readFileSync(path).equals(before), `old file intact after abort at ${at}`);
    t.deepEqual(tempsIn(path), [], `no temp file after abort at ${at}`);
  }
});

test('cancellation through an AbortSignal: JOB_CANCELLED, old file intact, no temp file', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData({ seed: 1 }));
  const before = readFileSync(path);
  for (const at of PRE_RENAME.slice(0, -1)) {
    const ctl = new AbortController();
    const err = await t.throwsAsync(
      writeSnapshot(path, makeData({ seed: 3 }), {
        signal: ctl.signal,
        // abort from inside the job, as a UI's cancel button would between two steps
        checkpoint: (s) => {
          if (s === at) ctl.abort();
        },
      }),
    );
    t.true(isKorttyError(err, 'JOB_CANCELLED'), `abort at ${at}`);
    t.true(readFileSync(path).equals(before));
    t.deepEqual(tempsIn(path), []);
  }
  // after the last pre-rename check the write is committed to activation and completes
  const ctl = new AbortController();
  await writeSnapshot(path, makeData({ seed: 3 }), {
    signal: ctl.signal,
    checkpoint: (s) => {
      if (s === 'verified') ctl.abort();
    },
  });
  t.false(readFileSync(path).equals(before));
});

test('an already-aborted signal cancels before anything is built; a cancel after activation is not an error', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData({ seed: 1 }));
  const before = readFileSync(path);
  const ctl = new AbortController();
  ctl.abort();
  const err = await t.throwsAsync(writeSnapshot(path, makeData({ seed: 4 }), { signal: ctl.signal }));
  t.true(isKorttyError(err, 'JOB_CANCELLED'));
  t.true(readFileSync(path).equals(before));
  // a throw after the rename: the new snapshot is already live (documented in STORAGE.md)
  const next = makeData({ seed: 5 });
  await t.throwsAsync(
    writeSnapshot(path, next, {
      checkpoint: (s) => {
        if (s === 'renamed') throw new Error('killed after rename');
      },
    }),
  );
  t.deepEqual(plain((await openSnapshot(path))!.data), plain(next));
  t.deepEqual(tempsIn(path), []);
});

test('cancellation during a long graph build stops it within a batch', async (t) => {
  const path = freshSnapshotPath();
  const ctl = new AbortController();
  let progress = 0;
  const err = await t.throwsAsync(
    writeSnapshot(path, makeData({ sources: 1, docsPerSource: 500, chunksPerDoc: 6, dim: 8 }), {
      signal: ctl.signal,
      onProgress: (phase, done) => {
        progress = done;
        if (phase === 'graph' && done >= 1000) ctl.abort();
      },
    }),
  );
  t.true(isKorttyError(err, 'JOB_CANCELLED'));
  t.is(progress, 1000);
  t.deepEqual(readdirSync(dirname(path)), []);
});

test('writing into a missing directory is an error, not a silent no-op', async (t) => {
  const dir = join(dirname(freshSnapshotPath()), 'does-not-exist');
  const err = await t.throwsAsync(writeSnapshot(join(dir, 'index.hnsw'), makeData()));
  t.true(isKorttyError(err, 'IO_FAILED'));
  t.true(err!.message.includes(dir));
  // the hnswlib adapter refuses too (hnswlib's own writeIndex would "succeed" writing nothing)
  const err2 = await t.throwsAsync(
    buildHnswGraph(new Float32Array(16).fill(1), 4, DEFAULT_HNSW, { scratchDir: dir }),
  );
  t.true(isKorttyError(err2, 'HNSW_FAILED'));
  t.regex(err2!.message, /ENOENT/);
});

test('invalid data is refused with a specific message before anything is written', async (t) => {
  const path = freshSnapshotPath();
  const unsorted = makeData();
  unsorted.docs.reverse();
  const e1 = await t.throwsAsync(writeSnapshot(path, unsorted));
  t.true(isKorttyError(e1, 'INVALID_ARGUMENT'));
  t.regex(e1!.message, /not sorted/);
  const badDim = makeData();
  badDim.docs[0]!.chunks[0]!.vector = new Float32Array(3);
  t.regex((await t.throwsAsync(writeSnapshot(path, badDim)))!.message, /vector length 3/);
  const nan = makeData();
  nan.docs[0]!.chunks[1]!.vector[2] = Number.NaN;
  t.regex((await t.throwsAsync(writeSnapshot(path, nan)))!.message, /non-finite/);
  t.deepEqual(readdirSync(dirname(path)), []);
});

test('promotion never overwrites a snapshot another writer activated meanwhile', async (t) => {
  const path = freshSnapshotPath();
  writeFileSync(path, encodeSnapshotV1(makeData({ seed: 1 })));
  const newer = makeData({ seed: 9 });
  const other = freshSnapshotPath();
  await writeSnapshot(other, newer);
  const newerBytes = readFileSync(other);
  const real = createNodeFsEnv();
  let raced = false;
  const env: FsEnv = {
    ...real,
    async create(p, mode) {
      // another process activates its snapshot while our promotion is being written
      if (!raced) {
        raced = true;
        writeFileSync(path, newerBytes);
      }
      return real.create(p, mode);
    },
  };
  const snap = (await openSnapshot(path, { env }))!;
  t.true(raced);
  t.is(snap.openedVersion, 3);
  t.false(snap.promoted);
  t.deepEqual(plain(snap.data), plain(newer));
  t.true(readFileSync(path).equals(newerBytes));
  t.deepEqual(tempsIn(path), []);
});

test('a v1 store whose directory cannot be written is still served, with the reason', async (t) => {
  const path = freshSnapshotPath();
  const data = makeData();
  const v1 = encodeSnapshotV1(data);
  writeFileSync(path, v1);
  const real = createNodeFsEnv();
  const env: FsEnv = {
    ...real,
    async create() {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    },
  };
  const snap = (await openSnapshot(path, { env }))!;
  t.is(snap.openedVersion, 1);
  t.false(snap.promoted);
  t.regex(snap.promotionError ?? '', /EACCES/);
  t.deepEqual(plain(snap.data), plain(data));
  t.true(readFileSync(path).equals(v1));
});

/**
 * A v2 file: the same layout as v3, its lexical section the older index. Here that section holds
 * an index of other texts, so reading it as current would give visibly wrong hits.
 */
async function v2File(data: ReturnType<typeof makeData>, scratchDir: string): Promise<Buffer> {
  const parts = await buildSnapshot(data, { scratchDir });
  const stale = await buildBm25(
    collectLexicalDocs(data).map(() => ({ body: 'stale words only', title: '', headings: '' })),
  );
  const bytes = encodeSnapshot({ ...parts, bm25: stale });
  const headerEnd = 16 + bytes.readUInt32LE(12);
  const header = bytes.toString('utf8', 16, headerEnd);
  bytes.writeUInt32LE(2, 8);
  bytes.write(header.replace('{"version":3,', '{"version":2,'), 16, 'utf8');
  createHash('sha256')
    .update(bytes.subarray(0, headerEnd))
    .digest()
    .copy(bytes, bytes.length - 48);
  return bytes;
}

test('a v2 file is read with its lexical index rebuilt from the texts (never misread), then promoted', async (t) => {
  const path = freshSnapshotPath();
  const data = makeData();
  const v2 = await v2File(data, dirname(path));
  t.is(decodeSnapshot(v2, 'v2').version, 2);
  t.is(decodeSnapshot(v2, 'v2').bm25, undefined);
  writeFileSync(path, v2);
  const memory = (await openSnapshot(path, { promote: false }))!;
  t.is(memory.openedVersion, 2);
  t.false(memory.promoted);
  t.true(readFileSync(path).equals(v2));
  // the stale section's words find nothing; the texts' own words find their chunk
  t.deepEqual(memory.searchLexical('stale words', 5), []);
  t.is(memory.searchLexical('s1d1c2', 1)[0]!.chunkOrdinal, 11);
  memory.close();
  const snap = (await openSnapshot(path))!;
  t.is(snap.openedVersion, 2);
  t.true(snap.promoted);
  t.is(decodeSnapshot(readFileSync(path), path).version, 3);
  const direct = freshSnapshotPath();
  await writeSnapshot(direct, data);
  t.true(readFileSync(direct).equals(readFileSync(path)));
  const again = (await openSnapshot(path))!;
  t.is(again.openedVersion, 3);
  t.is(again.searchLexical('s1d1c2', 1)[0]!.chunkOrdinal, 11);
});
