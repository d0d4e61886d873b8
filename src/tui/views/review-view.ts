import { formatGroup } from '../../scan/formats.js';
import { isProblem } from '../../scan/skip-kinds.js';
import { formatBytes } from '../../scan/units.js';
import type { Review, ReviewRow } from '../../types.js';
import type { Role } from '../roles.js';
import type { ReviewDialog } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { renderTable, type TableRow } from '../table.js';
import { hanging, wrapped } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// The review (preview) table: path, format, size, status and the explanation of skipped rows; the
// summary of new / changed / unchanged / removed / skipped and the recognised formats by group;
// an optional filter to the skipped rows. Nothing is indexed until the user confirms.

export function reviewRows(r: Review, skippedOnly: boolean): ReviewRow[] {
  return skippedOnly ? r.rows.filter((x) => x.status === 'skipped') : r.rows;
}

/** The review's summary lines; skip reasons are split into skipped by design and problems. */
export function summaryText(r: Review): {
  counts: string;
  skipped: string;
  problems: string;
  formats: string;
} {
  const s = r.summary;
  const skippedTotal = Object.values(s.skipped).reduce((a, b) => a + (b ?? 0), 0);
  const n = (x: number) => x.toLocaleString('en-US');
  const counts = `new ${n(s.toIndex.new)} · changed ${n(s.toIndex.changed)} · unchanged ${n(s.unchanged)} · removed ${n(s.removed)} · skipped ${n(skippedTotal)}`;
  const sorted = Object.entries(s.skipped).sort(
    (a, b) => (b[1] ?? 0) - (a[1] ?? 0) || a[0].localeCompare(b[0]),
  );
  const list = (problem: boolean) =>
    sorted
      .filter(([k]) => isProblem(k) === problem)
      .map(([k, c]) => `${k} ${n(c ?? 0)}`)
      .join(', ');
  const groups = new Map<string, { count: number; bytes: number; ids: string[] }>();
  for (const [id, f] of Object.entries(s.formats)) {
    const g = groups.get(formatGroup(id)) ?? { count: 0, bytes: 0, ids: [] };
    g.count += f.count;
    g.bytes += f.bytes;
    g.ids.push(id);
    groups.set(formatGroup(id), g);
  }
  const formats = [...groups]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([g, x]) => `${g} ${n(x.count)} (${x.ids.sort().join(', ')})`)
    .join(' · ');
  return { counts, skipped: list(false), problems: list(true), formats };
}

const statusRoleOf = (st: ReviewRow['status']): Role =>
  st === 'new' ? 'statusOk' : st === 'changed' ? 'statusInfo' : st === 'skipped' ? 'statusWarning' : 'dimmed';

export function reviewView(d: ReviewDialog, v: ViewContext): Frame {
  const size = v.state.size;
  const w = dialogWidth(size, 120) - 2;
  const height = size.height - 2;
  const cur = d.reviews[d.index]!;
  const r = cur.review;
  const text = summaryText(r);
  const head: Line[] = [
    ...hanging(' ', text.counts, w, undefined, 'sectionHeading'),
    ...(text.skipped ? hanging(' skipped: ', text.skipped, w, 'dimmed', 'dimmed') : []),
    ...(text.problems ? hanging(' problems: ', text.problems, w, 'statusWarning', 'statusWarning') : []),
    ...(text.formats ? hanging(' formats: ', text.formats, w, 'dimmed') : []),
    ...(d.skippedOnly ? [{ segs: [seg(' [showing skipped rows only]', 'statusWarning')] }] : []),
    ...(r.stoppedBy
      ? wrapped(
          `Preview incomplete: ${r.stoppedBy.message}. Confirming marks this source ERROR and keeps its previous chunks.`,
          w - 1,
          'statusError',
          ' ',
        )
      : []),
  ];
  const rows = reviewRows(r, d.skippedOnly);
  const removed: TableRow[] = d.skippedOnly
    ? []
    : r.removed.map((p) => ({
        cells: [p, '-', '-', { text: 'removed', role: 'statusWarning' }, 'gone since the last index'],
      }));
  const tableRows: TableRow[] = [
    ...rows.map((x) => ({
      cells: [
        { text: x.relPath || x.path, role: 'path' as const },
        x.format ?? '-',
        formatBytes(x.size),
        { text: x.status, role: statusRoleOf(x.status) },
        { text: x.explanation ?? x.reason ?? '', role: 'dimmed' as const },
      ],
    })),
    ...removed,
  ];
  const sel = Math.min(d.selected, Math.max(0, tableRows.length - 1));
  const selRow = d.skippedOnly ? rows[sel] : sel < rows.length ? rows[sel] : undefined;
  // The highlighted row's full explanation, which a narrow column may cut.
  const detail: Line[] = selRow?.reason
    ? wrapped(
        `${selRow.relPath || selRow.path}: ${selRow.reason}${selRow.explanation ? ` — ${selRow.explanation}` : ''}`,
        w - 1,
        'statusWarning',
        ' ',
      ).slice(0, 2)
    : [{ segs: [seg(` ${tableRows.length.toLocaleString('en-US')} row(s)`, 'dimmed')] }];
  const tableH = Math.max(3, height - 2 - head.length - detail.length);
  const table = renderTable({
    columns: [
      { header: 'PATH', flex: 2, min: 12, cut: 'start' },
      { header: 'FORMAT', width: 9 },
      { header: 'SIZE', width: 8, align: 'right' },
      { header: 'STATUS', width: 9 },
      { header: 'EXPLANATION', flex: 3, min: 10 },
    ],
    rows: tableRows,
    width: w,
    height: tableH,
    selected: sel,
    focused: true,
    empty: d.skippedOnly ? 'No skipped rows.' : 'Nothing found in this source.',
  });
  while (table.length < tableH) table.push({ segs: [] });
  const title = `Review · ${cur.label} (${cur.kind})${d.reviews.length > 1 ? ` · source ${d.index + 1}/${d.reviews.length}` : ''}`;
  const footer = keyFooter([
    [v.key('review.confirm'), 'confirm'],
    [v.key('review.cancel'), 'cancel'],
    [v.key('review.filterSkipped'), d.skippedOnly ? 'all rows' : 'skipped only'],
    ...(d.reviews.length > 1 ? ([[v.key('review.nextSource'), 'next source']] as [string, string][]) : []),
  ]);
  return dialogBox(size, title, [...head, ...table, ...detail], 120, footer, height);
}
