import type { Excerpt } from '../../types.js';
import { sanitizeTerminal } from '../../util/terminal-text.js';
import { clampCursor } from '../line-editor.js';
import type { SearchDialog } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { scrollOffset } from '../table.js';
import { sanitize, strWidth, truncate, truncateLeft, wrapPreformatted } from '../text.js';
import { inputSegs, wrapped } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// Test search: the query and the shaped query retrieval searched, the ranked excerpts ([R1]…) with
// path, lines or pages and scores, and the exact bounded block a model would receive.

export function excerptLocation(e: Pick<Excerpt, 'lineStart' | 'lineEnd' | 'pageStart' | 'pageEnd'>): string {
  if (e.pageStart) return ` p.${e.pageStart}${e.pageEnd && e.pageEnd !== e.pageStart ? `-${e.pageEnd}` : ''}`;
  if (e.lineStart) return `:${e.lineStart}-${e.lineEnd ?? e.lineStart}`;
  return '';
}

export function excerptScores(e: Excerpt): string {
  const ranks = [e.vectorRank ? `vec #${e.vectorRank}` : '', e.lexicalRank ? `lex #${e.lexicalRank}` : '']
    .filter(Boolean)
    .join(' ');
  return `fused ${e.fusedScore.toFixed(4)}${ranks ? ` · ${ranks}` : ''}${e.trimmed ? ' · trimmed' : ''}`;
}

export function searchView(d: SearchDialog, v: ViewContext): Frame {
  const size = v.state.size;
  const w = dialogWidth(size, 120) - 2;
  const height = size.height - 2;
  const inQuery = d.focus === 'query';
  const modeText = ` mode ${d.mode} `;
  const qW = Math.max(8, w - 9 - strWidth(modeText));
  const body: Line[] = [
    {
      segs: [
        seg(inQuery ? '›' : ' ', 'focusMarker'),
        seg('Query: ', 'key'),
        ...inputSegs(d.query, inQuery ? clampCursor(d.query, d.queryCursor) : undefined, qW),
        seg(modeText, 'dimmed'),
      ],
    },
  ];
  if (d.busy) body.push({ segs: [seg(` ${d.busy}`, 'statusBusy')] });
  else if (d.error) body.push(...wrapped(d.error, w - 1, 'statusError', ' '));
  else if (d.result) {
    const n = d.result.excerpts.length;
    body.push({
      segs: [
        seg(
          ` ${n === 0 ? 'No excerpts found' : `${n} excerpt(s)`} for "${d.result.query}" · ${d.result.mode} · ${Math.round(d.result.ms)} ms`,
          n ? 'dimmed' : 'statusWarning',
        ),
      ],
    });
    // One line: the shaped query's lines joined, as a selection pasted into the query would be.
    const shaped = sanitize(d.result.shapedQuery.split('\n').join(' ⏎ '));
    body.push({ segs: [seg(' Searched: ', 'key'), seg(truncate(shaped, Math.max(8, w - 12)), 'dimmed')] });
  } else
    body.push(
      ...wrapped(
        'Type a question or search phrase and press enter. Retrieval only: nothing is sent to a chat model.',
        w - 1,
        'dimmed',
        ' ',
      ),
    );
  const excerpts = d.result?.excerpts ?? [];
  const listH = Math.min(excerpts.length, Math.max(2, Math.floor((height - 6) / 3)));
  const off = scrollOffset(d.selected, excerpts.length, listH);
  for (const [i, e] of excerpts.slice(off, off + listH).entries()) {
    const idx = off + i;
    const sel = idx === d.selected && !inQuery;
    const tail = `${excerptLocation(e)} · ${excerptScores(e)}`;
    body.push({
      ...(sel ? { over: 'selectedLineBg' as const } : {}),
      segs: [
        seg(sel ? '›' : ' ', 'focusMarker'),
        seg(`[${e.marker}] `, 'marker'),
        seg(truncateLeft(e.path, Math.max(10, w - 8 - strWidth(tail))), 'path'),
        seg(tail, 'score'),
      ],
    });
  }
  if (d.result?.block) {
    body.push({
      segs: [
        seg(' ─ block given to the model ', 'sectionHeading'),
        seg('─'.repeat(Math.max(0, w - 28)), 'inactiveBorder'),
      ],
    });
    // Exactly the block the model gets: spaces kept, tabs at their columns, long lines wrapped.
    // Sanitized before it is wrapped, so a control shown as `\x1b` is measured at its shown width.
    const lines = sanitizeTerminal(d.result.block)
      .split('\n')
      .flatMap((l) => wrapPreformatted(l, w - 2));
    const room = Math.max(1, height - 2 - body.length);
    const start = Math.min(d.scroll, Math.max(0, lines.length - room));
    for (const l of lines.slice(start, start + room)) {
      body.push({ segs: [seg(' '), ...markerSegs(l)] });
    }
  }
  const footer = inQuery
    ? keyFooter([
        [v.key('search.run'), 'search'],
        [v.key('search.focusResults'), 'results'],
        [v.key('universal.back'), 'close'],
      ])
    : keyFooter([
        [v.key('search.openInEditor'), 'open in $EDITOR'],
        [v.key('search.editQuery'), 'query'],
        [v.key('search.cycleMode'), 'mode'],
        [v.key('list.pageDown'), 'scroll'],
      ]);
  return dialogBox(size, `Test search · ${d.storeName}`, body, 120, footer, height);
}

/** Block text with its [Rn] markers highlighted. */
function markerSegs(text: string) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\[R\d+\]/g)) {
    if (m.index! > last) out.push(seg(text.slice(last, m.index), 'code'));
    out.push(seg(m[0], 'marker'));
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(seg(text.slice(last), 'code'));
  return out;
}
