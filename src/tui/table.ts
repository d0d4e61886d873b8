import type { Role } from './roles.js';
import { type Line, type Seg, seg } from './styled.js';
import { type Align, fitText, sanitize } from './text.js';

// A pure table: columns share the width (fixed ones first, flexible ones split the rest), the
// window scrolls to keep the selected row in view, the selected row carries selectedLineBg.

export interface Column {
  header: string;
  width?: number;
  min?: number;
  flex?: number;
  align?: Align;
  /** Cut long values at the start (paths keep their file name). */
  cut?: 'end' | 'start';
}

export interface Cell {
  text: string;
  role?: Role;
}

export interface TableRow {
  cells: (Cell | string)[];
  /** Role for cells that set none (e.g. a disabled source is dimmed). */
  role?: Role;
}

export interface TableInput {
  columns: Column[];
  rows: TableRow[];
  width: number;
  /** Lines available, header included. */
  height: number;
  selected?: number;
  focused: boolean;
  empty?: string;
}

export function columnWidths(columns: readonly Column[], width: number): number[] {
  const gaps = Math.max(0, columns.length - 1);
  const fixed = columns.reduce((n, c) => n + (c.width ?? 0), 0);
  const free = Math.max(0, width - 1 - gaps - fixed);
  const flexCols = columns.filter((c) => c.width === undefined);
  const totalFlex = flexCols.reduce((n, c) => n + (c.flex ?? 1), 0);
  const widths = columns.map((c) =>
    c.width !== undefined
      ? c.width
      : Math.max(c.min ?? 1, Math.floor((free * (c.flex ?? 1)) / Math.max(1, totalFlex))),
  );
  // Hand out rounding leftovers (or take back overflow) from the last flexible column.
  const used = widths.reduce((a, b) => a + b, 0) + gaps + 1;
  const lastFlex = columns.map((c) => c.width === undefined).lastIndexOf(true);
  if (lastFlex >= 0) widths[lastFlex] = Math.max(1, widths[lastFlex]! + (width - used));
  return widths;
}

/** First visible row so that `selected` stays in view (centred when the list is longer than the window). */
export function scrollOffset(selected: number, count: number, window: number): number {
  if (count <= window || window <= 0) return 0;
  return Math.max(0, Math.min(selected - Math.floor(window / 2), count - window));
}

export function renderTable(t: TableInput): Line[] {
  const widths = columnWidths(t.columns, t.width);
  const header: Line = {
    segs: [
      seg(' '),
      ...t.columns.flatMap((c, i) => [
        { text: fitText(c.header, widths[i]!, c.align), role: 'header' as Role },
        ...(i < t.columns.length - 1 ? [seg(' ')] : []),
      ]),
    ],
  };
  const body = Math.max(0, t.height - 1);
  if (t.rows.length === 0)
    return [header, ...(t.empty && body > 0 ? [{ segs: [seg(` ${t.empty}`, 'dimmed')] }] : [])];
  const sel = t.selected ?? -1;
  const off = scrollOffset(Math.max(0, sel), t.rows.length, body);
  const lines: Line[] = [header];
  for (let r = off; r < Math.min(t.rows.length, off + body); r++) {
    const row = t.rows[r]!;
    const isSel = r === sel;
    const segs: Seg[] = [isSel && t.focused ? seg('›', 'focusMarker') : seg(' ')];
    row.cells.forEach((c, i) => {
      const cellv = typeof c === 'string' ? { text: c } : c;
      const col = t.columns[i]!;
      const role = cellv.role ?? row.role;
      segs.push({
        text: fitText(sanitize(cellv.text), widths[i]!, col.align, col.cut),
        ...(role ? { role } : {}),
      });
      if (i < row.cells.length - 1) segs.push(seg(' '));
    });
    lines.push({
      segs,
      ...(isSel ? { over: (t.focused ? 'selectedLineBg' : 'selectedLineInactive') as Role } : {}),
    });
  }
  return lines;
}
