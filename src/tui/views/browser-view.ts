import { formatBytes } from '../../scan/units.js';
import { clampCursor } from '../line-editor.js';
import type { BrowserDialog, DirEntry } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { scrollOffset } from '../table.js';
import { fitText, truncateLeft } from '../text.js';
import { inputSegs } from './common.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// The file browser for Add files / Add folder / local GGUF: hidden entries greyed, directories the
// scan skips greyed with the reason, symbolic links marked and never followed.

export const THIS_FOLDER = './  (use this folder)';

export function browserRows(d: BrowserDialog): { label: string; entry?: DirEntry }[] {
  const rows: { label: string; entry?: DirEntry }[] = d.mode === 'folder' ? [{ label: THIS_FOLDER }] : [];
  for (const e of d.entries) rows.push({ label: e.name, entry: e });
  return rows;
}

function entryLine(e: DirEntry, marked: boolean, nameW: number): Line['segs'] {
  const name =
    e.type === 'dir' ? `${e.name}/` : e.type === 'symlink' ? `${e.name} → ${e.target ?? '?'}` : e.name;
  const role =
    e.type === 'symlink'
      ? 'symlink'
      : e.hidden || e.excluded
        ? 'hidden'
        : e.type === 'dir'
          ? 'directory'
          : undefined;
  const note =
    e.type === 'symlink'
      ? 'symlink: never followed'
      : e.excluded
        ? 'skipped by scans'
        : e.hidden
          ? 'hidden: skipped by scans'
          : e.type === 'file'
            ? formatBytes(e.size)
            : e.type === 'other'
              ? 'special file'
              : '';
  return [
    seg(marked ? '[x] ' : '    ', 'marked'),
    seg(fitText(name, nameW), role),
    seg(' '),
    seg(note, e.type === 'symlink' ? 'symlink' : 'dimmed'),
  ];
}

export function browserView(d: BrowserDialog, v: ViewContext): Frame {
  const size = v.state.size;
  const w = dialogWidth(size, 84) - 2;
  const height = size.height - 2;
  const title =
    d.mode === 'folder'
      ? 'Add folder · choose a folder'
      : d.mode === 'files'
        ? 'Add files · mark files'
        : 'Use a local GGUF file';
  const head: Line[] = [{ segs: [seg(' '), seg(truncateLeft(d.dir, w - 2), 'path')] }];
  const tail: Line[] = [];
  if (d.goto !== undefined)
    tail.push({
      segs: [
        seg(' Go to: ', 'key'),
        ...(d.goto
          ? inputSegs(d.goto, clampCursor(d.goto, d.gotoCursor), Math.max(6, w - 9))
          : [seg(' ', 'inputCursor'), seg('  absolute, or relative to this folder', 'dimmed')]),
      ],
    });
  if (d.error) tail.push({ segs: [seg(` ${d.error}`, 'statusError')] });
  if (d.mode === 'files' && d.marked.length > 0)
    tail.push({ segs: [seg(` ${d.marked.length} file(s) marked`, 'marked')] });
  const rows = browserRows(d);
  const window = Math.max(1, height - 2 - head.length - tail.length);
  const off = scrollOffset(d.selected, rows.length, window);
  const nameW = Math.max(12, Math.floor((w - 4) * 0.6));
  const list: Line[] = rows.slice(off, off + window).map((r, i) => {
    const idx = off + i;
    const sel = idx === d.selected;
    const marker = seg(sel ? '›' : ' ', 'focusMarker');
    const segs = r.entry
      ? entryLine(r.entry, d.marked.includes(r.entry.name), nameW)
      : [seg('    '), seg(r.label, 'directory')];
    return { segs: [marker, ...segs], ...(sel ? { over: 'selectedLineBg' as const } : {}) };
  });
  if (rows.length === 0) list.push({ segs: [seg('  (empty folder)', 'dimmed')] });
  while (list.length < window) list.push({ segs: [] });
  const footer = keyFooter([
    [v.key('browser.open'), 'open'],
    [v.key('browser.parent'), 'parent'],
    ...(d.mode === 'files' ? ([[v.key('browser.mark'), 'mark']] as [string, string][]) : []),
    [v.key('browser.choose'), 'choose'],
    [v.key('browser.goto'), 'path'],
    [v.key('universal.back'), 'close'],
  ]);
  return dialogBox(size, title, [...head, ...list, ...tail], 84, footer, height);
}
