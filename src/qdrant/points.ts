import { createHash } from 'node:crypto';
import { createError } from '../errors.js';
import type { ChunkLocation } from '../types.js';

// Pure mapping between kortty chunks and Qdrant points: ids, payload, generations, filters.

/** Chunk metadata stored with every point (the same fields as the local snapshot). */
export interface ChunkMeta extends ChunkLocation {
  /** Document path (display-safe, absolute). */
  path: string;
  /** sha256 (hex) of the complete source document. */
  contentHash: string;
  text: string;
  chunkIndex?: number;
  tokens?: number;
}

export interface PointInput {
  /** Unique within the source. */
  chunkId: string;
  vector: Float32Array;
  payload: ChunkMeta;
}

/** One source's points as stored: which generation of that source they belong to. */
export interface ActiveSource {
  sourceId: string;
  generation: string;
}

/** Payload keys used in filters; each gets a keyword payload index. */
export const INDEXED_FIELDS = ['store_id', 'source_id', 'generation'] as const;

export type QdrantPayload = Record<string, string | number>;

export type Condition = Record<string, unknown>;
export interface QdrantFilter {
  must?: Condition[];
  should?: Condition[];
  must_not?: Condition[];
}

// Fixed namespace for kortty point ids (a random v4 UUID chosen once; never change it).
const POINT_NS = Buffer.from('6f2b5a1e9c3d4e8fa0b1c2d3e4f50617', 'hex');

/**
 * Deterministic RFC 4122 v5 UUID for a point. The source id is part of the name although the
 * brief only asks for (store, chunk): two sources may well produce equal chunk ids (e.g. content
 * hashes), and an id collision would let one source's upsert overwrite another source's point.
 * The generation is part of it so a new generation never overwrites the active one.
 */
export function pointId(storeId: string, sourceId: string, generation: string, chunkId: string): string {
  const name = Buffer.from(JSON.stringify([storeId, sourceId, generation, chunkId]), 'utf8');
  const h = createHash('sha1').update(POINT_NS).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Content-derived generation of a source's point set: equal input gives an equal generation (a
 * retried replace is idempotent), any change in ids, metadata or vectors gives a new one.
 */
export function generationOf(storeId: string, sourceId: string, points: readonly PointInput[]): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(['kortty-qdrant-gen-1', storeId, sourceId, points.length]));
  for (const p of points) {
    h.update(JSON.stringify([p.chunkId, payloadFor('', '', '', p.chunkId, p.payload)]));
    h.update(new Uint8Array(p.vector.buffer, p.vector.byteOffset, p.vector.byteLength));
  }
  return `g${h.digest('hex').slice(0, 24)}`;
}

export function payloadFor(
  storeId: string,
  sourceId: string,
  generation: string,
  chunkId: string,
  meta: ChunkMeta,
): QdrantPayload {
  const p: QdrantPayload = {
    store_id: storeId,
    source_id: sourceId,
    generation,
    chunk_id: chunkId,
    path: meta.path,
    content_hash: meta.contentHash,
    text: meta.text,
  };
  // Optional numbers in a fixed order so the payload (and the generation hash) is deterministic.
  for (const [k, v] of [
    ['chunk_index', meta.chunkIndex],
    ['tokens', meta.tokens],
    ['line_start', meta.lineStart],
    ['line_end', meta.lineEnd],
    ['page_start', meta.pageStart],
    ['page_end', meta.pageEnd],
  ] as const) {
    if (v !== undefined) p[k] = v;
  }
  return p;
}

/** Reads our payload back; null when the point is not one of ours (missing or mistyped fields). */
export function metaFromPayload(
  p: Record<string, unknown> | null | undefined,
): { storeId: string; sourceId: string; generation: string; chunkId: string; meta: ChunkMeta } | null {
  if (!p) return null;
  const str = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  const num = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : undefined);
  const storeId = str('store_id');
  const sourceId = str('source_id');
  const generation = str('generation');
  const chunkId = str('chunk_id');
  const path = str('path');
  const contentHash = str('content_hash');
  const text = str('text');
  if (
    storeId === undefined ||
    sourceId === undefined ||
    generation === undefined ||
    chunkId === undefined ||
    path === undefined ||
    contentHash === undefined ||
    text === undefined
  ) {
    return null;
  }
  const meta: ChunkMeta = { path, contentHash, text };
  const opt = {
    chunkIndex: num('chunk_index'),
    tokens: num('tokens'),
    lineStart: num('line_start'),
    lineEnd: num('line_end'),
    pageStart: num('page_start'),
    pageEnd: num('page_end'),
  };
  for (const [k, v] of Object.entries(opt))
    if (v !== undefined) (meta as unknown as Record<string, number>)[k] = v;
  return { storeId, sourceId, generation, chunkId, meta };
}

/** Refuses a point set before any network traffic: dimension, finite values, unique chunk ids. */
export function checkPoints(points: readonly PointInput[], dimension: number): void {
  const seen = new Set<string>();
  points.forEach((p, i) => {
    const bad = (reason: string) => {
      throw createError('INVALID_ARGUMENT', { name: `points[${i}]`, reason });
    };
    if (typeof p.chunkId !== 'string' || p.chunkId.length === 0) bad('chunkId must be a non-empty string');
    if (seen.has(p.chunkId)) bad(`duplicate chunkId ${JSON.stringify(p.chunkId)}`);
    seen.add(p.chunkId);
    checkVector(p.vector, dimension, `points[${i}].vector`);
    if (!p.payload || typeof p.payload.text !== 'string' || typeof p.payload.path !== 'string') {
      bad('payload needs path and text');
    }
  });
}

export function checkVector(v: Float32Array, dimension: number, name = 'vector'): void {
  if (!(v instanceof Float32Array))
    throw createError('INVALID_ARGUMENT', { name, reason: 'expected a Float32Array' });
  if (v.length !== dimension) {
    throw createError('INVALID_ARGUMENT', {
      name,
      reason: `has ${v.length} dimensions, the store uses ${dimension}`,
    });
  }
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]))
      throw createError('INVALID_ARGUMENT', { name, reason: `value ${i} is not finite` });
  }
}

const eq = (key: string, value: string): Condition => ({ key, match: { value } });
const anyOf = (key: string, values: readonly string[]): Condition => ({ key, match: { any: [...values] } });

/** This store's points of one source (all generations). */
export function sourceFilter(storeId: string, sourceId: string): QdrantFilter {
  return { must: [eq('store_id', storeId), eq('source_id', sourceId)] };
}

/** This store's points of one source generation. */
export function generationFilter(storeId: string, sourceId: string, generation: string): QdrantFilter {
  return { must: [eq('store_id', storeId), eq('source_id', sourceId), eq('generation', generation)] };
}

/** Everything of one source except its active generation (old generations, crashed uploads). */
export function staleFilter(storeId: string, sourceId: string, activeGeneration: string): QdrantFilter {
  return {
    must: [eq('store_id', storeId), eq('source_id', sourceId)],
    must_not: [eq('generation', activeGeneration)],
  };
}

/** This store's points of the listed sources (all generations). Callers never pass an empty list. */
export function sourcesFilter(storeId: string, sourceIds: readonly string[]): QdrantFilter {
  return { must: [eq('store_id', storeId), anyOf('source_id', sourceIds)] };
}

/**
 * The retrieval filter, evaluated by Qdrant inside the query so the k best come from enabled
 * sources only. Generations are content hashes over (store, source, ...), so pairing is implied:
 * another source can never carry an active source's generation.
 */
export function searchFilter(storeId: string, active: readonly ActiveSource[]): QdrantFilter {
  return {
    must: [
      eq('store_id', storeId),
      anyOf(
        'source_id',
        active.map((a) => a.sourceId),
      ),
      anyOf(
        'generation',
        active.map((a) => a.generation),
      ),
    ],
  };
}

export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
