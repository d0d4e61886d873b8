import type { ConfirmDialog, MessageDialog, Size } from '../state.js';
import { box, type Frame, type Line, seg } from '../styled.js';
import { levelRole, wrapped } from './common.js';
import type { ViewContext } from './view-context.js';

// Dialog frames and the two simple dialogs (confirmation, message).

export function dialogWidth(size: Size, preferred: number): number {
  // A thin strip of the panes beside a dialog only shows stray cells: take the width then.
  const room = size.width - 2;
  return Math.max(20, room - preferred <= 8 ? room : preferred);
}

/** A bordered dialog: `body` grows it up to the screen; `height` fixes it. */
export function dialogBox(
  size: Size,
  title: string,
  body: Line[],
  preferredWidth: number,
  footer?: string,
  height?: number,
): Frame {
  const width = dialogWidth(size, preferredWidth);
  const h = Math.max(3, Math.min(size.height - 2, height ?? body.length + 2));
  return box({ title, width, height: h, body, border: 'dialogBorder', titleRole: 'title', footer });
}

/** "y yes · n no" style footer from key labels. */
export function keyFooter(pairs: [string, string][]): string {
  return pairs.map(([k, what]) => `${k} ${what}`).join(' · ');
}

export function confirmView(d: ConfirmDialog, v: ViewContext): Frame {
  const w = dialogWidth(v.state.size, 72) - 2;
  const body: Line[] = [{ segs: [] }];
  for (const l of d.lines) body.push(...wrapped(l.text, w - 2, l.tone, ' '));
  body.push({ segs: [] });
  body.push({
    segs: [
      seg(` ${v.key('confirm.yes')} `, 'key'),
      seg(d.yes, 'statusWarning'),
      seg('   '),
      seg(`${v.key('confirm.no')} `, 'key'),
      seg('keep everything'),
    ],
  });
  return dialogBox(v.state.size, d.title, body, 72);
}

export function messageView(d: MessageDialog, v: ViewContext): Frame {
  const w = dialogWidth(v.state.size, 72) - 2;
  const body: Line[] = [{ segs: [] }, ...wrapped(d.text, w - 2, levelRole(d.level), ' '), { segs: [] }];
  return dialogBox(v.state.size, d.title, body, 72, keyFooter([[v.key('summary.close'), 'close']]));
}
