import type { HelpRow } from '../bindings.js';
import type { HelpDialog } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { fitText, strWidth, truncate } from '../text.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// The help overlay, generated from the binding records in scope: keys, description, and for a
// disabled action the reason it cannot run now.

export function helpLines(rows: readonly HelpRow[], width: number): Line[] {
  const keyW = Math.min(18, Math.max(8, ...rows.filter((r) => !r.heading).map((r) => strWidth(r.keys) + 1)));
  const room = Math.max(10, width - keyW - 2);
  return rows.flatMap((r): Line[] => {
    if (r.heading) return [{ segs: [seg(` ${r.description}`, 'sectionHeading')] }];
    const keys = seg(fitText(r.keys, keyW), r.disabled ? 'disabled' : 'key');
    if (!r.disabled)
      return [{ segs: [seg(' '), keys, seg(' '), seg(truncate(r.description, room), 'description')] }];
    const why = ` — ${r.disabled}`;
    if (strWidth(r.description) + strWidth(why) <= room)
      return [
        { segs: [seg(' '), keys, seg(' '), seg(r.description, 'disabled'), seg(why, 'statusWarning')] },
      ];
    // Too long for one line: the reason gets its own line rather than being cut.
    return [
      { segs: [seg(' '), keys, seg(' '), seg(truncate(r.description, room), 'disabled')] },
      { segs: [seg(' '.repeat(keyW + 2)), seg(truncate(`↳ ${r.disabled}`, room), 'statusWarning')] },
    ];
  });
}

export function helpView(d: HelpDialog, v: ViewContext): Frame {
  const size = v.state.size;
  const w = dialogWidth(size, 96) - 2;
  const lines = helpLines(d.rows, w);
  const room = Math.max(1, size.height - 4);
  const start = Math.min(d.scroll, Math.max(0, lines.length - room));
  const shown = lines.slice(start, start + room);
  const more = lines.length > room ? ` ${start + 1}-${start + shown.length} of ${lines.length}` : '';
  return dialogBox(
    size,
    `Keys · keymap ${v.state.keymapName}`,
    shown,
    96,
    `${keyFooter([[v.key('universal.back'), 'close']])}${more}`,
    Math.min(size.height - 2, lines.length + 2),
  );
}
