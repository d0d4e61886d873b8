import { INDEXED_FIELDS } from './points.js';

// Is an existing collection usable for a store? Pure: the collection info (GET /collections/{name}
// result) in, the reason it is not out. Checked before anything is written to it.

export interface CollectionInfoLike {
  config?: { params?: { vectors?: unknown } };
  payload_schema?: Record<string, { data_type?: unknown } | undefined>;
}

/** null when the collection fits; otherwise a reason naming what differs. */
export function collectionMismatch(info: CollectionInfoLike, dimension: number): string | null {
  const vectors = info.config?.params?.vectors as Record<string, unknown> | undefined;
  if (!vectors || typeof vectors !== 'object') return 'it has no dense vector configuration';
  if (typeof vectors.size !== 'number') {
    const names = Object.keys(vectors).slice(0, 5).join(', ');
    return `it uses named vectors (${names || 'none'}); a kortty store needs one unnamed vector`;
  }
  if (vectors.distance !== 'Cosine') {
    return `it uses ${String(vectors.distance)} distance; a kortty store needs Cosine`;
  }
  if (vectors.size !== dimension) {
    return `it holds ${vectors.size}-dimensional vectors but this store's model produces ${dimension}`;
  }
  if (vectors.multivector_config) return 'it stores multivectors; a kortty store needs one vector per point';
  if (vectors.datatype === 'uint8') return 'it stores uint8 vectors; a kortty store needs float vectors';
  for (const field of INDEXED_FIELDS) {
    const type = info.payload_schema?.[field]?.data_type;
    if (type !== undefined && type !== 'keyword') {
      return `its payload field "${field}" is indexed as ${String(type)}; kortty needs a keyword index`;
    }
  }
  return null;
}
