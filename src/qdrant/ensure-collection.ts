import { createError, isKorttyError } from '../errors.js';
import { type CollectionInfoLike, collectionMismatch } from './collection-check.js';
import type { Connection } from './connection.js';
import { INDEXED_FIELDS } from './points.js';

/**
 * Create the collection (cosine, the store's dimension) or validate the existing one, then make
 * sure the filter fields have keyword payload indexes. Order matters: nothing is written to a
 * collection before it has been validated, so a wrong dimension or distance is refused with the
 * collection exactly as it was. Never deletes or recreates a collection.
 */
export async function ensureCollection(conn: Connection): Promise<{ created: boolean }> {
  const { client, collection, dimension, call } = conn;
  let created = false;
  const { exists } = await call('collection-exists', () => client.collectionExists(collection));
  if (!exists) {
    try {
      await call('create-collection', () =>
        client.createCollection(collection, { vectors: { size: dimension, distance: 'Cosine' } }),
      );
      created = true;
    } catch (err) {
      // 409: created meanwhile (another process, or our own retried request); validate it below.
      if (!(isKorttyError(err, 'QDRANT_FAILED') && err.details.status === 409)) throw err;
    }
  }
  const info = await call('get-collection', () => client.getCollection(collection));
  const mismatch = collectionMismatch(info as CollectionInfoLike, dimension);
  if (mismatch) throw createError('QDRANT_COLLECTION_MISMATCH', { collection, reason: mismatch });
  for (const field of INDEXED_FIELDS) {
    if (info.payload_schema?.[field]) continue;
    const res = await call('create-payload-index', () =>
      client.createPayloadIndex(collection, { field_name: field, field_schema: 'keyword', wait: true }),
    );
    conn.requireCompleted('create-payload-index', res, { field });
  }
  return { created };
}
