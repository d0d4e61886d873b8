import {
  type Align,
  fit,
  graphemes,
  truncate as truncateCells,
  truncateStart,
  width,
} from '../util/display-width.js';

// Pure text measurement and fitting for the pane, in terminal cells (src/util/display-width.ts):
// wide characters take two cells, combining marks none, an emoji sequence is one grapheme.

export type { Align };

export const strWidth = width;

/** Control and invisible characters (file names may hold them) become visible; tabs become a space. */
export { sanitizeLine as sanitize } from '../util/terminal-text.js';

/** The longest prefix of `s` that fits in `width` cells, with `…` when something was cut. */
export const truncate = truncateCells;

/** Keeps the end (paths: the file name matters most): `…/deep/dir/file.md`. */
export const truncateLeft = truncateStart;

/** Exactly `width` cells: truncated, then padded. */
export const fitText = fit;

/** Word-wraps plain text at spaces into lines of at most `width` cells (a longer word is cut). */
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
      line = '';
      let w = 0;
      for (const g of graphemes(word)) {
        if (w + g.width > width && line) {
          out.push(line);
          line = '';
          w = 0;
        }
        line += g.text;
        w += g.width;
      }
    }
    out.push(line);
  }
  return out;
}

/**
 * Wraps one line of preformatted text (code, the retrieved-context block) into lines of at most
 * `width` cells without changing it: runs of spaces are kept, tabs expand to the next multiple of
 * 8 as a terminal would show them, and lines break after a run of spaces (or inside a word longer
 * than the width). The spaces at a break stay at the end of the line, where they may pass the
 * width unseen. Joining the result gives back the line with its tabs expanded.
 */
export function wrapPreformatted(text: string, width: number): string[] {
  if (width <= 0) return [];
  let expanded = '';
  let col = 0;
  for (const g of graphemes(text)) {
    if (g.text === '\t') {
      const n = 8 - (col % 8);
      expanded += ' '.repeat(n);
      col += n;
    } else {
      expanded += g.text;
      col += g.width;
    }
  }
  const out: string[] = [];
  let line = '';
  let w = 0;
  // Tokens: a word with the spaces that follow it, so a break never starts a line with the gap.
  for (const token of expanded.match(/[^ ]* *|$/g) ?? []) {
    if (token === '') continue;
    const tw = strWidth(token.trimEnd());
    if (w > 0 && w + tw > width) {
      out.push(line);
      line = '';
      w = 0;
    }
    for (const g of graphemes(token)) {
      if (w + g.width > width && line && g.text !== ' ') {
        out.push(line);
        line = '';
        w = 0;
      }
      line += g.text;
      w += g.width;
    }
  }
  out.push(line);
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
