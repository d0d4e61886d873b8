import type { Schemas } from '@qdrant/js-client-rest';
import { createError, isKorttyError } from '../errors.js';
import type { Connection } from './connection.js';
import type { QdrantFailureExtra } from './failures.js';
import { batches, generationFilter, generationOf, type PointInput, payloadFor, pointId } from './points.js';

export interface ReplaceOptions {
  /** Checked between batches; an abort throws JOB_CANCELLED and leaves the active generation as it was. */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void | Promise<void>;
}

/**
 * Phase 1 of a source update (see QDRANT.md): upload the complete new point set as a new
 * generation, in batches with wait=true, then count it. Nothing here deletes, so a failure at
 * any step leaves the active generation complete and searchable; the half-uploaded generation
 * stays invisible (search filters on active generations) until pruneSource removes it.
 * The caller has validated `points` (checkPoints) and the collection (ensureCollection).
 */
export async function replaceSource(
  conn: Connection,
  sourceId: string,
  points: readonly PointInput[],
  opts: ReplaceOptions = {},
): Promise<{ generation: string; points: number }> {
  const { client, collection, storeId, call } = conn;
  const generation = generationOf(storeId, sourceId, points);
  const groups = batches(points, conn.batchSize);
  const untouched = `the active points of source ${sourceId} are unchanged`;
  let done = 0;
  for (const [i, group] of groups.entries()) {
    if (opts.signal?.aborted) throw createError('JOB_CANCELLED');
    const body = group.map((p) => ({
      id: pointId(storeId, sourceId, generation, p.chunkId),
      vector: Array.from(p.vector),
      payload: payloadFor(storeId, sourceId, generation, p.chunkId, p.payload),
    }));
    const extra = { sourceId, batch: i + 1, batches: groups.length };
    try {
      const res = await call(
        'upsert',
        () => client.upsert(collection, { wait: true, points: body }),
        opts.signal,
      );
      conn.requireCompleted('upsert', res, extra);
    } catch (err) {
      throw annotate(err, `batch ${i + 1} of ${groups.length}; ${untouched}`, extra);
    }
    done += group.length;
    await opts.onProgress?.(done, points.length);
  }
  // Trust but verify: the generation must hold exactly the points we sent.
  const { count } = await call('count', () =>
    client.count(collection, {
      filter: generationFilter(storeId, sourceId, generation) as Schemas['Filter'],
      exact: true,
    }),
  );
  if (count !== points.length) {
    throw createError('QDRANT_FAILED', {
      op: 'verify',
      sourceId,
      reason: `expected ${points.length} points in the new generation, the server holds ${count}; ${untouched}`,
    });
  }
  return { generation, points: points.length };
}

function annotate(err: unknown, note: string, extra: QdrantFailureExtra): unknown {
  if (!isKorttyError(err, 'QDRANT_FAILED')) return err;
  const d = err.details;
  return createError('QDRANT_FAILED', { ...d, ...extra, reason: `${d.reason}; ${note}` });
}
