import { graphemes } from '../util/display-width.js';
import { type ColourDepth, type Painted, paintBg, paintBgFor, paintFg, sgrColour } from './colour.js';
import { ROLES, type Role } from './roles.js';
import type { Frame, Seg } from './styled.js';
import type { Style, Theme } from './theme.js';

// The one place colours are applied: styled lines + theme + the terminal's colour depth → a grid
// of cells, each a grapheme with its SGR attributes. Widgets never name a colour; they name a role.

export function styleOf(theme: Theme, role: Role | undefined, over: Role | undefined): Style {
  const base = theme.roles.default;
  const own = role ? theme.roles[role] : {};
  const top = over ? theme.roles[over] : {};
  return { ...base, ...own, ...top };
}

const OVERLAYS: Role[] = ['selectedLineBg', 'selectedLineInactive'];

/**
 * The (role, overlay) combinations the views draw: every role alone, and every role without a
 * background of its own inside a selected row (the row keeps its cells' roles).
 */
export function roleUses(theme: Theme): { role: Role; over?: Role }[] {
  return ROLES.flatMap((role) =>
    theme.roles[role].bg || OVERLAYS.includes(role)
      ? [{ role }]
      : [{ role }, ...OVERLAYS.map((over) => ({ role, over }))],
  );
}

/** How a theme's styles come out on a terminal of a depth: each style's painted colours. */
export function themeColours(theme: Theme, depth: ColourDepth): (s: Style) => { fg: Painted; bg: Painted } {
  const onBg = new Map<string, Set<string>>();
  for (const u of roleUses(theme)) {
    const st = styleOf(theme, u.role, u.over);
    if (!st.bg || !st.fg) continue;
    const set = onBg.get(st.bg) ?? new Set<string>();
    set.add(st.fg);
    onBg.set(st.bg, set);
  }
  const screenBg = theme.roles.default.bg;
  const base = paintBgFor(screenBg, [...(onBg.get(screenBg ?? '') ?? [])].sort(), depth);
  const bgs = new Map(
    [...onBg].map(([bg, fgs]) => [bg, bg === screenBg ? base : paintBgFor(bg, [...fgs].sort(), depth, base)]),
  );
  return (st) => {
    const bg = (st.bg && bgs.get(st.bg)) || paintBg(st.bg, depth);
    return { fg: paintFg(st.fg, bg, depth), bg };
  };
}

/** The SGR sequence for a style's attributes and painted colours (from a reset: no state carries). */
export function sgrOf(s: Style, colours: { fg: Painted; bg: Painted }): string {
  const p = ['0'];
  if (s.bold) p.push('1');
  if (s.underline) p.push('4');
  if (s.inverse) p.push('7');
  const { fg, bg } = colours;
  if (!('default' in fg)) p.push(sgrColour(fg, true));
  if (!('default' in bg)) p.push(sgrColour(bg, false));
  return `\x1b[${p.join(';')}m`;
}

/** One screen cell: a grapheme (or '' for the right half of a wide one) and its attributes. */
export interface Cell {
  text: string;
  /** 2 for a wide grapheme, 0 for the cell it covers, else 1. */
  width: 0 | 1 | 2;
  sgr: string;
}

export type Grid = Cell[][];

export function createPainter(theme: Theme, depth: ColourDepth) {
  const cache = new Map<string, string>();
  const colours = themeColours(theme, depth);
  const sgrFor = (role: Role | undefined, over: Role | undefined) => {
    const key = `${role ?? ''}/${over ?? ''}`;
    let v = cache.get(key);
    if (v === undefined) {
      const st = styleOf(theme, role, over);
      v = sgrOf(st, colours(st));
      cache.set(key, v);
    }
    return v;
  };
  const blank = () => ({ text: ' ', width: 1 as const, sgr: sgrFor(undefined, undefined) });
  /** Exactly rows × cols cells; a frame line that is too short is padded, too long is cut. */
  const grid = (frame: Frame, cols: number, rows: number): Grid => {
    const out: Grid = [];
    for (let y = 0; y < rows; y++) {
      const row: Cell[] = [];
      const l = frame[y];
      for (const s of (l?.segs ?? []) as Seg[]) {
        const sgr = sgrFor(s.role, s.over ?? l?.over);
        for (const g of graphemes(s.text)) {
          if (g.width === 0) {
            // A lone zero-width mark joins the cell before it.
            const prev = row.findLast((c) => c.width !== 0);
            if (prev) prev.text += g.text;
            continue;
          }
          if (row.length + g.width > cols) break;
          row.push({ text: g.text, width: g.width as 1 | 2, sgr });
          if (g.width === 2) row.push({ text: '', width: 0, sgr });
        }
      }
      while (row.length < cols) row.push(blank());
      out.push(row.slice(0, cols));
    }
    return out;
  };
  return { grid, sgrFor };
}
