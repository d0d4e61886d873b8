import { type RunWithStaleness, runOrigin, type StaleExcerpt } from '../../ai/runs.js';
import { box, type Frame, type Line, seg } from '../styled.js';
import { renderTable, type TableRow } from '../table.js';
import { formatTime, strWidth, truncate } from '../text.js';
import { wrapped } from './common.js';
import type { ViewContext } from './view-context.js';

// Runs: recent AI actions with retrieval (newest first); the selected run's excerpts with their
// markers, which ones the answer cited, and which citations are stale (the document changed or is
// gone since the run).

export function runsTab(v: ViewContext, width: number, height: number): Frame {
  const runs = v.state.runs;
  const focused = v.state.dialogs.length === 0;
  const listHeight = Math.max(5, Math.min(runs.records.length + 3, Math.floor(height * 0.45)));
  const wide = width >= 100;
  const rows: TableRow[] = runs.records.map((r) => ({
    cells: [
      wide ? formatTime(r.time) : formatTime(r.time).slice(5),
      r.action,
      r.via ? runOrigin(r) : r.profile,
      r.stores.map((s) => s.name).join(',') || '-',
      String(r.excerpts.length),
      r.cited.join(' ') || '-',
      { text: r.status, role: r.status === 'ok' ? 'statusOk' : 'statusError' },
      r.staleCited.length > 0 ? { text: `STALE ${r.staleCited.join(' ')}`, role: 'stale' } : { text: '' },
    ],
  }));
  const list = box({
    title: `Runs (${runs.records.length})`,
    width,
    height: listHeight,
    border: focused ? 'activeBorder' : 'inactiveBorder',
    titleRole: 'paneTitle',
    footer: runs.damaged > 0 ? `${runs.damaged} damaged line(s) skipped` : undefined,
    body: renderTable({
      columns: [
        { header: 'TIME', width: wide ? 16 : 11 },
        { header: 'ACTION', width: 8 },
        { header: 'PROFILE', flex: 1, min: 6 },
        { header: 'STORES', flex: 1, min: 6 },
        { header: 'EXC', width: 3, align: 'right' },
        { header: 'CITED', flex: 1, min: 5 },
        { header: 'STATUS', width: 8 },
        { header: 'STALE', width: 10 },
      ],
      rows,
      width: width - 2,
      height: listHeight - 2,
      selected: runs.selected,
      focused,
      empty:
        runs.error ?? (runs.loaded ? 'No AI runs recorded yet (kortty-rag ask writes them).' : 'Loading…'),
    }),
  });
  const run = runs.records[runs.selected];
  const detail = box({
    title: run ? `Run ${run.id}` : 'Run',
    width,
    height: height - listHeight,
    border: 'inactiveBorder',
    titleRole: 'paneTitle',
    body: run ? runDetail(run, width - 2) : [],
  });
  return [...list, ...detail];
}

export function runDetail(run: RunWithStaleness, width: number): Line[] {
  const out: Line[] = [
    { segs: [seg(' query: ', 'dimmed'), seg(truncate(run.query.replace(/\s+/g, ' '), width - 9))] },
    {
      segs: [
        seg(
          ` ${run.via ? runOrigin(run) : run.profile}${run.model ? ` · ${run.model}` : ''} · ${run.status}`,
          run.status === 'ok' ? 'dimmed' : 'statusError',
        ),
        seg(run.reason ? ` · ${run.reason.code}: ${run.reason.message}` : '', 'statusError'),
      ],
    },
  ];
  if (run.staleCited.length > 0)
    out.push(
      ...wrapped(
        `stale citations: ${run.staleCited.map((m) => `[${m}]`).join(' ')} — the cited document changed or was removed since this run`,
        width,
        'stale',
        ' ',
      ),
    );
  for (const e of run.excerpts) out.push(excerptLine(e, run.cited.includes(e.marker), width));
  const unknown = run.cited.filter((m) => !run.excerpts.some((e) => e.marker === m));
  if (unknown.length > 0)
    out.push({
      segs: [seg(` cited but not retrieved: ${unknown.map((m) => `[${m}]`).join(' ')}`, 'statusError')],
    });
  return out;
}

function excerptLine(e: StaleExcerpt, cited: boolean, width: number): Line {
  const loc = e.pageStart
    ? ` p.${e.pageStart}${e.pageEnd && e.pageEnd !== e.pageStart ? `-${e.pageEnd}` : ''}`
    : e.lineStart
      ? `:${e.lineStart}-${e.lineEnd ?? e.lineStart}`
      : '';
  const flag = e.missing ? ' MISSING' : e.stale ? ' STALE' : '';
  const tail = `${loc} · ${e.fusedScore.toFixed(4)}${cited ? ' · cited' : ''}`;
  const pathWidth = Math.max(8, width - 8 - strWidth(tail) - strWidth(flag));
  return {
    segs: [
      seg(` [${e.marker}] `, 'marker'),
      seg(truncate(e.path, pathWidth), 'path'),
      seg(tail, cited ? 'statusInfo' : 'dimmed'),
      seg(flag, 'stale'),
    ],
  };
}
