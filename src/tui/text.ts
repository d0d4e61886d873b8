// Pure text measurement and fitting for the pane. Terminal cells, not UTF-16 units: wide (CJK,
// fullwidth, emoji) characters take two cells, combining marks none, so columns line up.

const COMBINING: [number, number][] = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
];

const WIDE: [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

const inRanges = (cp: number, ranges: [number, number][]) => ranges.some(([a, b]) => cp >= a && cp <= b);

export function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (inRanges(cp, COMBINING)) return 0;
  return inRanges(cp, WIDE) ? 2 : 1;
}

export function strWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Control and invisible characters (file names may hold them) become visible; tabs become a space. */
export { sanitizeLine as sanitize } from '../util/terminal-text.js';

/** The longest prefix of `s` that fits in `width` cells, with `…` when something was cut. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (strWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Keeps the end (paths: the file name matters most): `…/deep/dir/file.md`. */
export function truncateLeft(s: string, width: number): string {
  if (width <= 0) return '';
  if (strWidth(s) <= width) return s;
  const chars = [...s];
  let out = '';
  let w = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const cw = charWidth(chars[i]!.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out = chars[i] + out;
    w += cw;
  }
  return `…${out}`;
}

export type Align = 'left' | 'right';

/** Exactly `width` cells: truncated, then padded. */
export function fitText(
  s: string,
  width: number,
  align: Align = 'left',
  cut: 'end' | 'start' = 'end',
): string {
  const t = cut === 'start' ? truncateLeft(s, width) : truncate(s, width);
  const pad = ' '.repeat(Math.max(0, width - strWidth(t)));
  return align === 'right' ? pad + t : t + pad;
}

/** Word-wraps plain text into lines of at most `width` cells (long words are cut). */
export function wrap(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/ +/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (strWidth(candidate) <= width) {
        line = candidate;
        continue;
      }
      if (line) out.push(line);
      line = word;
      while (strWidth(line) > width) {
        const head = truncate(line, width + 1).slice(0, -1);
        out.push(head);
        line = line.slice(head.length);
      }
    }
    out.push(line);
  }
  return out;
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '-';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}
