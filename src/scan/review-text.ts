import type { Review, ReviewRow } from '../types.js';
import { pad, width } from '../util/display-width.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { formatGroup } from './formats.js';
import { formatBytes, formatCount } from './units.js';

// The review table as plain text lines (pure): one row per visited entry, then the summary.
// Paths and explanations are already display-safe (see display-name.ts).

export function reviewToLines(review: Review, kind: 'file' | 'folder'): string[] {
  const lines = [`== ${sanitizeLine(review.root)} (${kind})`];
  // Cells are sanitized before they are measured: a .gitignore pattern or a name may hold anything.
  const rows = review.rows.map((r) => [
    r.status,
    formatBytes(r.size),
    r.format ?? '-',
    sanitizeLine(r.relPath),
    sanitizeLine(note(r)),
  ]);
  const head = ['STATUS', 'SIZE', 'FORMAT', 'PATH', 'NOTE'];
  const colWidth = (i: number) => Math.max(width(head[i]!), ...rows.map((r) => width(r[i]!)));
  const w = [colWidth(0), colWidth(1), Math.min(colWidth(2), 16), Math.min(colWidth(3), 60)];
  const line = (c: string[]) =>
    `${pad(c[0]!, w[0]!)}  ${pad(c[1]!, w[1]!, 'right')}  ${pad(c[2]!, w[2]!)}  ${pad(c[3]!, w[3]!)}  ${c[4]}`.trimEnd();
  lines.push(line(head), ...rows.map(line));
  if (review.rows.length === 0) lines.push('(no entries)');
  for (const path of review.removed) lines.push(`removed   ${sanitizeLine(path)}`);
  lines.push(...summaryLines(review));
  return lines;
}

function note(r: ReviewRow): string {
  return r.reason ? `${r.reason}: ${r.explanation ?? ''}` : '';
}

export function summaryLines(review: Review): string[] {
  const s = review.summary;
  const skippedTotal = Object.values(s.skipped).reduce((a, b) => a + (b ?? 0), 0);
  const out = [
    `visited ${formatCount(s.visited)} · to index: ${formatCount(s.toIndex.new)} new, ${formatCount(s.toIndex.changed)} changed` +
      ` · unchanged ${formatCount(s.unchanged)} · removed ${formatCount(s.removed)} · skipped ${formatCount(skippedTotal)}` +
      ` · accepted ${formatBytes(s.acceptedBytes)}`,
  ];
  const reasons = Object.entries(s.skipped).sort(
    (a, b) => (b[1] ?? 0) - (a[1] ?? 0) || a[0].localeCompare(b[0]),
  );
  if (reasons.length > 0) out.push(`skipped by reason: ${reasons.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const groups = new Map<string, string[]>();
  for (const [id, f] of Object.entries(s.formats).sort((a, b) => a[0].localeCompare(b[0]))) {
    const g = formatGroup(id);
    groups.set(g, [...(groups.get(g) ?? []), `${id} ${formatCount(f.count)} (${formatBytes(f.bytes)})`]);
  }
  if (groups.size > 0) {
    const parts = [...groups]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([g, list]) => `${g}: ${list.join(', ')}`);
    out.push(`accepted formats: ${parts.join('; ')}`);
  }
  if (review.stoppedBy)
    out.push(`PREVIEW INCOMPLETE (${review.stoppedBy.bound} bound): ${review.stoppedBy.message}`);
  return out;
}
