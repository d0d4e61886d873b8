import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { buildSnapshot } from '../../src/index/snapshot-build.js';
import { decodeSnapshot, verifySnapshotV2 } from '../../src/index/snapshot-decode.js';
import { encodeSnapshot, FOOTER_MAGIC, SNAPSHOT_MAGIC } from '../../src/index/snapshot-format.js';
import { decodeSnapshotV1, encodeSnapshotV1 } from '../../src/index/snapshot-format-v1.js';
import { openSnapshot, writeSnapshot } from '../../src/index/snapshot-io.js';
import type { SnapshotData } from '../../src/index/snapshot-types.js';
import { freshSnapshotPath, makeData, plain, useTempHome } from './fixtures.js';

useTempHome();

function corruptCode(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return isKorttyError(err) ? err.code : `non-kortty: ${(err as Error).message}`;
  }
}

test('round trip: every document, chunk field and vector comes back unchanged', async (t) => {
  const data = makeData({ sources: 3, docsPerSource: 2, chunksPerDoc: 4, dim: 12 });
  // edge cases: a document without chunks, an empty chunk text, non-ASCII text
  data.docs[1]!.chunks = [];
  data.docs[2]!.chunks[0]!.text = '';
  data.docs[3]!.chunks[1]!.text = 'Grüße, 日本語のテキスト, emoji 🦀 and \u0000 NUL';
  const path = freshSnapshotPath();
  const { bytes } = await writeSnapshot(path, data);
  t.is(readFileSync(path).length, bytes);
  const snap = await openSnapshot(path);
  t.truthy(snap);
  t.deepEqual(plain(snap!.data), plain(data));
  t.is(snap!.chunkCount, 20);
  t.is(snap!.openedVersion, 3);
  snap!.close();
});

test('round trip of an empty snapshot (no documents)', async (t) => {
  const data = makeData({ sources: 0 });
  const path = freshSnapshotPath();
  await writeSnapshot(path, data);
  const snap = (await openSnapshot(path))!;
  t.deepEqual(snap.data.docs, []);
  t.deepEqual(snap.searchVector(new Float32Array(8).fill(1), 5), []);
  t.deepEqual(snap.searchLexical('alpha', 5), []);
});

test('determinism: two builds of the same data give identical bytes', async (t) => {
  const a = freshSnapshotPath();
  const b = freshSnapshotPath();
  await writeSnapshot(a, makeData({ sources: 3, docsPerSource: 20, chunksPerDoc: 10, dim: 16, seed: 7 }));
  await writeSnapshot(b, makeData({ sources: 3, docsPerSource: 20, chunksPerDoc: 10, dim: 16, seed: 7 }));
  const ba = readFileSync(a);
  t.true(ba.length > 10_000);
  t.true(ba.equals(readFileSync(b)));
  // and different data gives different bytes (the comparison can fail)
  const c = freshSnapshotPath();
  await writeSnapshot(c, makeData({ sources: 3, docsPerSource: 20, chunksPerDoc: 10, dim: 16, seed: 8 }));
  t.false(ba.equals(readFileSync(c)));
});

async function smallFile(): Promise<{ bytes: Buffer; data: SnapshotData }> {
  const data = makeData({ sources: 2, docsPerSource: 1, chunksPerDoc: 2, dim: 4 });
  const parts = await buildSnapshot(data, { scratchDir: dirname(freshSnapshotPath()) });
  return { bytes: encodeSnapshot(parts), data };
}

test('every single-byte flip anywhere in a v2 file is detected', async (t) => {
  const { bytes } = await smallFile();
  t.notThrows(() => decodeSnapshot(bytes, 'small'));
  const missed: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    for (const mask of [0x01, 0x80, 0xff]) {
      const bad = Buffer.from(bytes);
      bad[i]! ^= mask;
      const code = corruptCode(() => decodeSnapshot(bad, 'small'));
      if (code !== 'SNAPSHOT_CORRUPT') missed.push(`byte ${i} ^ ${mask}: ${code}`);
    }
  }
  t.deepEqual(missed, [], `${bytes.length} bytes checked`);
});

test('every single-byte flip in a v1 file is detected', async (t) => {
  const { data } = await smallFile();
  const bytes = encodeSnapshotV1(data, 2);
  t.notThrows(() => decodeSnapshotV1(bytes, 'v1'));
  const missed: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const bad = Buffer.from(bytes);
    bad[i]! ^= 0x10;
    const code = corruptCode(() => decodeSnapshot(bad, 'v1'));
    if (code !== 'SNAPSHOT_CORRUPT') missed.push(`byte ${i}: ${code}`);
  }
  t.deepEqual(missed, []);
});

test('a flipped byte in a file on disk makes openSnapshot fail with SNAPSHOT_CORRUPT naming the file', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData());
  const good = readFileSync(path);
  for (const at of [3, 40, Math.floor(good.length / 2), good.length - 60, good.length - 1]) {
    const bad = Buffer.from(good);
    bad[at]! ^= 0x04;
    writeFileSync(path, bad);
    const err = await t.throwsAsync(openSnapshot(path));
    t.is((err as { code?: string }).code, 'SNAPSHOT_CORRUPT', `byte ${at}`);
    t.true(err!.message.includes(path));
  }
});

test('truncation at any length and appended bytes are detected', async (t) => {
  const { bytes } = await smallFile();
  const missed: number[] = [];
  for (let len = 0; len < bytes.length; len++) {
    if (corruptCode(() => decodeSnapshot(bytes.subarray(0, len), 't')) !== 'SNAPSHOT_CORRUPT')
      missed.push(len);
  }
  t.deepEqual(missed, []);
  t.is(
    corruptCode(() => decodeSnapshot(Buffer.concat([bytes, Buffer.alloc(8)]), 't')),
    'SNAPSHOT_CORRUPT',
  );
  t.is(
    corruptCode(() => decodeSnapshot(Buffer.alloc(0), 't')),
    'SNAPSHOT_CORRUPT',
  );
});

test('a file of a newer version with intact checksums is SNAPSHOT_VERSION, not corruption', async (t) => {
  const { bytes } = await smallFile();
  const v3 = Buffer.from(bytes);
  v3.writeUInt32LE(4, 8);
  // re-seal the header digest the way a future writer would
  const headerEnd = 16 + v3.readUInt32LE(12);
  const { createHash } = await import('node:crypto');
  createHash('sha256')
    .update(v3.subarray(0, headerEnd))
    .digest()
    .copy(v3, v3.length - 48);
  const err = (() => {
    try {
      decodeSnapshot(v3, 'future');
    } catch (e) {
      return e;
    }
  })();
  t.true(isKorttyError(err, 'SNAPSHOT_VERSION'));
  t.regex((err as Error).message, /unsupported snapshot version 4/);
});

test('layout: magic, version, 8-aligned sections in fixed order, footer magic', async (t) => {
  const { bytes } = await smallFile();
  t.true(bytes.subarray(0, 8).equals(SNAPSHOT_MAGIC));
  t.is(bytes.readUInt32LE(8), 3);
  t.true(bytes.subarray(bytes.length - 8).equals(FOOTER_MAGIC));
  const { header } = verifySnapshotV2(bytes, 'layout');
  t.deepEqual(
    header.sections.map((s) => s.name),
    ['docs', 'chunks', 'texts', 'vectors', 'graph', 'bm25'],
  );
  for (const s of header.sections) t.is(s.offset % 8, 0);
  t.is(header.chunkCount, 4);
});
