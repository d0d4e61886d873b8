// Page text from pdf2json's page JSON (pure).
//
// pdf2json gives text blocks with x/y in "form units" (1/16 pt, origin top-left) and w in points.
// We group blocks into lines by y (within LINE_TOLERANCE), order each line by x, join blocks
// with a space when there is a visible gap, and separate lines with LF; a vertical gap much
// larger than the page's usual line spacing becomes a blank line (a paragraph break for the
// chunker). pdf2json 1.x–3.0 URI-encoded run text; 4.x (installed) does not: `uriEncoded`
// selects the decoding so both are handled.

export interface PdfTextRun {
  T: string;
}

export interface PdfTextBlock {
  x: number;
  y: number;
  /** Width in points (absent in some producers' output: then blocks are always space-separated). */
  w?: number;
  R: PdfTextRun[];
}

export interface AssembleOptions {
  /** Run text is URI-encoded (pdf2json < 3.1). */
  uriEncoded?: boolean;
}

/** Blocks whose baselines differ by at most this (form units, 4 pt) share a line. */
export const LINE_TOLERANCE = 0.25;
/** A horizontal gap above this (form units, ~1.3 pt) separates words. */
export const WORD_GAP = 0.08;
/** A line gap above this multiple of the page's median line gap starts a paragraph. */
export const PARAGRAPH_FACTOR = 1.6;

const FORM_UNITS_PER_POINT = 1 / 16;

function decodeRun(t: string, uriEncoded: boolean): string {
  if (!uriEncoded) return t;
  try {
    return decodeURIComponent(t);
  } catch {
    return t; // a stray '%' in already-decoded text
  }
}

// Controls other than tab/LF (font-less glyphs, NULs from broken encodings) carry no meaning.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

interface Item {
  x: number;
  y: number;
  end: number | undefined;
  text: string;
  order: number;
}

interface Line {
  y: number;
  items: Item[];
}

export function assemblePageText(blocks: readonly PdfTextBlock[], opts: AssembleOptions = {}): string {
  const uri = opts.uriEncoded ?? false;
  const items: Item[] = [];
  blocks.forEach((b, order) => {
    const text = (b.R ?? [])
      .map((r) => decodeRun(String(r.T ?? ''), uri))
      .join('')
      .replace(CONTROL, ' ');
    if (text.trim().length === 0 || !Number.isFinite(b.x) || !Number.isFinite(b.y)) return;
    const end =
      typeof b.w === 'number' && Number.isFinite(b.w) ? b.x + b.w * FORM_UNITS_PER_POINT : undefined;
    items.push({ x: b.x, y: b.y, end, text, order });
  });
  if (items.length === 0) return '';

  items.sort((a, b) => a.y - b.y || a.x - b.x || a.order - b.order);
  const lines: Line[] = [];
  for (const it of items) {
    const line = lines[lines.length - 1];
    if (line && it.y - line.y <= LINE_TOLERANCE) line.items.push(it);
    else lines.push({ y: it.y, items: [it] });
  }

  const gaps = lines.slice(1).map((l, i) => l.y - (lines[i] as Line).y);
  const median = gaps.length > 0 ? [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] : undefined;

  let out = '';
  lines.forEach((line, i) => {
    if (i > 0) {
      const gap = gaps[i - 1] as number;
      out += median !== undefined && gaps.length >= 2 && gap > median * PARAGRAPH_FACTOR ? '\n\n' : '\n';
    }
    out += joinLine(line.items);
  });
  return out.replace(/[ \t]+$/gm, '').trim();
}

function joinLine(items: Item[]): string {
  items.sort((a, b) => a.x - b.x || a.order - b.order);
  let s = '';
  let prevEnd: number | undefined;
  for (const it of items) {
    if (s.length > 0) {
      const gap = prevEnd === undefined ? Number.POSITIVE_INFINITY : it.x - prevEnd;
      if (gap > WORD_GAP && !/\s$/.test(s) && !/^\s/.test(it.text)) s += ' ';
    }
    s += it.text;
    prevEnd = it.end;
  }
  return s;
}
