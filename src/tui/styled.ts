import { graphemes } from '../util/display-width.js';
import type { Role } from './roles.js';
import { type Align, fitText, sanitize, strWidth } from './text.js';

// Styled lines: what every view returns. A segment is text plus the role it plays; a line may carry
// a role whose colours fill it (the selected row). Pure data, painted in one place (paint.ts).

export interface Seg {
  text: string;
  role?: Role;
  /** Role laid over this segment (set when a line's overlay is moved onto its segments). */
  over?: Role;
}

export interface Line {
  segs: Seg[];
  /** Role laid over the whole line (e.g. selectedLineBg). */
  over?: Role;
}

export type Frame = Line[];

export const seg = (text: string, role?: Role): Seg => ({ text: sanitize(text), ...(role ? { role } : {}) });
export const line = (...segs: (Seg | string)[]): Line => ({
  segs: segs.map((s) => (typeof s === 'string' ? seg(s) : s)),
});
export const blank = (): Line => ({ segs: [] });
export const textLine = (text: string, role?: Role): Line => ({ segs: [seg(text, role)] });

export function lineWidth(l: Line): number {
  return l.segs.reduce((n, s) => n + strWidth(s.text), 0);
}

export function lineText(l: Line): string {
  return l.segs.map((s) => s.text).join('');
}

/** Cells [start, start+width) of a line, cutting segments (a wide char split at an edge becomes a space). */
export function sliceLine(l: Line, start: number, width: number): Line {
  const out: Seg[] = [];
  let x = 0;
  const end = start + width;
  for (const s of l.segs) {
    let text = '';
    for (const g of graphemes(s.text)) {
      if (x >= start && x + g.width <= end) text += g.text;
      else if (x < end && x + g.width > start)
        text += ' '.repeat(Math.min(x + g.width, end) - Math.max(x, start));
      x += g.width;
      if (x >= end) break;
    }
    if (text) out.push({ ...s, text });
    if (x >= end) break;
  }
  return { segs: out, ...(l.over ? { over: l.over } : {}) };
}

/** Exactly `width` cells: cut or padded with plain spaces. */
export function fitLine(l: Line, width: number): Line {
  const w = lineWidth(l);
  if (w > width) return fitLine(sliceLine(l, 0, width), width);
  if (w === width) return l;
  return { ...l, segs: [...l.segs, { text: ' '.repeat(width - w) }] };
}

/**
 * Exactly `width` cells; when text (not just trailing spaces) does not fit, the last cell becomes
 * `…`, so nothing is ever cut silently.
 */
export function fitLineMarked(l: Line, width: number): Line {
  const w = lineWidth(l);
  if (w <= width || width <= 0) return fitLine(l, width);
  if (lineText(sliceLine(l, width, w - width)).trim() === '') return fitLine(l, width);
  const kept = sliceLine(l, 0, width - 1);
  const role = kept.segs.at(-1)?.role;
  return fitLine({ ...kept, segs: [...kept.segs, { text: '…', ...(role ? { role } : {}) }] }, width);
}

/** Exactly `height` lines of exactly `width` cells. */
export function fitFrame(frame: Frame, width: number, height: number): Frame {
  const out = frame.slice(0, height).map((l) => fitLineMarked(l, width));
  while (out.length < height) out.push(fitLine(blank(), width));
  return out;
}

/** A cell: text fitted to `width`, in one role. */
export function cell(
  text: string,
  width: number,
  role?: Role,
  align: Align = 'left',
  cut: 'end' | 'start' = 'end',
): Seg {
  return { text: fitText(sanitize(text), width, align, cut), ...(role ? { role } : {}) };
}

/** The line's segments with the line-level overlay moved onto each segment (for splicing lines). */
export function flatten(l: Line): Seg[] {
  return l.over ? l.segs.map((s) => ({ ...s, over: s.over ?? l.over })) : l.segs;
}

/** `top` drawn over `base` with its top-left corner at (x, y). */
export function overlay(base: Frame, top: Frame, x: number, y: number): Frame {
  const out = base.slice();
  top.forEach((tl, i) => {
    const row = y + i;
    if (row < 0 || row >= out.length) return;
    const b = out[row]!;
    const bw = lineWidth(b);
    const tw = Math.min(lineWidth(tl), Math.max(0, bw - x));
    out[row] = {
      segs: [
        ...flatten(sliceLine(b, 0, x)),
        ...flatten(sliceLine(tl, 0, tw)),
        ...flatten(sliceLine(b, x + tw, bw - x - tw)),
      ],
    };
  });
  return out;
}

export interface BoxOptions {
  title?: string;
  width: number;
  height: number;
  body: Line[];
  border: Role;
  titleRole?: Role;
  /** Right-aligned text in the bottom border (e.g. "3/40"). */
  footer?: string;
}

/** A bordered box of exactly width × height; the body is clipped to the inside. */
export function box(o: BoxOptions): Frame {
  const inner = Math.max(0, o.width - 2);
  const title = o.title ? ` ${o.title} ` : '';
  const titleText = fitText(title, Math.min(strWidth(title), Math.max(0, inner - 1)));
  const top: Line = {
    segs: [
      seg('┌─', o.border),
      seg(titleText, o.titleRole ?? o.border),
      seg('─'.repeat(Math.max(0, inner - 1 - strWidth(titleText))), o.border),
      seg('┐', o.border),
    ],
  };
  const footer = o.footer ? ` ${o.footer} ` : '';
  const footerText = fitText(footer, Math.min(strWidth(footer), Math.max(0, inner - 1)));
  const bottom: Line = {
    segs: [
      seg(`└${'─'.repeat(Math.max(0, inner - 1 - strWidth(footerText)))}`, o.border),
      seg(footerText, o.border),
      seg('─┘', o.border),
    ],
  };
  const rows = Math.max(0, o.height - 2);
  const body = o.body.slice(0, rows);
  while (body.length < rows) body.push(blank());
  const mid = body.map((l) => {
    return { segs: [seg('│', o.border), ...flatten(fitLineMarked(l, inner)), seg('│', o.border)] };
  });
  return [top, ...mid, bottom].map((l) => fitLine(l, o.width)).slice(0, Math.max(0, o.height));
}
