import type { Review } from '../types.js';

// Pure: what a sync must do for one source, given the snapshot's documents for that source and
// a fresh review. The snapshot (not store.json) is the baseline, so a crash between activation
// and the store.json update loses nothing.

export interface PlannedDoc {
  path: string;
  sha256: string;
  size: number;
  format: string;
}

export interface SourcePlan {
  /** Paths whose content hash is unchanged: chunks and vectors are reused. */
  reuse: string[];
  /** New or changed files to extract, chunk and embed. */
  embed: PlannedDoc[];
  /** Previously indexed paths that are gone, renamed away, or now skipped. */
  remove: string[];
  skipped: number;
}

export function planSource(previous: ReadonlyMap<string, string>, review: Review): SourcePlan {
  const reuse: string[] = [];
  const embed: PlannedDoc[] = [];
  const kept = new Set<string>();
  let skipped = 0;
  for (const row of review.rows) {
    if (row.status === 'skipped') {
      skipped++;
      continue;
    }
    const sha = row.sha256 ?? '';
    if (row.status === 'unchanged' && previous.get(row.path) === sha) {
      reuse.push(row.path);
    } else {
      embed.push({ path: row.path, sha256: sha, size: row.size, format: row.format ?? 'text' });
    }
    kept.add(row.path);
  }
  const remove = [...previous.keys()].filter((p) => !kept.has(p)).sort();
  return { reuse, embed, remove, skipped };
}
