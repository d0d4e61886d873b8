import type { Cell, Grid } from './paint.js';

// The bytes that turn the screen showing `prev` into `next`: per row, the span from the first to
// the last changed cell, written with the fewest attribute changes. Pure.
//
// Terminals disagree about the width of some graphemes (👍🏽 is 2 cells in one, 4 in another; an
// emoji ZWJ sequence 2 or 6). After any grapheme that is not a single narrow character the cursor
// is put back where this grid says the next cell is, so a terminal that draws it wider garbles at
// most that grapheme, never the rest of the line (no torn borders).

const cup = (y: number, x: number) => `\x1b[${y + 1};${x + 1}H`;

const sameCell = (a: Cell | undefined, b: Cell) => a !== undefined && a.text === b.text && a.sgr === b.sgr;

/** Needs the cursor re-placed after it: wide, or more than one code point. */
function risky(c: Cell): boolean {
  if (c.width === 2) return true;
  const cp = c.text.codePointAt(0) ?? 0;
  return c.text.length > (cp > 0xffff ? 2 : 1);
}

export function diffFrame(prev: Grid | undefined, next: Grid): string {
  let out = '';
  let sgr = '';
  for (let y = 0; y < next.length; y++) {
    const row = next[y]!;
    const old = prev?.[y];
    const sameWidth = old?.length === row.length;
    let first = 0;
    let last = row.length - 1;
    if (prev && sameWidth) {
      while (first < row.length && sameCell(old[first], row[first]!)) first++;
      if (first === row.length) continue;
      while (last > first && sameCell(old[last], row[last]!)) last--;
    }
    // Never start or end inside a wide grapheme.
    while (first > 0 && row[first]!.width === 0) first--;
    if (row[last]!.width === 2 && last + 1 < row.length) last++;
    out += cup(y, first);
    for (let x = first; x <= last; x++) {
      const c = row[x]!;
      if (c.width === 0) continue;
      if (c.sgr !== sgr) {
        out += c.sgr;
        sgr = c.sgr;
      }
      out += c.text;
      if (risky(c) && x + c.width < row.length) out += cup(y, x + c.width);
    }
  }
  return out ? `${out}\x1b[0m` : '';
}
