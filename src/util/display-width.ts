import stringWidth from 'string-width';

// Terminal cells, not UTF-16 units: every column we align (TUI panes, CLI tables) is measured here.
// A grapheme cluster (what a user sees as one character: 👍🏽, 👨‍👩‍👧, é as e + U+0301, ❤️ with VS16) is
// the unit; its width comes from string-width (Unicode East Asian Width + emoji presentation), the
// same answer modern terminals give for single characters. Ambiguous-width characters (─ │ … ·)
// count as one cell, as in every non-CJK locale. Pure.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const PLAIN = /^[\x20-\x7e]*$/;

// Grapheme widths met so far: string-width's rules (regexes over Unicode properties) cost
// microseconds per grapheme, and a pane repaints the same few non-ASCII graphemes every frame.
const known = new Map<string, 1 | 2 | 0>();
const KNOWN_MAX = 4096;

/**
 * Cells one grapheme takes: 0, 1 or 2. A cluster string-width counts wider (a run of conjoining
 * jamo) is capped at 2: one grapheme is one screen cell or a wide pair, so width() and the
 * painter's grid agree on every column.
 */
function graphemeWidth(g: string): 0 | 1 | 2 {
  const c = g.charCodeAt(0);
  if (g.length === 1 && c >= 0x20 && c < 0x7f) return 1;
  let w = known.get(g);
  if (w === undefined) {
    w = Math.min(2, stringWidth(g, { countAnsiEscapeCodes: true })) as 0 | 1 | 2;
    if (known.size >= KNOWN_MAX) known.clear();
    if (g.length <= 32) known.set(g, w);
  }
  return w;
}

/** Cells a string takes. Control characters take none (sanitize before printing them). */
export function width(s: string): number {
  if (PLAIN.test(s)) return s.length;
  let w = 0;
  for (const { segment } of segmenter.segment(s)) w += graphemeWidth(segment);
  return w;
}

export interface Grapheme {
  text: string;
  width: number;
}

/** The string as grapheme clusters with their widths (0, 1 or 2). */
export function graphemes(s: string): Grapheme[] {
  if (PLAIN.test(s)) return Array.from(s, (c) => ({ text: c, width: 1 }));
  const out: Grapheme[] = [];
  for (const { segment } of segmenter.segment(s)) {
    out.push({ text: segment, width: graphemeWidth(segment) });
  }
  return out;
}

export type Align = 'left' | 'right';

/** At least `cells` wide: spaces added on the right (left-aligned) or the left. Never cuts. */
export function pad(s: string, cells: number, align: Align = 'left'): string {
  const fill = ' '.repeat(Math.max(0, cells - width(s)));
  return align === 'right' ? fill + s : s + fill;
}

/** The longest prefix of whole graphemes that fits in `cells`, with `…` when something was cut. */
export function truncate(s: string, cells: number): string {
  if (cells <= 0) return '';
  if (width(s) <= cells) return s;
  let out = '';
  let w = 0;
  for (const g of graphemes(s)) {
    if (w + g.width > cells - 1) break;
    out += g.text;
    w += g.width;
  }
  return `${out}…`;
}

/** Keeps the end (paths: the file name matters most): `…/deep/dir/file.md`. */
export function truncateStart(s: string, cells: number): string {
  if (cells <= 0) return '';
  if (width(s) <= cells) return s;
  const gs = graphemes(s);
  let out = '';
  let w = 0;
  for (let i = gs.length - 1; i >= 0; i--) {
    const g = gs[i]!;
    if (w + g.width > cells - 1) break;
    out = g.text + out;
    w += g.width;
  }
  return `…${out}`;
}

/** Exactly `cells` wide: truncated (at the end or the start), then padded. */
export function fit(s: string, cells: number, align: Align = 'left', cut: 'end' | 'start' = 'end'): string {
  return pad(cut === 'start' ? truncateStart(s, cells) : truncate(s, cells), cells, align);
}

/**
 * Cells [start, start + cells) of a string. A wide grapheme split by either edge becomes a space,
 * so the result is always exactly as wide as the part of the string inside the window.
 */
export function sliceCells(s: string, start: number, cells: number): string {
  let out = '';
  let x = 0;
  const end = start + cells;
  for (const g of graphemes(s)) {
    if (x >= end) break;
    if (x >= start && x + g.width <= end) out += g.text;
    else if (x + g.width > start && x < end)
      out += ' '.repeat(Math.min(x + g.width, end) - Math.max(x, start));
    x += g.width;
  }
  return out;
}
