import { formatBytes } from '../../app/present.js';
import type { AssistantDialog } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { fitText, strWidth } from '../text.js';
import { elapsed, progressBar, wrapped } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// The local-model setup assistant: the embedding catalog with sizes and whether each model fits
// this computer's memory, the preselected default, the lexical starter labelled for what it is,
// "use a local GGUF file", and the running download with its progress.

export const LOCAL_FILE_ROW = 'Use a local GGUF file…';

/** The starter's label leads with what it is: it matches words, not meaning. */
export function rowLabel(r: AssistantDialog['rows'][number]): string {
  return r.kind === 'generated' ? 'Lexical starter: matches words, not meaning' : r.label;
}

const firstSentence = (t: string) => (/^.*?\.(\s|$)/.exec(t)?.[0] ?? t).trim();

export function assistantView(d: AssistantDialog, v: ViewContext): Frame {
  const size = v.state.size;
  const w = dialogWidth(size, 84) - 2;
  const sizeW = 9;
  const dimW = 4;
  const fitW = 12;
  const nameW = Math.max(16, w - 3 - sizeW - dimW - fitW - 3);
  const body: Line[] = [
    {
      segs: [
        seg(' Role: ', 'dimmed'),
        seg('[x] Embedding', 'sectionHeading'),
        seg(' (preselected; chat models are set up in AI profiles)', 'dimmed'),
      ],
    },
    { segs: [seg(` This computer has ${formatBytes(d.memBytes)} of memory.`, 'dimmed')] },
    {
      segs: [
        seg('   '),
        seg(fitText('MODEL', nameW), 'header'),
        seg(' '),
        seg(fitText('SIZE', sizeW, 'right'), 'header'),
        seg(' '),
        seg(fitText('DIM', dimW, 'right'), 'header'),
        seg(' '),
        seg(fitText('FITS', fitW), 'header'),
      ],
    },
  ];
  d.rows.forEach((r, i) => {
    const sel = i === d.selected;
    const fits = r.fits ? (r.installed ? 'installed' : 'yes') : `needs ${formatBytes(r.minMemoryBytes)}`;
    body.push({
      ...(sel ? { over: 'selectedLineBg' as const } : {}),
      segs: [
        seg(sel ? ' › ' : '   ', 'focusMarker'),
        seg(
          fitText(rowLabel(r), nameW),
          r.fits ? (r.kind === 'generated' ? 'statusWarning' : undefined) : 'disabled',
        ),
        seg(' '),
        seg(fitText(`${r.sizeExact ? '' : '~'}${formatBytes(r.sizeBytes)}`, sizeW, 'right'), 'dimmed'),
        seg(' '),
        seg(fitText(String(r.dimension), dimW, 'right'), 'dimmed'),
        seg(' '),
        seg(fitText(fits, fitW), r.fits ? (r.installed ? 'statusOk' : undefined) : 'disabled'),
      ],
    });
  });
  const localSel = d.selected === d.rows.length;
  body.push({
    ...(localSel ? { over: 'selectedLineBg' as const } : {}),
    segs: [seg(localSel ? ' › ' : '   ', 'focusMarker'), seg(LOCAL_FILE_ROW)],
  });
  body.push({ segs: [] });
  const row = d.rows[d.selected];
  if (row) {
    if (row.kind === 'generated')
      body.push(
        ...wrapped(
          'Offline lexical starter: matches words, not meaning. Fine to start with; install a catalog model for search by meaning.',
          w - 1,
          'statusWarning',
          ' ',
        ),
      );
    body.push(...wrapped(`${row.languages}. ${firstSentence(row.note)}`, w - 1, 'dimmed', ' ').slice(0, 2));
  } else
    body.push(
      ...wrapped(
        'Register a GGUF embedding model you already have; it is used where it is and hash-checked before each use.',
        w - 1,
        'dimmed',
        ' ',
      ),
    );
  if (d.task) {
    const p = d.task.progress;
    const label = `${d.task.cancelling ? 'Cancelling… ' : ''}${d.task.label} · ${elapsed(v.now - d.task.startedAt)}`;
    body.push({ segs: [] }, { segs: [seg(` ${label}`, 'statusBusy')] });
    if (p && p.total > 0) {
      const text = ` ${formatBytes(p.bytes)} / ${formatBytes(p.total)} ${p.phase === 'verify' ? 'verified' : ''} ${p.percent.toFixed(1)}% `;
      body.push({
        segs: [seg(' '), ...progressBar(p.percent, Math.max(5, w - 2 - strWidth(text))), seg(text)],
      });
    }
    body.push({ segs: [seg(` ${v.key('job.cancel')} cancel`, 'key')] });
  }
  if (d.error) body.push({ segs: [] }, ...wrapped(d.error, w - 1, 'statusError', ' '));
  const footer = keyFooter([
    [v.key('assistant.install'), 'install'],
    [v.key('assistant.localFile'), 'local file'],
    [v.key('universal.back'), 'back'],
  ]);
  return dialogBox(size, 'Local model setup', [{ segs: [] }, ...body], 84, footer);
}
