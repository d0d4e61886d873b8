import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { createError, isKorttyError } from '../errors.js';
import { errReason, tempNonce, tempOwnerPid } from '../storage/atomic-write.js';
import { tempPathFor } from '../storage/paths.js';
import { pidAlive } from '../util/pid-alive.js';
import { HNSW_HEADER_BYTES, parseHnswHeader, restoreVectors, stripVectors } from './hnsw-graph.js';
import type { HnswParams, SearchHit } from './snapshot-types.js';

// The only module that imports hnswlib-node. Pitfalls handled here (measured, see STORAGE.md):
// - `addPoint` wants a plain Array, labels are uint32: labels are the dense chunk ordinals;
// - insertion is single-threaded and in ordinal order with a fixed seed: identical graph bytes;
// - `writeIndex` into a missing directory "succeeds" and writes nothing: the length is checked;
// - hnswlib only reads and writes files: scratch files live next to the snapshot under temp
//   names (`.tmp-*.<pid>-<rand>`), so a crash's leftovers are removed by the next open;
// - a throwing filter callback kills the process: the callback only indexes a Uint8Array;
// - the default ef is 10: every search sets ef.

const { HierarchicalNSW } = hnswlib;
type Index = InstanceType<typeof HierarchicalNSW>;

/**
 * Chosen by measurement (bench/index-bench.ts, 100k clustered 384-d vectors, 2 cores; table in
 * STORAGE.md): M=16 / efConstruction=100 reaches recall@10 >= 0.99 at ef=64 in ~0.4 ms per query,
 * also on noisier clusters; efConstruction=200 costs a much longer build for < 0.01 recall; at
 * equal ef, M=16 has more recall headroom than M=12 (0.986 vs 0.971 at ef=32) and M=8 falls short.
 */
export const DEFAULT_HNSW: Readonly<HnswParams> = Object.freeze({
  m: 16,
  efConstruction: 100,
  efSearch: 64,
  randomSeed: 100,
});

function scratchPath(dir: string, what: string): string {
  return tempPathFor(join(dir, `hnsw-${what}`), tempNonce());
}

export interface BuildHnswOptions {
  /** An existing directory for hnswlib's scratch file (the snapshot's directory). */
  scratchDir: string;
  /** Called every 1,000 insertions; may be async (yield, check cancellation by throwing). */
  onProgress?: (inserted: number) => void | Promise<void>;
}

/**
 * Build the cosine graph over `vectors` (row i gets label i) and return its skeleton: hnswlib's
 * bytes without the vectors (hnsw-graph.ts). Empty input gives an empty buffer.
 */
export async function buildHnswGraph(
  vectors: Float32Array,
  dim: number,
  params: HnswParams,
  opts: BuildHnswOptions,
): Promise<Buffer> {
  if (vectors.length === 0) return Buffer.alloc(0);
  return stripVectors(await buildHnswlibBytes(vectors, dim, params, opts), dim);
}

/** Build the graph and return hnswlib's own file bytes (vectors included). */
export async function buildHnswlibBytes(
  vectors: Float32Array,
  dim: number,
  params: HnswParams,
  opts: BuildHnswOptions,
): Promise<Buffer> {
  const n = vectors.length / dim;
  // The scratch file is created before the (long) build: a missing directory fails at once.
  const scratch = await createScratch(opts.scratchDir, 'build');
  const index = new HierarchicalNSW('cosine', dim);
  index.initIndex({
    maxElements: n,
    m: params.m,
    efConstruction: params.efConstruction,
    randomSeed: params.randomSeed,
  });
  const row = new Array<number>(dim);
  try {
    for (let i = 0; i < n; i++) {
      const o = i * dim;
      for (let d = 0; d < dim; d++) row[d] = vectors[o + d]!;
      index.addPoint(row, i);
      if (opts.onProgress && (i + 1) % 1000 === 0) await opts.onProgress(i + 1);
    }
  } catch (err) {
    await fsp.unlink(scratch).catch(() => {});
    throw err;
  }
  return serialise(index, scratch);
}

/** Create (exclusively) an empty scratch file; hnswlib's writeIndex into a missing dir is silent. */
async function createScratch(dir: string, what: string): Promise<string> {
  const path = scratchPath(dir, what);
  try {
    await (await fsp.open(path, 'wx', 0o600)).close();
  } catch (err) {
    throw createError('HNSW_FAILED', { path, op: 'writeIndex', reason: errReason(err) }, err);
  }
  return path;
}

/** writeIndex into the scratch file `path`, read the bytes back (length checked), remove it. */
async function serialise(index: Index, path: string): Promise<Buffer> {
  try {
    await index.writeIndex(path);
    const bytes = await fsp.readFile(path);
    const expect = bytes.length >= HNSW_HEADER_BYTES ? expectedLength(bytes) : -1;
    if (bytes.length !== expect) {
      throw createError('HNSW_FAILED', {
        path,
        op: 'writeIndex',
        reason: `wrote ${bytes.length} bytes, expected ${expect < 0 ? 'a header' : expect}`,
      });
    }
    return bytes;
  } catch (err) {
    if (isKorttyError(err, 'HNSW_FAILED')) throw err;
    throw createError('HNSW_FAILED', { path, op: 'writeIndex', reason: errReason(err) }, err);
  } finally {
    await fsp.unlink(path).catch(() => {});
  }
}

function expectedLength(full: Buffer): number {
  const h = parseHnswHeader(full);
  let at = HNSW_HEADER_BYTES + h.count * h.sizeDataPerElement;
  for (let i = 0; i < h.count && at + 4 <= full.length; i++) at += 4 + full.readUInt32LE(at);
  return at;
}

export interface HnswSearcher {
  readonly count: number;
  /**
   * k nearest by cosine similarity (score = 1 - hnswlib's distance), best first. `allowed`
   * restricts labels inside the graph walk; the callback only reads the mask and cannot throw.
   */
  search(query: Float32Array, k: number, ef: number, allowed?: Uint8Array): SearchHit[];
  /** hnswlib's own bytes of the loaded index (writeIndex), into a scratch file of `dir`. */
  serialise(dir: string): Promise<Buffer>;
  close(): void;
}

/** Scratch files in the system temp dir: `kortty-hnsw.<pid>-<random>`. */
const TMP_SCRATCH = 'kortty-hnsw.';

/**
 * Write a scratch file; true, or the error. A failed write (a full disk) removes what it wrote at
 * once: inside the long-lived query service nothing else would until the process exits.
 */
async function writeScratch(path: string, bytes: Buffer): Promise<true | unknown> {
  try {
    await fsp.writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await fsp.unlink(path).catch(() => {});
    return err;
  }
}

/** Removes the temp-dir scratch files of dead processes (the store directory's are swept at open). */
async function sweepTmpScratch(dir: string): Promise<void> {
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(TMP_SCRATCH)) continue;
    const pid = tempOwnerPid(name);
    if (pid !== undefined && !pidAlive(pid)) await fsp.unlink(join(dir, name)).catch(() => {});
  }
}

/** Load a skeleton with its vectors into hnswlib (through a scratch file in `scratchDir`). */
export async function loadHnswGraph(
  skeleton: Buffer,
  vectors: Float32Array,
  dim: number,
  scratchDir: string,
): Promise<HnswSearcher> {
  const full = restoreVectors(skeleton, vectors, dim);
  const count = parseHnswHeader(full).count;
  let path = scratchPath(scratchDir, 'load');
  const index = new HierarchicalNSW('cosine', dim);
  if ((await writeScratch(path, full)) !== true) {
    // A read-only or full store directory must still be searchable: fall back to the system temp dir.
    const tmp = tmpdir();
    await sweepTmpScratch(tmp);
    path = join(tmp, `${TMP_SCRATCH}${tempNonce()}`);
    const err = await writeScratch(path, full);
    if (err !== true)
      throw createError('HNSW_FAILED', { path, op: 'readIndex', reason: errReason(err) }, err);
  }
  try {
    await index.readIndex(path);
  } catch (err) {
    throw createError('HNSW_FAILED', { path, op: 'readIndex', reason: errReason(err) }, err);
  } finally {
    await fsp.unlink(path).catch(() => {});
  }
  if (index.getCurrentCount() !== count) {
    throw createError('HNSW_FAILED', {
      path,
      op: 'readIndex',
      reason: `loaded ${index.getCurrentCount()} of ${count}`,
    });
  }
  let live: Index | null = index;
  const row = new Array<number>(dim);
  return {
    count,
    search(query, k, ef, allowed) {
      if (!live)
        throw createError('INVALID_ARGUMENT', { name: 'snapshot', reason: 'searched after close()' });
      const kk = Math.min(k, count);
      if (kk <= 0) return [];
      for (let d = 0; d < dim; d++) row[d] = query[d]!;
      live.setEf(Math.max(ef, kk));
      const res = allowed
        ? live.searchKnn(row, kk, (label: number) => allowed[label] === 1)
        : live.searchKnn(row, kk);
      return res.neighbors.map((label, i) => ({ chunkOrdinal: label, score: 1 - res.distances[i]! }));
    },
    async serialise(dir) {
      const index = live;
      if (!index)
        throw createError('INVALID_ARGUMENT', { name: 'snapshot', reason: 'serialised after close()' });
      return serialise(index, await createScratch(dir, 'build'));
    },
    close() {
      live = null;
    },
  };
}
