import type { PreviewBound, Review, ReviewRow, ReviewSummary } from '../types.js';
import type { WalkEntry } from './walk-entry.js';

// The review table as plain data (pure): rows with new/changed/unchanged/skipped status against the
// previous complete-file hashes, and the summary the user confirms before any indexing work.
//
// `removed` lists previously indexed paths under this root that are not accepted now: deleted, or
// now skipped (say, grown past the size limit), since their chunks must go either way. When a
// preview bound stopped the walk, only paths the walk had already passed can be judged; the rest
// are unknown and not reported as removed.

export interface ReviewInput {
  root: string;
  entries: readonly WalkEntry[];
  previous?: ReadonlyMap<string, string>;
  stop?: { bound: PreviewBound; message: string } | null;
  /** Root-relative name components where the walk stopped; null when it completed. */
  stoppedAt?: readonly Buffer[] | null;
  /** Folder sources: identity of each directory entered. */
  dirIds?: Record<string, string>;
}

export function buildReview(input: ReviewInput): Review {
  const previous = input.previous ?? new Map<string, string>();
  const rows: ReviewRow[] = [];
  const accepted = new Set<string>();
  const summary: ReviewSummary = {
    visited: 0,
    toIndex: { new: 0, changed: 0 },
    unchanged: 0,
    removed: 0,
    skipped: {},
    formats: {},
    acceptedBytes: 0,
    extractedChars: 0,
  };
  for (const e of input.entries) {
    summary.visited++;
    if (!e.accepted) {
      const reason = e.reason ?? 'read-error';
      rows.push({
        path: e.path,
        relPath: e.relPath,
        format: e.format,
        size: e.size,
        status: 'skipped',
        reason,
        explanation: e.explanation ?? '',
      });
      summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
      continue;
    }
    accepted.add(e.path);
    const before = previous.get(e.path);
    const status = before === undefined ? 'new' : before === e.sha256 ? 'unchanged' : 'changed';
    const row: ReviewRow = { path: e.path, relPath: e.relPath, format: e.format, size: e.size, status };
    if (e.sha256 !== undefined) row.sha256 = e.sha256;
    if (e.mtimeMs !== undefined) row.mtimeMs = e.mtimeMs;
    if (e.chars !== undefined) row.chars = e.chars;
    if (e.fileId !== undefined) row.fileId = e.fileId;
    rows.push(row);
    if (status === 'unchanged') summary.unchanged++;
    else summary.toIndex[status]++;
    const key = e.format ?? 'unknown';
    const f = summary.formats[key] ?? { count: 0, bytes: 0 };
    summary.formats[key] = { count: f.count + 1, bytes: f.bytes + e.size };
    summary.acceptedBytes += e.size;
    summary.extractedChars += e.chars ?? 0;
  }
  const removed = removedPaths(input.root, previous, accepted, input.stoppedAt ?? null);
  summary.removed = removed.length;
  const review: Review = { root: input.root, rows, removed, summary };
  if (input.stop) review.stoppedBy = { ...input.stop };
  if (input.dirIds) review.dirIds = input.dirIds;
  return review;
}

function removedPaths(
  root: string,
  previous: ReadonlyMap<string, string>,
  accepted: ReadonlySet<string>,
  stoppedAt: readonly Buffer[] | null,
): string[] {
  const out: string[] = [];
  const prefix = root.endsWith('/') ? root : `${root}/`;
  for (const path of previous.keys()) {
    if (accepted.has(path)) continue;
    if (path !== root && !path.startsWith(prefix)) continue; // another source's file
    if (stoppedAt) {
      const parts =
        path === root
          ? []
          : path
              .slice(prefix.length)
              .split('/')
              .map((p) => Buffer.from(p));
      if (compareWalkOrder(parts, stoppedAt) >= 0) continue; // not reached before the bound
    }
    out.push(path);
  }
  return out.sort();
}

/**
 * Order in which the walk visits two root-relative paths (name components as raw bytes): a
 * depth-first walk over byte-sorted directory listings visits paths in component-wise byte order.
 */
export function compareWalkOrder(a: readonly Buffer[], b: readonly Buffer[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = Buffer.compare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
