import { createHash } from 'node:crypto';
import { createError } from '../errors.js';
import type { ChunkLocation, ModelFingerprint } from '../types.js';

// Plain data of a local snapshot (format: STORAGE.md). No timestamps: identical inputs give
// identical bytes, which is what the determinism tests and "converges to a from-scratch index" need.

export interface SnapshotChunk extends ChunkLocation {
  /** `chunkId(...)`: 16 lowercase hex digits. */
  id: string;
  /** 0-based position of the chunk in its document. */
  index: number;
  text: string;
  tokens: number;
  /** The embedding as the model produced it (not normalised); length = dimension. */
  vector: Float32Array;
}

export interface SnapshotDoc {
  sourceId: string;
  path: string;
  /** Complete-file sha256 (hex) the chunks were made from: sync compares files against it. */
  sha256: string;
  size: number;
  format: string;
  chunks: SnapshotChunk[];
}

export interface SnapshotData {
  fingerprint: ModelFingerprint;
  dimension: number;
  /** Sorted by (sourceId, path), compared by UTF-16 code units (`compareDocs`). */
  docs: SnapshotDoc[];
}

/** Graph parameters of the hierarchical HNSW; stored in the snapshot header. */
export interface HnswParams {
  m: number;
  efConstruction: number;
  /** Default ef at query time (raised to k when k is larger). */
  efSearch: number;
  randomSeed: number;
}

/** BM25 parameters; stored with the lexical index. */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** A search hit: the chunk's dense ordinal (order of docs, then chunks) and its score. */
export interface SearchHit {
  chunkOrdinal: number;
  score: number;
}

const CHUNK_ID = /^[0-9a-f]{16}$/;

/**
 * Deterministic chunk id: sha256 over an unambiguous JSON encoding of the chunk's identity and
 * text, truncated to 16 hex digits (64 bits: a collision in a store of a million chunks has
 * probability ~3e-8).
 */
export function chunkId(
  storeId: string,
  sourceId: string,
  path: string,
  index: number,
  text: string,
): string {
  return createHash('sha256')
    .update(JSON.stringify([storeId, sourceId, path, index, text]), 'utf8')
    .digest('hex')
    .slice(0, 16);
}

export function isChunkId(id: string): boolean {
  return CHUNK_ID.test(id);
}

/** Code-unit order (never localeCompare: it depends on the locale and would break determinism). */
export function compareDocs(
  a: Pick<SnapshotDoc, 'sourceId' | 'path'>,
  b: Pick<SnapshotDoc, 'sourceId' | 'path'>,
) {
  if (a.sourceId !== b.sourceId) return a.sourceId < b.sourceId ? -1 : 1;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return 0;
}

export function sortDocs(docs: SnapshotDoc[]): SnapshotDoc[] {
  return [...docs].sort(compareDocs);
}

export function countChunks(data: Pick<SnapshotData, 'docs'>): number {
  let n = 0;
  for (const d of data.docs) n += d.chunks.length;
  return n;
}

/**
 * Reject data a snapshot cannot faithfully hold, naming the document and the reason: unsorted or
 * duplicate documents, chunk indexes out of order, bad ids, vectors of the wrong length or with
 * non-finite values (hnswlib would index NaN silently).
 */
export function validateSnapshotData(data: SnapshotData): void {
  const bad = (reason: string) => createError('INVALID_ARGUMENT', { name: 'snapshot data', reason });
  const dim = data.dimension;
  if (!Number.isInteger(dim) || dim < 1 || dim > 65536)
    throw bad(`dimension ${dim} is not an integer in 1..65536`);
  if (data.fingerprint.dimension !== dim) {
    throw bad(`fingerprint dimension ${data.fingerprint.dimension} differs from dimension ${dim}`);
  }
  const ids = new Set<string>();
  for (let i = 0; i < data.docs.length; i++) {
    const doc = data.docs[i]!;
    for (const key of ['sourceId', 'path', 'sha256', 'format'] as const) {
      if (typeof doc[key] !== 'string') throw bad(`document ${i}: ${key} is not a string`);
    }
    if (!Number.isSafeInteger(doc.size) || doc.size < 0)
      throw bad(`${doc.path}: size ${doc.size} is not a byte count`);
    if (i > 0 && compareDocs(data.docs[i - 1]!, doc) >= 0) {
      throw bad(`documents are not sorted by (sourceId, path) or repeat: ${doc.sourceId} ${doc.path}`);
    }
    for (let c = 0; c < doc.chunks.length; c++) {
      const ch = doc.chunks[c]!;
      const where = `${doc.path} chunk ${c}`;
      if (c > 0 && ch.index <= doc.chunks[c - 1]!.index) throw bad(`${where}: chunk indexes must increase`);
      if (!Number.isInteger(ch.index) || ch.index < 0 || ch.index > 0xffffffff)
        throw bad(`${where}: bad index`);
      if (!Number.isInteger(ch.tokens) || ch.tokens < 0 || ch.tokens > 0xffffffff)
        throw bad(`${where}: bad tokens`);
      for (const key of ['lineStart', 'lineEnd', 'pageStart', 'pageEnd'] as const) {
        const v = ch[key];
        if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 0xffffffff)) {
          throw bad(`${where}: ${key} ${v} is not a 1-based integer`);
        }
      }
      if (!isChunkId(ch.id)) throw bad(`${where}: id "${ch.id}" is not 16 lowercase hex digits`);
      if (ids.has(ch.id)) throw bad(`${where}: duplicate chunk id ${ch.id}`);
      ids.add(ch.id);
      if (!(ch.vector instanceof Float32Array) || ch.vector.length !== dim) {
        throw bad(`${where}: vector length ${ch.vector?.length} differs from dimension ${dim}`);
      }
      for (let d = 0; d < dim; d++)
        if (!Number.isFinite(ch.vector[d]!)) throw bad(`${where}: non-finite vector value`);
    }
  }
}

/** The fingerprint as compact canonical JSON (sorted keys): compared and stored byte-exactly. */
export function canonicalFingerprint(fp: ModelFingerprint): string {
  const obj = fp as unknown as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) if (obj[k] !== undefined) sorted[k] = obj[k];
  return JSON.stringify(sorted);
}

export function describeFingerprint(fp: ModelFingerprint): string {
  return `${fp.modelId} ${fp.dimension}d ${fp.pooling} sha256:${String(fp.fileSha256).slice(0, 12)}`;
}
