import { formatBytes } from '../../scan/units.js';
import type { SourceRecord } from '../../store/store-types.js';
import { type AppState, selectedStore } from '../state.js';
import { box, type Frame, type Line, seg } from '../styled.js';
import { renderTable, type TableRow } from '../table.js';
import { formatTime, truncateLeft } from '../text.js';
import { statusRole } from './common.js';
import type { ViewContext } from './view-context.js';

// The sources pane of the selected store: path, type, sync mode, status, files/chunks, problems,
// last successful index; pending sources of a running add job; details of the selected source.

function liveStatus(s: AppState, src: SourceRecord): string {
  const j = s.job;
  if (j && j.storeId === selectedStore(s)?.id && j.sourceIds.includes(src.id))
    return j.phase === 'indexing' ? 'INDEXING' : 'SCANNING';
  return src.status;
}

const shortTime = (iso: string | undefined, wide: boolean) =>
  wide ? formatTime(iso) : formatTime(iso).slice(5);

export function sourcesPane(v: ViewContext, width: number, height: number): Frame {
  const s = v.state;
  const store = selectedStore(s);
  const focused = s.focus === 'sources' && s.dialogs.length === 0;
  const wide = width >= 100;
  const rows: TableRow[] = (store?.sources ?? []).map((src) => {
    const status = liveStatus(s, src);
    return {
      role: src.enabled ? undefined : 'dimmed',
      cells: [
        { text: src.path, role: src.enabled ? 'path' : 'dimmed' },
        src.kind,
        src.sync === 'automatic' ? 'auto' : 'manual',
        { text: status, role: statusRole(status) },
        `${src.files.toLocaleString('en-US')}/${src.chunks.toLocaleString('en-US')}`,
        { text: String(src.problems), role: src.problems > 0 ? 'statusWarning' : undefined },
        shortTime(src.lastIndexedAt, wide),
      ],
    };
  });
  if (s.job && store && s.job.storeId === store.id) {
    for (const a of s.job.adding) {
      rows.push({
        role: 'statusBusy',
        cells: [
          a.path,
          a.kind,
          'manual',
          s.job.phase === 'indexing' ? 'INDEXING' : 'SCANNING',
          '-',
          '-',
          'adding',
        ],
      });
    }
  }
  const detail = store ? detailLines(s, width - 2) : [];
  const tableHeight = Math.max(2, height - 2 - detail.length);
  const body: Line[] = renderTable({
    columns: [
      { header: 'PATH', flex: 1, min: 10, cut: 'start' },
      { header: 'TYPE', width: 6 },
      { header: 'SYNC', width: 6 },
      { header: 'STATUS', width: 8 },
      { header: 'FILES/CHUNKS', width: 12, align: 'right' },
      { header: 'PROB', width: 4, align: 'right' },
      { header: 'LAST INDEXED', width: wide ? 16 : 12 },
    ],
    rows,
    width: width - 2,
    height: tableHeight,
    selected: s.sourceSel,
    focused,
    empty: store
      ? `No sources. Press ${v.key('sources.addFolder')} to add a folder or ${v.key('sources.addFiles')} to add files.`
      : 'Select or create a store.',
  });
  while (body.length < tableHeight) body.push({ segs: [] });
  body.push(...detail);
  return box({
    title: store ? `Sources · ${store.name}` : 'Sources',
    width,
    height,
    body,
    border: focused ? 'activeBorder' : 'inactiveBorder',
    titleRole: 'paneTitle',
    footer:
      store && store.sources.length > 0
        ? `${Math.min(s.sourceSel + 1, store.sources.length)} of ${store.sources.length}`
        : undefined,
  });
}

/** Two lines about the selected source: options, then its state or first problem. */
function detailLines(s: AppState, width: number): Line[] {
  const src = selectedStore(s)?.sources[s.sourceSel];
  if (!src) return [];
  const o = src.options;
  const opts = [
    `≤${formatBytes(o.maxFileBytes)} per file`,
    `.gitignore ${o.gitignore ? 'on' : 'off'}`,
    o.include.length ? `include ${o.include.join(',')}` : '',
    o.exclude.length ? `exclude ${o.exclude.join(',')}` : '',
    src.sync === 'automatic' ? 'automatic sync' : 'manual sync',
  ].filter(Boolean);
  const out: Line[] = [{ segs: [seg(' options: ', 'dimmed'), seg(opts.join(' · '), 'dimmed')] }];
  if (src.lastChunksEmbedded !== undefined)
    out[0]!.segs.push(
      seg(
        ` · last update: ${src.lastChunksEmbedded} chunks embedded, ${src.lastChunksReused ?? 0} reused`,
        'dimmed',
      ),
    );
  if (!src.enabled)
    out.push({ segs: [seg(' disabled: kept and indexed, excluded from retrieval', 'dimmed')] });
  else if (src.statusReason)
    out.push({ segs: [seg(` ${src.status}: ${src.statusReason}`, statusRole(src.status))] });
  else if (src.limitedMonitoring)
    out.push({
      segs: [seg(` limited monitoring: ${src.limitedMonitoring} — use Update now`, 'statusWarning')],
    });
  else if (src.problemList.length > 0) {
    const p = src.problemList[0]!;
    const more = src.problems > 1 ? ` (+${src.problems - 1} more)` : '';
    const text = `${p.reason}: ${p.explanation ?? ''}${more}`;
    out.push({
      segs: [
        seg(' problem: ', 'statusWarning'),
        seg(truncateLeft(p.path, Math.max(10, Math.floor(width / 3))), 'path'),
        seg(` ${text}`, 'statusWarning'),
      ],
    });
  } else if (src.skipped > 0) {
    const by = new Map<string, number>();
    for (const x of src.skippedList) by.set(x.reason, (by.get(x.reason) ?? 0) + 1);
    const listed = [...by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const rest = src.skipped - src.skippedList.length;
    const why = [...listed.map(([r, n]) => `${r} ${n}`), ...(rest > 0 ? [`${rest} more`] : [])].join(', ');
    out.push({ segs: [seg(` ${src.skipped} skipped by design: ${why}`, 'dimmed')] });
  } else out.push({ segs: [seg(' no problems', 'dimmed')] });
  return out;
}
