import type { Schemas } from '@qdrant/js-client-rest';
import { createError } from '../errors.js';
import type { Connection } from './connection.js';
import {
  type ActiveSource,
  type ChunkMeta,
  checkVector,
  generationFilter,
  metaFromPayload,
  searchFilter,
  sourceFilter,
} from './points.js';

// Reads: search (filtered inside the query), listing a generation, counting.

export interface QdrantHit {
  chunkId: string;
  sourceId: string;
  /** Cosine similarity, higher is better. */
  score: number;
  meta: ChunkMeta;
}

export interface StoredPoint {
  chunkId: string;
  meta: ChunkMeta;
  /** Unit-normalised by Qdrant (cosine collections store normalised vectors). */
  vector?: Float32Array;
}

export const MAX_K = 1000;

export async function searchPoints(
  conn: Connection,
  vector: Float32Array,
  k: number,
  active: readonly ActiveSource[],
): Promise<QdrantHit[]> {
  const { client, collection, storeId } = conn;
  checkVector(vector, conn.dimension, 'query vector');
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
    throw createError('INVALID_ARGUMENT', { name: 'k', reason: `must be an integer 1..${MAX_K}` });
  }
  // No enabled source: nothing may come back, and an empty `any` list is never sent.
  if (active.length === 0) return [];
  const activeGen = new Map(active.map((a) => [a.sourceId, a.generation]));
  const res = await conn.call('search', () =>
    client.query(collection, {
      query: Array.from(vector),
      filter: searchFilter(storeId, active) as Schemas['Filter'],
      limit: k,
      with_payload: true,
      with_vector: false,
    }),
  );
  return res.points.map((p) => {
    const m = metaFromPayload(p.payload as Record<string, unknown> | null | undefined);
    // Defence in depth: a server that ignored the filter is an error, not something to patch up.
    if (!m || m.storeId !== storeId || activeGen.get(m.sourceId) !== m.generation) {
      throw createError('QDRANT_FAILED', {
        op: 'search',
        reason: 'the server returned a point outside the filter',
      });
    }
    return { chunkId: m.chunkId, sourceId: m.sourceId, score: p.score, meta: m.meta };
  });
}

/** All points of one generation, paged by id (for reusing vectors of unchanged documents). */
export async function listGeneration(
  conn: Connection,
  sourceId: string,
  generation: string,
  withVectors: boolean,
): Promise<StoredPoint[]> {
  const { client, collection, storeId } = conn;
  const bad = (reason: string) => createError('QDRANT_FAILED', { op: 'scroll', reason });
  const out: StoredPoint[] = [];
  let offset: Schemas['ExtendedPointId'] | undefined;
  for (;;) {
    const page = await conn.call('scroll', () =>
      client.scroll(collection, {
        filter: generationFilter(storeId, sourceId, generation) as Schemas['Filter'],
        limit: 256,
        with_payload: true,
        with_vector: withVectors,
        ...(offset !== undefined ? { offset } : {}),
      }),
    );
    for (const p of page.points) {
      const m = metaFromPayload(p.payload as Record<string, unknown> | null | undefined);
      if (!m) throw bad('a point has no kortty payload');
      const point: StoredPoint = { chunkId: m.chunkId, meta: m.meta };
      if (withVectors) {
        if (!Array.isArray(p.vector) || p.vector.length !== conn.dimension)
          throw bad('a point came back without its vector');
        point.vector = Float32Array.from(p.vector as number[]);
      }
      out.push(point);
    }
    const next = page.next_page_offset;
    if (next === null || next === undefined) break;
    offset = next as Schemas['ExtendedPointId'];
  }
  return out;
}

export async function countPoints(conn: Connection, sourceId: string, generation?: string): Promise<number> {
  const filter =
    generation === undefined
      ? sourceFilter(conn.storeId, sourceId)
      : generationFilter(conn.storeId, sourceId, generation);
  const { count } = await conn.call('count', () =>
    conn.client.count(conn.collection, { filter: filter as Schemas['Filter'], exact: true }),
  );
  return count;
}
