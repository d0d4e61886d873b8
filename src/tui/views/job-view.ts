import type { JobProgress } from '../../store/store-types.js';
import type { JobState, SummaryDialog } from '../state.js';
import { type Frame, type Line, type Seg, seg } from '../styled.js';
import { fitText, strWidth, truncateLeft } from '../text.js';
import { elapsed, progressBar, statusRole } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// Jobs as the user sees them: the cancellable "Checking…" dialog, the indexing status line and
// the completion summary.

export const CHECKING = 'Checking selected files and folders…';

const STATE_WORDS: Record<JobProgress['state'], string> = {
  scanning: 'checking files',
  extracting: 'extracting text',
  embedding: 'embedding chunks',
  writing: 'writing snapshot',
  activating: 'activating',
  done: 'done',
};

export function jobTitle(j: JobState): string {
  const verb = j.op === 'add' ? 'Adding to' : j.op === 'remove' ? 'Removing from' : 'Updating';
  return `${verb} "${j.storeName}"`;
}

export function scanView(j: JobState, v: ViewContext, paths: string[]): Frame {
  const w = dialogWidth(v.state.size, 72) - 2;
  const body: Line[] = [
    { segs: [] },
    { segs: [seg(` ${j.cancelling ? 'Cancelling…' : CHECKING}`, 'statusBusy')] },
    { segs: [] },
    ...paths.slice(0, 5).map((p) => ({ segs: [seg('   '), seg(truncateLeft(p, w - 4), 'path')] })),
    ...(paths.length > 5 ? [{ segs: [seg(`   … and ${paths.length - 5} more`, 'dimmed')] }] : []),
    { segs: [] },
    {
      segs: [
        seg(` ${elapsed(v.now - j.startedAt)} · nothing is indexed before you confirm the review`, 'dimmed'),
      ],
    },
  ];
  return dialogBox(
    v.state.size,
    jobTitle(j),
    body,
    72,
    keyFooter([[v.key('job.cancel'), 'cancel the check']]),
  );
}

const SHORT_STATE: Record<JobProgress['state'], string> = {
  scanning: 'checking',
  extracting: 'extracting',
  embedding: 'embedding',
  writing: 'writing',
  activating: 'activating',
  done: 'done',
};

/** The indexing status line: source state, documents, chunks, problems, percent (shortened to fit). */
export function jobStatusSegs(j: JobState, width: number, cancelKey: string): Seg[] {
  const p = j.progress;
  const indexing = j.phase === 'indexing' && !j.cancelling;
  const state = (short: boolean) =>
    j.cancelling
      ? 'cancelling'
      : j.phase === 'review'
        ? 'waiting for your review'
        : j.phase === 'checking'
          ? 'checking files'
          : p
            ? (short ? SHORT_STATE : STATE_WORDS)[p.state]
            : 'starting';
  const canCancel = !p || (p.state !== 'activating' && p.state !== 'done');
  const tail = j.cancelling ? '' : canCancel ? ` ${cancelKey} cancel` : ' activating: completes';
  const variants = [
    ` ${jobTitle(j)} · ${state(false)}${p && indexing ? ` · documents ${p.documents}/${p.documentsTotal} · chunks ${p.chunks} · problems ${p.problems} · ${p.percent}%` : ''} `,
    ` "${j.storeName}" · ${state(true)}${p && indexing ? ` · docs ${p.documents}/${p.documentsTotal} · chunks ${p.chunks} · problems ${p.problems} · ${p.percent}%` : ''} `,
    ` ${state(true)}${p && indexing ? ` · ${p.documents}/${p.documentsTotal} docs · ${p.chunks} chunks · ${p.problems} problems · ${p.percent}%` : ''} `,
  ];
  const head = variants.find((v) => strWidth(v) + strWidth(tail) <= width) ?? variants.at(-1)!;
  const barW = Math.max(0, Math.min(20, width - strWidth(head) - strWidth(tail) - 1));
  return [
    seg(head, 'statusBusy'),
    ...(p && indexing && barW >= 5 ? progressBar(p.percent, barW) : []),
    seg(tail, canCancel ? 'key' : 'dimmed'),
  ];
}

export function summaryView(d: SummaryDialog, v: ViewContext): Frame {
  const w = dialogWidth(v.state.size, 76) - 2;
  const s = d.summary;
  const title =
    d.op === 'remove'
      ? `Source removed · ${d.storeName}`
      : d.created
        ? `Store created · ${d.storeName}`
        : `Indexing finished · ${d.storeName}`;
  const body: Line[] = [
    { segs: [] },
    {
      segs: [
        seg(' newly indexed ', 'dimmed'),
        seg(String(s.indexed), 'statusOk'),
        seg(' · unchanged ', 'dimmed'),
        seg(String(s.unchanged)),
        seg(' · removed ', 'dimmed'),
        seg(String(s.removed)),
        seg(' · skipped ', 'dimmed'),
        seg(String(s.skipped), s.skipped > 0 ? 'statusWarning' : undefined),
      ],
    },
    {
      segs: [
        seg(' chunks embedded ', 'dimmed'),
        seg(String(s.chunksEmbedded)),
        seg(' · reused ', 'dimmed'),
        seg(String(s.chunksReused)),
        seg(' · problems ', 'dimmed'),
        seg(String(s.problems), s.problems > 0 ? 'statusWarning' : undefined),
      ],
    },
    { segs: [] },
    ...d.sources.slice(0, 6).map((x) => ({
      segs: [
        seg(' '),
        seg(fitText(x.status, 9), statusRole(x.status)),
        seg(truncateLeft(x.path, w - 12), 'path'),
      ],
    })),
    ...d.sources
      .filter((x) => x.reason)
      .slice(0, 2)
      .map((x) => ({ segs: [seg(` ${x.reason}`, 'statusError')] })),
  ];
  return dialogBox(v.state.size, title, body, 76, keyFooter([[v.key('summary.close'), 'close']]));
}
