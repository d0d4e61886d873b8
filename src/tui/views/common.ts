import { graphemes } from '../../util/display-width.js';
import { clampCursor } from '../line-editor.js';
import type { Role } from '../roles.js';
import type { Level } from '../state.js';
import { type Line, lineWidth, type Seg, seg, sliceLine } from '../styled.js';
import { strWidth, truncateLeft, wrap } from '../text.js';

// Small pure pieces shared by the views.

export function statusRole(status: string): Role {
  switch (status) {
    case 'READY':
      return 'statusOk';
    case 'ERROR':
    case 'MISSING':
    case 'DAMAGED':
    case 'UNREACHABLE':
      return 'statusError';
    case 'SCANNING':
    case 'INDEXING':
    case 'SYNCING':
      return 'statusBusy';
    case 'DISABLED':
    case 'EMPTY':
      return 'dimmed';
    case 'LIMITED':
    case 'NEW':
      return 'statusWarning';
    default:
      return 'statusInfo';
  }
}

export function levelRole(level: Level): Role {
  return {
    info: 'statusInfo',
    ok: 'statusOk',
    warning: 'statusWarning',
    error: 'statusError',
    busy: 'statusBusy',
  }[level] as Role;
}

export function progressBar(percent: number, width: number): Seg[] {
  const w = Math.max(0, width);
  const done = Math.max(0, Math.min(w, Math.round((w * percent) / 100)));
  return [seg('█'.repeat(done), 'progressBar'), seg('░'.repeat(w - done), 'progressTrack')];
}

export function wrapped(text: string, width: number, role?: Role, indent = ''): Line[] {
  return wrap(text, Math.max(1, width - indent.length)).map((t) => ({ segs: [seg(indent + t, role)] }));
}

/** `label` then `text` wrapped at word boundaries, continuation lines indented under the text. */
export function hanging(
  label: string,
  text: string,
  width: number,
  labelRole?: Role,
  textRole?: Role,
): Line[] {
  const lead = strWidth(label);
  return wrap(text, Math.max(8, width - lead)).map((l, i) => ({
    segs: [seg(i === 0 ? label : ' '.repeat(lead), labelRole), seg(l, textRole)],
  }));
}

/** "12.3 s" style elapsed time. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A text input exactly `width` cells wide. Focused (a cursor given): the cursor is a cell of its
 * own, kept in view by scrolling; `…` marks text scrolled out at either edge. Not focused: the end
 * of the text (or the placeholder, dimmed).
 */
export function inputSegs(text: string, cursor: number | undefined, width: number, placeholder = ''): Seg[] {
  if (width <= 0) return [];
  if (cursor === undefined) {
    const shown = text === '' ? placeholder : truncateLeft(text, width);
    return [
      seg(shown, text === '' ? 'dimmed' : 'inputField'),
      seg(' '.repeat(Math.max(0, width - strWidth(shown))), 'inputField'),
    ];
  }
  const at = clampCursor(text, cursor);
  const after = graphemes(text.slice(at));
  const under = after[0]?.text ?? ' ';
  const full: Line = {
    segs: [
      seg(text.slice(0, at), 'inputField'),
      seg(under, 'inputCursor'),
      seg(
        after
          .slice(1)
          .map((g) => g.text)
          .join(''),
        'inputField',
      ),
    ],
  };
  const total = lineWidth(full);
  const cx = strWidth(text.slice(0, at));
  const cw = Math.max(1, strWidth(under));
  // Keep one cell to spare after the cursor when the text goes on, so the `…` never covers it.
  const start = total <= width ? 0 : Math.max(0, Math.min(cx + cw + 1 - width, total - width));
  let view = sliceLine(full, start, width).segs;
  if (start > 0) view = [seg('…', 'inputField'), ...sliceLine({ segs: view }, 1, width - 1).segs];
  if (start + width < total) view = [...sliceLine({ segs: view }, 0, width - 1).segs, seg('…', 'inputField')];
  const used = lineWidth({ segs: view });
  return [...view, seg(' '.repeat(Math.max(0, width - used)), 'inputField')];
}
