import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { exactSearch } from '../../src/index/exact-search.js';
import { openSnapshot, writeSnapshot } from '../../src/index/snapshot-io.js';
import type { OpenSnapshot } from '../../src/index/snapshot-search.js';
import { freshSnapshotPath, makeData, rng, useTempHome } from './fixtures.js';

useTempHome();

// 6 sources × 40 docs × 5 chunks = 1,200 chunks of 16 dimensions
const DATA = makeData({ sources: 6, docsPerSource: 40, chunksPerDoc: 5, dim: 16, seed: 21 });
const SOURCES = ['src-0', 'src-1', 'src-2', 'src-3', 'src-4', 'src-5'];

let written: Promise<string> | undefined;
function snapshotFile(): Promise<string> {
  written ??= (async () => {
    const path = freshSnapshotPath();
    await writeSnapshot(path, DATA);
    return path;
  })();
  return written;
}

function sourceOf(snap: OpenSnapshot, ordinal: number): string {
  return snap.chunkAt(ordinal).doc.sourceId;
}

for (const [label, exactFilterLimit] of [
  ['graph walk with a filter', 0],
  ['exact search over the allowed chunks', undefined],
] as const) {
  test(`filtered vector search never returns a disallowed source (${label})`, async (t) => {
    const snap = (await openSnapshot(await snapshotFile(), { exactFilterLimit }))!;
    const r = rng(5);
    const all = new Float32Array(snap.chunkCount * 16);
    for (let i = 0; i < snap.chunkCount; i++) all.set(snap.chunkAt(i).chunk.vector, i * 16);
    let overlap = 0;
    let total = 0;
    for (let q = 0; q < 200; q++) {
      const allowed = new Set(SOURCES.filter(() => r() < 0.5));
      const query = Float32Array.from({ length: 16 }, () => r() * 2 - 1);
      const hits = snap.searchVector(query, 8, allowed);
      t.true(
        hits.every((h) => allowed.has(sourceOf(snap, h.chunkOrdinal))),
        `query ${q}`,
      );
      t.is(hits.length, allowed.size === 0 ? 0 : 8);
      // the same hits as exact search restricted to those sources (filtering is not "top-k then drop")
      const mask = new Uint8Array(snap.chunkCount);
      for (let i = 0; i < snap.chunkCount; i++) if (allowed.has(sourceOf(snap, i))) mask[i] = 1;
      const truth = new Set(exactSearch(all, query, 8, { allowed: mask }).map((h) => h.chunkOrdinal));
      total += truth.size;
      for (const h of hits) if (truth.has(h.chunkOrdinal)) overlap++;
    }
    t.true(overlap / total >= 0.95, `filtered recall ${overlap / total}`);
    snap.close();
  });
}

test('a filter that allows every source searches as no filter; the next, narrower filter still applies', async (t) => {
  const snap = (await openSnapshot(await snapshotFile(), { exactFilterLimit: 0 }))!;
  const r = rng(8);
  const everything = new Set(SOURCES);
  for (let q = 0; q < 20; q++) {
    const query = Float32Array.from({ length: 16 }, () => r() * 2 - 1);
    t.deepEqual(snap.searchVector(query, 8, everything), snap.searchVector(query, 8));
    t.deepEqual(snap.searchLexical('alpha gamma', 10, everything), snap.searchLexical('alpha gamma', 10));
    const one = new Set([SOURCES[q % SOURCES.length]!]);
    t.true(snap.searchVector(query, 8, one).every((h) => one.has(sourceOf(snap, h.chunkOrdinal))));
    t.true(snap.searchLexical('alpha gamma', 10, one).every((h) => one.has(sourceOf(snap, h.chunkOrdinal))));
  }
  snap.close();
});

test('filtered lexical search never returns a disallowed source', async (t) => {
  const snap = (await openSnapshot(await snapshotFile()))!;
  const r = rng(6);
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa'.split(' ');
  for (let q = 0; q < 200; q++) {
    const allowed = new Set(SOURCES.filter(() => r() < 0.4));
    const query = `${words[Math.floor(r() * words.length)]} ${words[Math.floor(r() * words.length)]}`;
    const hits = snap.searchLexical(query, 10, allowed);
    t.true(hits.every((h) => allowed.has(sourceOf(snap, h.chunkOrdinal))));
    if (allowed.size > 0) t.is(hits.length, 10);
    else t.deepEqual(hits, []);
  }
});

test('an exact lexical match ranks its chunk first, and chunkAt maps ordinals to documents', async (t) => {
  const snap = (await openSnapshot(await snapshotFile()))!;
  const doc = DATA.docs[77]!;
  const chunk = doc.chunks[3]!;
  const [best] = snap.searchLexical(chunk.text.split(' ').pop()!, 3);
  t.deepEqual(snap.chunkAt(best!.chunkOrdinal).chunk.id, chunk.id);
  t.is(snap.chunkAt(best!.chunkOrdinal).doc.path, doc.path);
  t.is(best!.chunkOrdinal, 77 * 5 + 3);
  const [near] = snap.searchVector(chunk.vector, 1);
  t.is(near!.chunkOrdinal, 77 * 5 + 3);
  t.true(
    isKorttyError(
      t.throws(() => snap.chunkAt(snap.chunkCount)),
      'INVALID_ARGUMENT',
    ),
  );
  t.true(
    isKorttyError(
      t.throws(() => snap.searchVector(new Float32Array(3), 1)),
      'INVALID_ARGUMENT',
    ),
  );
  snap.close();
  t.true(
    isKorttyError(
      t.throws(() => snap.searchVector(chunk.vector, 1)),
      'INVALID_ARGUMENT',
    ),
  );
});

test('k larger than the store returns every chunk once', async (t) => {
  const path = freshSnapshotPath();
  await writeSnapshot(path, makeData({ sources: 1, docsPerSource: 2, chunksPerDoc: 2 }));
  const snap = (await openSnapshot(path))!;
  const hits = snap.searchVector(new Float32Array(8).fill(0.5), 50);
  t.deepEqual(hits.map((h) => h.chunkOrdinal).sort(), [0, 1, 2, 3]);
});
