import type { HelpRow } from '../bindings.js';
import type { HelpDialog } from '../state.js';
import { type Frame, type Line, seg } from '../styled.js';
import { fitText, strWidth, wrap } from '../text.js';
import { dialogBox, dialogWidth, keyFooter } from './dialog-view.js';
import type { ViewContext } from './view-context.js';

// The help overlay, generated from the binding records in scope: keys, description, and for a
// disabled action the reason it cannot run now.

/** The key alternatives ("ctrl-x ctrl-c, ctrl-c") in lines of at most `width` cells, never cut mid-key. */
function keyLines(keys: string, width: number): string[] {
  const out: string[] = [];
  for (const k of keys.split(', ')) {
    const last = out.at(-1);
    if (last !== undefined && strWidth(`${last}, ${k}`) <= width) out[out.length - 1] = `${last}, ${k}`;
    else {
      // The comma that ends a line says more keys follow (it may take the column's spare cell).
      if (last !== undefined) out[out.length - 1] = `${last},`;
      out.push(k);
    }
  }
  return out.flatMap((l) => wrap(l, width));
}

export function helpLines(rows: readonly HelpRow[], width: number): Line[] {
  const keyW = Math.min(18, Math.max(8, ...rows.filter((r) => !r.heading).map((r) => strWidth(r.keys) + 1)));
  const room = Math.max(10, width - keyW - 2);
  return rows.flatMap((r): Line[] => {
    if (r.heading) return [{ segs: [seg(` ${r.description}`, 'sectionHeading')] }];
    const role = r.disabled ? 'disabled' : 'key';
    const keys = keyLines(r.keys, keyW - 1);
    // Long descriptions and reasons wrap; nothing in the help is cut.
    const text: Line['segs'][] = wrap(r.description, room).map((l) => [
      seg(l, r.disabled ? 'disabled' : 'description'),
    ]);
    if (r.disabled) {
      const why = ` — ${r.disabled}`;
      const last = text.at(-1)!;
      if (strWidth(last.map((x) => x.text).join('')) + strWidth(why) <= room)
        last.push(seg(why, 'statusWarning'));
      else text.push(...wrap(`↳ ${r.disabled}`, room).map((l) => [seg(l, 'statusWarning')]));
    }
    const n = Math.max(keys.length, text.length);
    return Array.from({ length: n }, (_, i) => ({
      segs: [seg(' '), seg(fitText(keys[i] ?? '', keyW), role), seg(' '), ...(text[i] ?? [])],
    }));
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
