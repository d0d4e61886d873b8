import type { Review, ReviewRow, ScannedFile } from '../types.js';

// Pure: what a sync must do for one source, given the snapshot's documents for that source and
// a fresh review. The snapshot (not store.json) is the baseline, so a crash between activation
// and the store.json update loses nothing.

export interface PlannedDoc {
  path: string;
  sha256: string;
  size: number;
  format: string;
  /** The scan's record of the file, so extraction opens exactly the file that was scanned. */
  scanned?: ScannedFile;
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
      const doc: PlannedDoc = { path: row.path, sha256: sha, size: row.size, format: row.format ?? 'text' };
      const scanned = scannedFile(review, row);
      if (scanned) doc.scanned = scanned;
      embed.push(doc);
    }
    kept.add(row.path);
  }
  const remove = [...previous.keys()].filter((p) => !kept.has(p)).sort();
  return { reuse, embed, remove, skipped };
}

/** Where the scan found an accepted row: the names below the root and the directories entered. */
export function scannedFile(review: Review, row: ReviewRow): ScannedFile | undefined {
  if (row.fileId === undefined || row.sha256 === undefined) return undefined;
  const base = { root: review.root, fileId: row.fileId, size: row.size, sha256: row.sha256 };
  if (!review.dirIds) return { ...base, names: [], dirIds: [] }; // a file source: the root is the file
  const names = row.relPath.split('/');
  const dirIds: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const id = review.dirIds[names.slice(0, i).join('/')];
    if (id === undefined) return undefined;
    dirIds.push(id);
  }
  return { ...base, names, dirIds };
}
