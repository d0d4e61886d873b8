// Colours as a terminal shows them, pure. A theme names colours as #rrggbb or as one of the 16
// ANSI names; what reaches the screen depends on the terminal's colour depth:
//   truecolor  #rrggbb as is (SGR 38;2;r;g;b)
//   256        the nearest of the standard xterm-256 entries 16–255 (6×6×6 cube + 24 greys)
//   16 / 8     the nearest of the first 16 / 8 ANSI colours
// Palette entries 0–15 are the terminal's own; their RGB here are xterm's defaults (what
// xterm, and most terminals' factory settings, show). A foreground is chosen among the entries
// that keep the contrast of the pair (WCAG 2 ratio, at least 4.5:1 when the theme's colours
// have it), nearest in OKLab to the theme's colour; so a light theme on an 8-colour terminal
// falls back to black, blue and red text instead of unreadable yellow on grey.

export type ColourDepth = 'truecolor' | 256 | 16 | 8;
export const DEPTHS: readonly ColourDepth[] = ['truecolor', 256, 16, 8];

export type RGB = readonly [number, number, number];

/** A colour as emitted: a palette index, an RGB triple (truecolor only), or the terminal default. */
export type Painted = { index: number } | { rgb: RGB } | { default: true };

/** xterm's default palette for the 16 ANSI colours. */
export const XTERM_16: readonly RGB[] = [
  [0x00, 0x00, 0x00],
  [0xcd, 0x00, 0x00],
  [0x00, 0xcd, 0x00],
  [0xcd, 0xcd, 0x00],
  [0x00, 0x00, 0xee],
  [0xcd, 0x00, 0xcd],
  [0x00, 0xcd, 0xcd],
  [0xe5, 0xe5, 0xe5],
  [0x7f, 0x7f, 0x7f],
  [0xff, 0x00, 0x00],
  [0x00, 0xff, 0x00],
  [0xff, 0xff, 0x00],
  [0x5c, 0x5c, 0xff],
  [0xff, 0x00, 0xff],
  [0x00, 0xff, 0xff],
  [0xff, 0xff, 0xff],
];

const CUBE = [0, 95, 135, 175, 215, 255];

/** RGB of an xterm-256 palette entry. */
export function paletteRgb(i: number): RGB {
  if (i < 16) return XTERM_16[i]!;
  if (i < 232) {
    const n = i - 16;
    return [CUBE[Math.floor(n / 36)]!, CUBE[Math.floor(n / 6) % 6]!, CUBE[n % 6]!];
  }
  const g = 8 + 10 * (i - 232);
  return [g, g, g];
}

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** Palette index of an ANSI colour name (light* = the bright variant), or undefined. */
export function namedIndex(name: string): number | undefined {
  if (name === 'gray' || name === 'grey') return 8;
  const light = name.startsWith('light');
  const i = NAMES.indexOf(light ? name.slice(5) : name);
  return i < 0 ? undefined : light ? i + 8 : i;
}

export function parseHex(c: string): RGB | undefined {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(c);
  return m ? [Number.parseInt(m[1]!, 16), Number.parseInt(m[2]!, 16), Number.parseInt(m[3]!, 16)] : undefined;
}

const lin = (c: number) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};

/** WCAG 2 relative luminance. */
export function luminance([r, g, b]: RGB): number {
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast(a: RGB, b: RGB): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function oklab([r, g, b]: RGB): [number, number, number] {
  const [lr, lg, lb] = [lin(r), lin(g), lin(b)];
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675778 * s,
  ];
}

/**
 * Perceptual distance (OKLab, squared), hue and chroma weighted ×4: with 8 or 16 entries to choose
 * from, a grey should stay grey and a green must not turn red just because red is as light.
 */
export function distance(a: RGB, b: RGB): number {
  const [x, y] = [oklab(a), oklab(b)];
  return (x[0] - y[0]) ** 2 + 4 * ((x[1] - y[1]) ** 2 + (x[2] - y[2]) ** 2);
}

/** The palette entries a hex colour may become at a depth (truecolor: none, it stays exact). */
function candidates(depth: ColourDepth): number[] {
  if (depth === 8) return [0, 1, 2, 3, 4, 5, 6, 7];
  if (depth === 16) return Array.from({ length: 16 }, (_, i) => i);
  if (depth === 256) return Array.from({ length: 240 }, (_, i) => i + 16);
  return [];
}

/** A named colour at a depth: 8-colour terminals have no bright variants. */
function namedAt(index: number, depth: ColourDepth): number {
  return depth === 8 && index >= 8 ? index - 8 : index;
}

export const rgbOf = (p: Painted): RGB | undefined =>
  'rgb' in p ? p.rgb : 'index' in p ? paletteRgb(p.index) : undefined;

function nearest(target: RGB, list: readonly number[]): number {
  let best = list[0]!;
  let bestD = Number.POSITIVE_INFINITY;
  for (const i of list) {
    const d = distance(target, paletteRgb(i));
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

export const MIN_CONTRAST = 4.5;

/** A theme colour used as a background. */
export function paintBg(colour: string | undefined, depth: ColourDepth): Painted {
  if (!colour || colour === 'default') return { default: true };
  const named = namedIndex(colour);
  if (named !== undefined) return { index: namedAt(named, depth) };
  const rgb = parseHex(colour);
  if (!rgb) return { default: true };
  return depth === 'truecolor' ? { rgb } : { index: nearest(rgb, candidates(depth)) };
}

/**
 * A theme foreground over an already painted background: the nearest entry that keeps the pair
 * at 4.5:1 or more, else the most readable entry.
 */
export function paintFg(fg: string | undefined, bg: Painted, depth: ColourDepth): Painted {
  if (!fg || fg === 'default') return { default: true };
  const named = namedIndex(fg);
  if (named !== undefined) return { index: namedAt(named, depth) };
  const rgb = parseHex(fg);
  if (!rgb) return { default: true };
  if (depth === 'truecolor') return { rgb };
  const list = candidates(depth);
  const under = rgbOf(bg);
  if (!under) return { index: nearest(rgb, list) };
  const ok = list.filter((i) => contrast(paletteRgb(i), under) >= MIN_CONTRAST);
  if (ok.length > 0) return { index: nearest(rgb, ok) };
  let best = list[0]!;
  for (const i of list) if (contrast(paletteRgb(i), under) > contrast(paletteRgb(best), under)) best = i;
  return { index: best };
}

/**
 * The palette entry for a background of a theme at 8 or 16 colours, where the nearest entry can
 * leave no readable colour near the text that sits on it (the dark theme's blue selection becomes
 * grey, on which only black passes): the entry that keeps the background and every foreground used
 * on it closest to the theme's colours, once the foregrounds are made readable, and other than the
 * screen's background (`avoid`) so a selected row stays visible. Elsewhere: nearest.
 */
export function paintBgFor(
  bg: string | undefined,
  fgs: readonly string[],
  depth: ColourDepth,
  avoid?: Painted,
): Painted {
  const plain = paintBg(bg, depth);
  const rgb = bg ? parseHex(bg) : undefined;
  if (!rgb || (depth !== 8 && depth !== 16) || fgs.length === 0) return plain;
  let best = plain;
  let bestCost = Number.POSITIVE_INFINITY;
  // A background the theme sets apart (a selected row) must not vanish into the screen's own.
  const taken = avoid && 'index' in avoid ? avoid.index : -1;
  for (const i of candidates(depth).filter((c) => c !== taken)) {
    const under: Painted = { index: i };
    let cost = fgs.length * distance(rgb, paletteRgb(i));
    for (const fg of fgs) {
      const want = parseHex(fg) ?? paletteRgb(namedIndex(fg) ?? 7);
      cost += distance(want, rgbOf(paintFg(fg, under, depth))!);
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = under;
    }
  }
  return best;
}

/** SGR parameters for a painted colour (`fg` true: foreground). */
export function sgrColour(p: Painted, fg: boolean): string {
  if ('default' in p) return fg ? '39' : '49';
  if ('rgb' in p) return `${fg ? 38 : 48};2;${p.rgb[0]};${p.rgb[1]};${p.rgb[2]}`;
  const i = p.index;
  if (i < 8) return String((fg ? 30 : 40) + i);
  if (i < 16) return String((fg ? 90 : 100) + i - 8);
  return `${fg ? 38 : 48};5;${i}`;
}
