import { createError } from '../errors.js';
import { type Bm25Index, buildBm25, DEFAULT_BM25, type LexicalDoc } from './bm25.js';
import { chunkHeadings, documentTitle } from './fields.js';
import { buildHnswGraph, DEFAULT_HNSW } from './hnsw.js';
import type { SnapshotParts } from './snapshot-format.js';
import {
  type Bm25Params,
  countChunks,
  type HnswParams,
  type SnapshotData,
  validateSnapshotData,
} from './snapshot-types.js';

// Build both indexes of a snapshot (the slow, cancellable part of a write; activation is
// snapshot-io.ts). Deterministic: ordinals follow (doc order, chunk order), the graph is built
// single-threaded with a fixed seed, and the BM25 dictionary is sorted.

export type BuildPhase = 'graph' | 'lexical';

export interface BuildSnapshotOptions {
  /** An existing directory for hnswlib's scratch file: the snapshot's own directory. */
  scratchDir: string;
  hnsw?: Partial<HnswParams>;
  bm25?: Bm25Params;
  /** Checked between batches of 1,000 items; aborting throws JOB_CANCELLED. */
  signal?: AbortSignal;
  onProgress?: (phase: BuildPhase, done: number, total: number) => void;
}

export function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw createError('JOB_CANCELLED', { reason: String(signal.reason ?? 'aborted') });
}

/** Rows of all chunk vectors, row = ordinal. */
export function collectVectors(data: SnapshotData): Float32Array {
  const dim = data.dimension;
  const out = new Float32Array(countChunks(data) * dim);
  let ord = 0;
  for (const d of data.docs) for (const c of d.chunks) out.set(c.vector, dim * ord++);
  return out;
}

/** Each chunk's lexical fields (fields.ts), row = ordinal. */
export function collectLexicalDocs(data: SnapshotData): LexicalDoc[] {
  const out: LexicalDoc[] = [];
  for (const d of data.docs) {
    const title = documentTitle(d.path, d.format, d.chunks[0]?.text ?? '');
    for (const c of d.chunks) out.push({ body: c.text, title, headings: chunkHeadings(c.text) });
  }
  return out;
}

export async function buildLexicalIndex(
  data: SnapshotData,
  params: Bm25Params = DEFAULT_BM25,
  signal?: AbortSignal,
  onProgress?: BuildSnapshotOptions['onProgress'],
): Promise<Bm25Index> {
  const docs = collectLexicalDocs(data);
  return buildBm25(docs, params, async (done) => {
    onProgress?.('lexical', done, docs.length);
    await yieldTurn();
    throwIfCancelled(signal);
  });
}

/** Let timers, I/O and abort signals in: index builds run long synchronous stretches. */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function buildSnapshot(data: SnapshotData, opts: BuildSnapshotOptions): Promise<SnapshotParts> {
  throwIfCancelled(opts.signal);
  validateSnapshotData(data);
  const hnsw: HnswParams = { ...DEFAULT_HNSW, ...opts.hnsw };
  const vectors = collectVectors(data);
  const total = vectors.length / data.dimension;
  const graph = await buildHnswGraph(vectors, data.dimension, hnsw, {
    scratchDir: opts.scratchDir,
    onProgress: async (done) => {
      opts.onProgress?.('graph', done, total);
      await yieldTurn();
      throwIfCancelled(opts.signal);
    },
  });
  throwIfCancelled(opts.signal);
  const bm25 = await buildLexicalIndex(data, opts.bm25, opts.signal, opts.onProgress);
  throwIfCancelled(opts.signal);
  return { data, hnsw, graph, bm25 };
}
