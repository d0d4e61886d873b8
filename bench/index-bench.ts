import { createHash } from 'node:crypto';
import { constants, mkdtempSync, rmSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import hnswlib from 'hnswlib-node';
import { searchBm25 } from '../src/index/bm25.js';
import { decodeBm25, encodeBm25 } from '../src/index/bm25-codec.js';
import { exactSearch, vectorNorms } from '../src/index/exact-search.js';
import { buildHnswGraph, DEFAULT_HNSW, loadHnswGraph } from '../src/index/hnsw.js';
import { buildLexicalIndex, collectVectors } from '../src/index/snapshot-build.js';
import { verifySnapshotV2 } from '../src/index/snapshot-decode.js';
import type { SnapshotParts } from '../src/index/snapshot-format.js';
import { openSnapshot, writeSnapshot } from '../src/index/snapshot-io.js';
import {
  chunkId,
  type HnswParams,
  type SnapshotData,
  type SnapshotDoc,
} from '../src/index/snapshot-types.js';
import { mulberry32 as rng } from '../test/helpers/prng.js';

// Snapshot and HNSW figures (STORAGE.md quotes them). Every ratio has an anchor
// measured in the same run. KORTTY_BENCH_SCALE=0.05 scales the 100k chunks down for a smoke run;
// KORTTY_BENCH_HNSW_SWEEP=1 adds the M / efConstruction / ef sweep the defaults were chosen from.

export interface BenchResult {
  name: string;
  ratio: number;
  details: string;
}

const DIM = 384;

function gaussian(r: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    let u = 0;
    while (u === 0) u = r();
    const m = Math.sqrt(-2 * Math.log(u));
    const a = 2 * Math.PI * r();
    spare = m * Math.sin(a);
    return m * Math.cos(a);
  };
}

/**
 * Gaussian clusters: unit-norm random centres, each point = centre + isotropic noise of expected
 * norm `spread` (1.0: two points of a cluster have cosine ~0.5, unrelated points ~0, roughly
 * what sentence-embedding models give for related / unrelated passages).
 */
function clusteredVectors(n: number, centres: number, seed: number, spread = 1): Float32Array {
  const g = gaussian(rng(seed));
  const cr = rng(seed + 1);
  const c = new Float32Array(centres * DIM);
  for (let i = 0; i < centres; i++) {
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      const x = g();
      c[i * DIM + d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIM; d++) c[i * DIM + d]! /= norm;
  }
  const out = new Float32Array(n * DIM);
  const sd = spread / Math.sqrt(DIM);
  for (let i = 0; i < n; i++) {
    const k = Math.floor(cr() * centres) * DIM;
    for (let d = 0; d < DIM; d++) out[i * DIM + d] = c[k + d]! + sd * g();
  }
  return out;
}

/** Zipf-distributed pseudo-words, ~450 words (~600 tokens) per chunk. */
function chunkTexts(n: number, seed: number): string[] {
  const r = rng(seed);
  const vocab = Array.from({ length: 30000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}x`);
  const cdf = new Float64Array(vocab.length);
  let acc = 0;
  for (let i = 0; i < vocab.length; i++) cdf[i] = acc += 1 / (i + 1);
  for (let i = 0; i < vocab.length; i++) cdf[i]! /= acc;
  const pick = () => {
    const u = r();
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = 300 + Math.floor(r() * 300);
    const words = new Array<string>(len);
    for (let w = 0; w < len; w++) words[w] = pick();
    out.push(words.join(' '));
  }
  return out;
}

function makeData(vectors: Float32Array, texts: string[]): SnapshotData {
  const n = texts.length;
  const docs: SnapshotDoc[] = [];
  const perDoc = 10;
  for (let d = 0; d * perDoc < n; d++) {
    const sourceId = `source-${d % 5}`;
    const path = `/bench/${sourceId}/doc-${String(d).padStart(6, '0')}.md`;
    const chunks = [];
    for (let c = 0; c < perDoc && d * perDoc + c < n; c++) {
      const o = d * perDoc + c;
      chunks.push({
        id: chunkId('bench', sourceId, path, c, texts[o]!),
        index: c,
        text: texts[o]!,
        tokens: 600,
        lineStart: c * 40 + 1,
        lineEnd: c * 40 + 48,
        vector: vectors.subarray(o * DIM, (o + 1) * DIM),
      });
    }
    docs.push({
      sourceId,
      path,
      sha256: createHash('sha256').update(path).digest('hex'),
      size: 1,
      format: 'markdown',
      chunks,
    });
  }
  docs.sort((a, b) =>
    a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : a.path < b.path ? -1 : 1,
  );
  return {
    fingerprint: {
      modelId: 'bench',
      fileName: 'bench.gguf',
      fileSize: 1,
      fileSha256: '0'.repeat(64),
      dimension: DIM,
      pooling: 'mean',
      documentPrefix: '',
      queryPrefix: '',
    },
    dimension: DIM,
    docs,
  };
}

const now = () => performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(0)} ms`;
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;

async function copyAndSync(from: string, to: string): Promise<void> {
  await fsp.copyFile(from, to, constants.COPYFILE_EXCL);
  const fh = await fsp.open(to, 'r+');
  await fh.sync();
  await fh.close();
}

function recallAt10(truth: number[][], got: number[][]): number {
  let hit = 0;
  let total = 0;
  for (let q = 0; q < truth.length; q++) {
    const t = new Set(truth[q]);
    total += t.size;
    for (const g of got[q]!) if (t.has(g)) hit++;
  }
  return hit / total;
}

async function sweep(vectors: Float32Array, queries: Float32Array, truth: number[][], dir: string) {
  const lines: string[] = [];
  const configs: [number, number][] = [
    [8, 100],
    [12, 100],
    [16, 64],
    [16, 100],
    [16, 200],
    [24, 100],
    [32, 100],
  ];
  for (const [m, efConstruction] of configs) {
    const params: HnswParams = { ...DEFAULT_HNSW, m, efConstruction };
    const t0 = now();
    const skel = await buildHnswGraph(vectors, DIM, params, { scratchDir: dir });
    const build = (now() - t0) / 1000;
    const g = await loadHnswGraph(skel, vectors, DIM, dir);
    for (const ef of [16, 32, 48, 64, 100, 128]) {
      const times: number[] = [];
      const got: number[][] = [];
      for (let q = 0; q < truth.length; q++) {
        const t1 = now();
        got.push(g.search(queries.subarray(q * DIM, (q + 1) * DIM), 10, ef).map((h) => h.chunkOrdinal));
        times.push(now() - t1);
      }
      lines.push(
        `M=${m} efC=${efConstruction} build ${build.toFixed(1)} s ef=${ef}: recall ${recallAt10(truth, got).toFixed(4)} p50 ${ms(pct(times, 0.5))} p99 ${ms(pct(times, 0.99))}`,
      );
    }
    g.close();
  }
  return lines;
}

export async function benchIndex(): Promise<BenchResult[]> {
  const scale = Number(process.env.KORTTY_BENCH_SCALE ?? '1') || 1;
  const n = Math.max(2000, Math.round(100_000 * scale));
  const centres = Math.max(20, Math.round(1000 * scale));
  const nq = Math.max(50, Math.round(200 * Math.min(1, scale * 4)));
  const dir = mkdtempSync(join(tmpdir(), 'kortty-index-bench-'));
  const results: BenchResult[] = [];
  try {
    // the queries come from the same clusters (drawn after the data, so not in the index)
    const all = clusteredVectors(n + nq, centres, 42);
    const queries = all.subarray(n * DIM);
    const data = makeData(all.subarray(0, n * DIM), chunkTexts(n, 7));
    // rows in snapshot ordinal order (documents are sorted by source, then path)
    const vectors = collectVectors(data);

    // --- build: graph and lexical index
    const t0 = now();
    const graph = await buildHnswGraph(vectors, DIM, DEFAULT_HNSW, { scratchDir: dir });
    const graphMs = now() - t0;
    const t1 = now();
    const bm25 = await buildLexicalIndex(data);
    const bm25Ms = now() - t1;
    const parts: SnapshotParts = { data, hnsw: { ...DEFAULT_HNSW }, graph, bm25 };

    // adapter overhead: our build against a bare hnswlib insertion loop on a 10% subset
    const sub = vectors.subarray(0, Math.max(1000, Math.round(n / 10)) * DIM);
    const subN = sub.length / DIM;
    const t2 = now();
    const bare = new hnswlib.HierarchicalNSW('cosine', DIM);
    bare.initIndex({
      maxElements: subN,
      m: DEFAULT_HNSW.m,
      efConstruction: DEFAULT_HNSW.efConstruction,
      randomSeed: 100,
    });
    for (let i = 0; i < subN; i++) bare.addPoint(Array.from(sub.subarray(i * DIM, (i + 1) * DIM)), i);
    const bareMs = now() - t2;
    const t3 = now();
    await buildHnswGraph(sub, DIM, DEFAULT_HNSW, { scratchDir: dir });
    const oursMs = now() - t3;
    results.push({
      name: 'hnsw build: adapter over bare hnswlib',
      ratio: oursMs / bareMs,
      details: `${subN} vectors: ${ms(oursMs)} vs ${ms(bareMs)}; full build of ${n} x ${DIM}: graph ${(graphMs / 1000).toFixed(1)} s (M=${DEFAULT_HNSW.m}, efC=${DEFAULT_HNSW.efConstruction}), BM25 ${(bm25Ms / 1000).toFixed(1)} s`,
    });

    // --- write: writeSnapshot of built parts vs copyFile + fsync of the same bytes
    const live = join(dir, 'index.hnsw');
    const writes: number[] = [];
    const copies: number[] = [];
    // CPU time (user + system of this process) as well: on a machine shared with other jobs the
    // wall clock of a user-space encoder and of an in-kernel copy are starved differently.
    const writeCpu: number[] = [];
    const copyCpu: number[] = [];
    let size = 0;
    for (let round = 0; round < 5; round++) {
      const w0 = now();
      const u0 = cpuMs();
      size = (await writeSnapshot(live, parts)).bytes;
      writeCpu.push(cpuMs() - u0);
      writes.push(now() - w0);
      const c0 = now();
      const u1 = cpuMs();
      await copyAndSync(live, join(dir, 'copy'));
      copyCpu.push(cpuMs() - u1);
      copies.push(now() - c0);
      await fsp.unlink(join(dir, 'copy'));
    }
    const { header } = verifySnapshotV2(await fsp.readFile(live), live);
    const sections = header.sections.map((x) => `${x.name} ${mb(x.length)}`).join(', ');
    results.push({
      name: 'snapshot write over copyFile+fsync',
      ratio: median(writes) / median(copies),
      details: `${mb(size)} (${n} chunks): write ${ms(median(writes))} (encode, temp, fsync, re-read + verify, rename, dir fsync) vs copy+fsync ${ms(median(copies))} (median of 5); CPU time ${ms(median(writeCpu))} vs ${ms(median(copyCpu))} (${(median(writeCpu) / median(copyCpu)).toFixed(2)}x); sections: ${sections}`,
    });

    // --- open: openSnapshot vs reading and hashing the same file
    const opens: number[] = [];
    const reads: number[] = [];
    let snap = null;
    for (let round = 0; round < 3; round++) {
      const r0 = now();
      createHash('sha256')
        .update(await fsp.readFile(live))
        .digest();
      reads.push(now() - r0);
      snap?.close();
      snap = null;
      const o0 = now();
      snap = (await openSnapshot(live))!;
      opens.push(now() - o0);
    }
    const b0 = now();
    decodeBm25(encodeBm25(bm25), n, (r) => new Error(r));
    const bm25DecodeMs = now() - b0;
    results.push({
      name: 'snapshot open over readFile+sha256',
      ratio: median(opens) / median(reads),
      details: `open ${ms(median(opens))} (verify, decode, load graph) vs read+hash ${ms(median(reads))}; BM25 persisted: encode+decode ${ms(bm25DecodeMs)} vs rebuild ${ms(bm25Ms)}`,
    });
    results.push({
      name: 'BM25 rebuild on open over persisted',
      ratio: bm25Ms / bm25DecodeMs,
      details: `rebuilding the lexical index from ${n} chunk texts takes ${ms(bm25Ms)}; decoding it from the snapshot ${ms(bm25DecodeMs)}`,
    });

    // --- queries: HNSW vs exact
    const norms = vectorNorms(vectors, DIM);
    const truth: number[][] = [];
    const exactTimes: number[] = [];
    const hnswTimes: number[] = [];
    const got: number[][] = [];
    for (let q = 0; q < nq; q++) {
      const query = queries.subarray(q * DIM, (q + 1) * DIM);
      const e0 = now();
      truth.push(exactSearch(vectors, query, 10, { norms }).map((h) => h.chunkOrdinal));
      exactTimes.push(now() - e0);
      const h0 = now();
      got.push(snap!.searchVector(query, 10).map((h) => h.chunkOrdinal));
      hnswTimes.push(now() - h0);
    }
    const recall = recallAt10(truth, got);
    // queries far from every cluster (text unlike any document): the hard case for a graph walk
    const off = clusteredVectors(50, 50, 4242, 1);
    const offTruth: number[][] = [];
    const offGot: number[][] = [];
    for (let q = 0; q < 50; q++) {
      const query = off.subarray(q * DIM, (q + 1) * DIM);
      offTruth.push(exactSearch(vectors, query, 10, { norms }).map((h) => h.chunkOrdinal));
      offGot.push(snap!.searchVector(query, 10).map((h) => h.chunkOrdinal));
    }
    results.push({
      name: `hnsw recall@10 (${n} x ${DIM}, ef=${DEFAULT_HNSW.efSearch})`,
      ratio: recall,
      details: `recall ${recall.toFixed(4)} on ${nq} in-distribution queries (${centres} clusters); ${recallAt10(offTruth, offGot).toFixed(4)} on 50 off-cluster queries`,
    });
    results.push({
      name: 'vector query p50: hnsw over exact',
      ratio: pct(hnswTimes, 0.5) / pct(exactTimes, 0.5),
      details: `hnsw p50 ${ms(pct(hnswTimes, 0.5))} p99 ${ms(pct(hnswTimes, 0.99))}; exact p50 ${ms(pct(exactTimes, 0.5))} p99 ${ms(pct(exactTimes, 0.99))}`,
    });
    const lexTimes: number[] = [];
    const words = data.docs[0]!.chunks[0]!.text.split(' ');
    for (let q = 0; q < 100; q++) {
      const l0 = now();
      searchBm25(
        bm25,
        `${words[q % words.length]} ${words[(q * 7) % words.length]} ${words[(q * 13) % words.length]}`,
        10,
      );
      lexTimes.push(now() - l0);
    }
    results.push({
      name: 'lexical query p50 over hnsw p50',
      ratio: pct(lexTimes, 0.5) / pct(hnswTimes, 0.5),
      details: `BM25 p50 ${ms(pct(lexTimes, 0.5))} p99 ${ms(pct(lexTimes, 0.99))} (3-term queries)`,
    });
    snap?.close();

    if (process.env.KORTTY_BENCH_HNSW_SWEEP === '1') {
      const lines = await sweep(vectors, queries, truth, dir);
      results.push({ name: 'hnsw parameter sweep', ratio: 1, details: `\n  ${lines.join('\n  ')}` });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await benchIndex()) console.log(`${r.name}: ${r.ratio.toFixed(3)}  ${r.details}`);
}
