import { createError } from '../errors.js';
import { openConnection, type QdrantStoreOptions } from './connection.js';
import { ensureCollection } from './ensure-collection.js';
import {
  type ActiveSource,
  batches,
  checkPoints,
  type PointInput,
  sourceFilter,
  sourcesFilter,
  staleFilter,
} from './points.js';
import {
  countPoints,
  listGeneration,
  type QdrantHit,
  type StoredPoint,
  searchPoints,
} from './read-points.js';
import { type ReplaceOptions, replaceSource } from './replace-source.js';

// The Qdrant store adapter: what the store engine calls. See QDRANT.md for the generation
// protocol that keeps a failed update from ever showing up as a partial source.

export interface QdrantStore {
  /** Normalised endpoint (no credentials), for display. */
  readonly endpoint: string;
  readonly collection: string;
  /** Create the collection (cosine, store dimension) or validate the existing one; ensure payload indexes. */
  ensureCollection(): Promise<{ created: boolean }>;
  /**
   * Uploads a complete new point set for one source as a new generation, invisible to `search`
   * until the caller records it as active. Resolves only when every point is stored and counted.
   */
  replaceSource(
    sourceId: string,
    points: readonly PointInput[],
    opts?: ReplaceOptions,
  ): Promise<{ generation: string; points: number }>;
  /** Deletes the source's points of every generation except `activeGeneration`. */
  pruneSource(sourceId: string, activeGeneration: string): Promise<void>;
  /** Deletes all points of one source of this store. */
  deleteSource(sourceId: string): Promise<void>;
  /** Deletes the points of the given sources of this store; never the collection or other data. */
  deleteStorePoints(sourceIds: readonly string[]): Promise<void>;
  /** k nearest among the active generations of the given (enabled) sources, filtered inside the query. */
  search(vector: Float32Array, k: number, active: readonly ActiveSource[]): Promise<QdrantHit[]>;
  /** One generation's points (for reusing vectors of unchanged documents). */
  listSource(sourceId: string, generation: string, opts?: { withVectors?: boolean }): Promise<StoredPoint[]>;
  countSource(sourceId: string, generation?: string): Promise<number>;
}

const DELETE_SOURCES_PER_REQUEST = 100;

/** Synchronous and offline: checks the endpoint and options, builds the client; no request yet. */
export function createQdrantStore(opts: QdrantStoreOptions): QdrantStore {
  const conn = openConnection(opts);
  const { storeId } = conn;

  // Validated once per process; writes wait for it, so nothing is written to a mismatching collection.
  let ready: Promise<{ created: boolean }> | null = null;
  const ensure = () => {
    ready ??= ensureCollection(conn).catch((err) => {
      ready = null;
      throw err;
    });
    return ready;
  };

  return {
    endpoint: conn.endpoint.href,
    collection: conn.collection,
    ensureCollection: ensure,

    async replaceSource(sourceId, points, ropts = {}) {
      checkSourceId(sourceId);
      // Bad input is refused before any request, even the collection check.
      checkPoints(points, conn.dimension);
      await ensure();
      return replaceSource(conn, sourceId, points, ropts);
    },

    async pruneSource(sourceId, activeGeneration) {
      checkSourceId(sourceId);
      if (typeof activeGeneration !== 'string' || activeGeneration.length === 0) {
        throw createError('INVALID_ARGUMENT', { name: 'activeGeneration', reason: 'must be non-empty' });
      }
      await conn.deleteWhere('prune', staleFilter(storeId, sourceId, activeGeneration));
    },

    async deleteSource(sourceId) {
      checkSourceId(sourceId);
      await conn.deleteWhere('delete-source', sourceFilter(storeId, sourceId));
    },

    async deleteStorePoints(sourceIds) {
      sourceIds.forEach(checkSourceId);
      // An empty list deletes nothing (and an empty `any` filter is never sent).
      for (const group of batches(sourceIds, DELETE_SOURCES_PER_REQUEST)) {
        await conn.deleteWhere('delete-store-points', sourcesFilter(storeId, group));
      }
    },

    search: (vector, k, active) => searchPoints(conn, vector, k, active),

    async listSource(sourceId, generation, lopts = {}) {
      checkSourceId(sourceId);
      return listGeneration(conn, sourceId, generation, lopts.withVectors === true);
    },

    async countSource(sourceId, generation) {
      checkSourceId(sourceId);
      return countPoints(conn, sourceId, generation);
    },
  };
}

function checkSourceId(sourceId: string): void {
  if (typeof sourceId !== 'string' || sourceId.length === 0) {
    throw createError('INVALID_ARGUMENT', { name: 'sourceId', reason: 'must be a non-empty string' });
  }
}

export type { QdrantStoreOptions } from './connection.js';
export type { ActiveSource, PointInput } from './points.js';
export type { QdrantHit, StoredPoint } from './read-points.js';
export type { ReplaceOptions } from './replace-source.js';
