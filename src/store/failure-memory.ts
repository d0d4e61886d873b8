import type { Review, ReviewRow, SkipReason } from '../types.js';
import type { FailedDoc, SourceProblem } from './store-types.js';

// Remembered extraction failures (pure). A file skipped because extracting it failed (a PDF that
// timed out, a parser that hit its heap cap, a malformed document) is not handed to the extractor
// again while its complete-file hash (computed by every scan anyway) is unchanged: it shows in the
// review as skipped, "unchanged since it failed on DATE". Update now with --retry-failed ignores
// the memory. Records live in the source's `failed` map in store.json (see src/index/STORAGE.md).

/**
 * Extraction outcomes decided by the file's content (and the fixed limits): the same bytes fail the
 * same way again. Anything else is tried again next time: a file that changed or vanished under
 * the scan, a read error (read-error), a parser that could not start (no skip reason), and any
 * reason not listed here, so a transient failure is never taken for the file's own.
 */
const REMEMBERED: ReadonlySet<SkipReason> = new Set<SkipReason>([
  'pdf-timeout', // the parser's wall-clock limit or its heap cap
  'pdf-invalid',
  'pdf-encrypted',
  'pdf-no-text',
  'docx-invalid',
  'docx-too-large', // its uncompressed size is over the cap
  'html-invalid', // nested too deeply, or the converter gave up
  'extract-limit', // the capped child's wall-clock or memory limit
  'not-utf8',
  'too-large',
]);

export function isRemembered(reason: string | undefined): reason is SkipReason {
  return reason !== undefined && REMEMBERED.has(reason as SkipReason);
}

/** "2025-05-01 14:03 UTC" from an ISO timestamp. */
export function failureDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function rememberedExplanation(f: FailedDoc): string {
  return `unchanged since it failed on ${failureDate(f.failedAt)}${f.explanation ? ` (${f.explanation})` : ''}`;
}

/**
 * A record a scan may act on. store.json is written by us, but a hand-edited or damaged record (or
 * one whose reason is no longer remembered) must not hide a file: it is ignored, the file is
 * extracted again, and the sync writes the record anew or drops it.
 */
function usable(f: FailedDoc | undefined): f is FailedDoc & { reason: SkipReason } {
  return (
    typeof f === 'object' &&
    f !== null &&
    typeof f.sha256 === 'string' &&
    typeof f.failedAt === 'string' &&
    /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(f.failedAt) &&
    isRemembered(f.reason) &&
    (f.explanation === undefined || typeof f.explanation === 'string')
  );
}

/**
 * The review with every new or changed row whose file failed before with the same hash turned into
 * a skipped row (summary adjusted), and the records that applied.
 */
export function applyFailureMemory(
  review: Review,
  failed: Readonly<Record<string, FailedDoc>> | undefined,
): { review: Review; remembered: Map<string, FailedDoc> } {
  const remembered = new Map<string, FailedDoc>();
  if (!failed || Object.keys(failed).length === 0) return { review, remembered };
  const toIndex = { ...review.summary.toIndex };
  const skipped = { ...review.summary.skipped };
  const rows = review.rows.map((row): ReviewRow => {
    const f = failed[row.path];
    if (!usable(f) || (row.status !== 'new' && row.status !== 'changed') || row.sha256 !== f.sha256)
      return row;
    remembered.set(row.path, f);
    toIndex[row.status]--;
    const reason = f.reason;
    skipped[reason] = (skipped[reason] ?? 0) + 1;
    return { ...row, status: 'skipped', reason, explanation: rememberedExplanation(f) };
  });
  if (remembered.size === 0) return { review, remembered };
  return { review: { ...review, rows, summary: { ...review.summary, toIndex, skipped } }, remembered };
}

/**
 * The source's failure records after a sync: the remembered ones still skipped, plus this sync's
 * new extraction failures (with their hash). Everything else is forgotten: a file that was indexed,
 * changed, or is gone.
 */
export function nextFailures(
  remembered: ReadonlyMap<string, FailedDoc>,
  problems: readonly (SourceProblem & { sha256?: string })[],
  now: string,
): Record<string, FailedDoc> | undefined {
  const out: Record<string, FailedDoc> = {};
  for (const [path, f] of remembered) out[path] = f;
  for (const p of problems) {
    if (!p.sha256 || !isRemembered(p.reason)) continue;
    out[p.path] = {
      sha256: p.sha256,
      reason: p.reason,
      ...(p.explanation ? { explanation: p.explanation } : {}),
      failedAt: now,
    };
  }
  const paths = Object.keys(out).sort();
  return paths.length === 0 ? undefined : Object.fromEntries(paths.map((p) => [p, out[p] as FailedDoc]));
}
