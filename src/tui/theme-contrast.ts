import { type ColourDepth, contrast, rgbOf } from './colour.js';
import { roleUses, styleOf, themeColours } from './paint.js';
import type { Role } from './roles.js';
import type { Theme } from './theme.js';

// The foreground/background pairs a theme puts on screen, and their contrast as a terminal of a
// given depth shows them (the same colour choice the painter makes). Pure.

export interface PairContrast {
  role: Role;
  /** The line's overlay (a selected row), if any. */
  over?: Role;
  fg: string;
  bg: string;
  ratio: number;
}

const hex = (rgb: readonly number[]) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** Every pair the views draw (see roleUses), as the painter colours it at this depth. */
export function themePairs(theme: Theme, depth: ColourDepth): PairContrast[] {
  const colours = themeColours(theme, depth);
  const out: PairContrast[] = [];
  for (const { role, over } of roleUses(theme)) {
    const painted = colours(styleOf(theme, role, over));
    const fg = rgbOf(painted.fg);
    const bg = rgbOf(painted.bg);
    if (!fg || !bg) continue; // the terminal's own default colour: nothing to measure
    out.push({ role, ...(over ? { over } : {}), fg: hex(fg), bg: hex(bg), ratio: contrast(fg, bg) });
  }
  return out;
}
