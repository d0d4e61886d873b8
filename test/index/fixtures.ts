import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkId, type SnapshotData, type SnapshotDoc } from '../../src/index/snapshot-types.js';
import { snapshotPath, storeDir } from '../../src/storage/paths.js';
import type { ModelFingerprint } from '../../src/types.js';
import { mulberry32 as rng } from '../helpers/prng.js';

export { rng };

// Deterministic snapshot data for the index tests, and a per-file KORTTY_HOME.

export function useTempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'kortty-index-test-'));
  process.env.KORTTY_HOME = home;
  return home;
}

let storeSeq = 0;
/** A fresh store directory under KORTTY_HOME; returns the snapshot path inside it. */
export function freshSnapshotPath(): string {
  const id = `store-${process.pid}-${storeSeq++}`;
  mkdirSync(storeDir(id), { recursive: true });
  return snapshotPath(id);
}

export function fingerprint(dim: number, over: Partial<ModelFingerprint> = {}): ModelFingerprint {
  return {
    modelId: 'test-model',
    fileName: 'test.gguf',
    fileSize: 1234,
    fileSha256: 'a'.repeat(64),
    dimension: dim,
    pooling: 'mean',
    documentPrefix: '',
    queryPrefix: '',
    ...over,
  };
}

const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(
    ' ',
  );

export interface FixtureOptions {
  sources?: number;
  docsPerSource?: number;
  chunksPerDoc?: number;
  dim?: number;
  seed?: number;
}

/** Sources `src-0..`, docs `/data/src-i/doc-j.txt`, clustered-ish random vectors, word texts. */
export function makeData(o: FixtureOptions = {}): SnapshotData {
  const { sources = 2, docsPerSource = 2, chunksPerDoc = 3, dim = 8, seed = 1 } = o;
  const r = rng(seed);
  const docs: SnapshotDoc[] = [];
  for (let s = 0; s < sources; s++) {
    for (let d = 0; d < docsPerSource; d++) {
      const sourceId = `src-${s}`;
      const path = `/data/${sourceId}/doc-${String(d).padStart(4, '0')}.txt`;
      const chunks = [];
      for (let c = 0; c < chunksPerDoc; c++) {
        const words = Array.from({ length: 6 }, () => WORDS[Math.floor(r() * WORDS.length)]!);
        const text = `${words.join(' ')} s${s}d${d}c${c}`;
        const vector = new Float32Array(dim);
        for (let i = 0; i < dim; i++) vector[i] = Math.sin((s + 1) * (i + 1)) + (r() - 0.5) * 0.8;
        chunks.push({
          id: chunkId('store', sourceId, path, c, text),
          index: c,
          text,
          tokens: 7,
          ...(c % 2 === 0
            ? { lineStart: c * 10 + 1, lineEnd: c * 10 + 12 }
            : { pageStart: c, pageEnd: c + 1 }),
          vector,
        });
      }
      docs.push({
        sourceId,
        path,
        sha256: `${s}${d}`.padEnd(64, 'f'),
        size: 100 + d,
        format: 'text',
        chunks,
      });
    }
  }
  return { fingerprint: fingerprint(dim), dimension: dim, docs };
}

/** Plain-object view for deepEqual (typed arrays as arrays). */
export function plain(data: SnapshotData): unknown {
  return {
    ...data,
    docs: data.docs.map((d) => ({
      ...d,
      chunks: d.chunks.map((c) => ({ ...c, vector: Array.from(c.vector) })),
    })),
  };
}
