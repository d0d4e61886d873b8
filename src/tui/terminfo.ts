import { join } from 'node:path';
import type { ColourDepth } from './colour.js';

// How many colours the terminal shows. neo-blessed 0.2 reads only the legacy terminfo format, so
// entries compiled by ncurses ≥ 6.1 (tmux-256color, xterm-256color: 32-bit numbers) fall back to
// 8 colours there. This reads the terminfo database itself, both formats, as `tput colors` does,
// and adds the usual true-colour signals (COLORTERM, the RGB/Tc capability, a -direct entry).
// Pure; reading the database is terminfo-file.ts.

export interface TerminfoCaps {
  names: string[];
  /** max_colors; -1 when the entry has none (like `tput colors`). */
  colors: number;
  /** Direct colour: the extended RGB or Tc capability. */
  rgb: boolean;
}

const LEGACY = 0o432;
const EXTENDED = 0o1036;
const MAX_COLORS = 13;

/** Parses a compiled terminfo entry (term(5)); undefined when it is not one. */
export function parseTerminfo(buf: Uint8Array): TerminfoCaps | undefined {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 12) return undefined;
  const s16 = (o: number) => dv.getInt16(o, true);
  const magic = s16(0);
  if (magic !== LEGACY && magic !== EXTENDED) return undefined;
  const numSize = magic === EXTENDED ? 4 : 2;
  const readNum = (o: number) => (numSize === 4 ? dv.getInt32(o, true) : s16(o));
  const [nameSize, boolCount, numCount, strCount, strTableSize] = [2, 4, 6, 8, 10].map(s16) as number[];
  if ([nameSize, boolCount, numCount, strCount, strTableSize].some((n) => n! < 0)) return undefined;
  let o = 12;
  const names = new TextDecoder('latin1').decode(buf.subarray(o, o + nameSize! - 1)).split('|');
  o += nameSize! + boolCount!;
  if (o % 2) o++;
  const numbersAt = o;
  const colors = numCount! > MAX_COLORS ? readNum(numbersAt + MAX_COLORS * numSize) : -1;
  o += numCount! * numSize + strCount! * 2 + strTableSize!;
  if (o % 2) o++;
  let rgb = false;
  // Extended (user-defined) capabilities follow: booleans, numbers and strings by name.
  if (o + 10 <= buf.byteLength) {
    const [eb, en, es, , etSize] = [0, 2, 4, 6, 8].map((k) => s16(o + k)) as number[];
    if (eb! >= 0 && en! >= 0 && es! >= 0 && etSize! >= 0) {
      let p = o + 10;
      const boolsAt = p;
      p += eb!;
      if (p % 2) p++;
      const numsAt = p;
      p += en! * numSize;
      const strOffsAt = p;
      p += es! * 2;
      const nameOffsAt = p;
      p += (eb! + en! + es!) * 2;
      const table = buf.subarray(p, p + etSize!);
      const cstr = (at: number) => {
        let end = at;
        while (end < table.length && table[end] !== 0) end++;
        return new TextDecoder('latin1').decode(table.subarray(at, end));
      };
      // The names follow the string values in the table.
      let namesBase = 0;
      for (let i = 0; i < es!; i++) {
        const off = s16(strOffsAt + i * 2);
        if (off >= 0) namesBase = Math.max(namesBase, off + cstr(off).length + 1);
      }
      for (let i = 0; i < eb! + en! + es!; i++) {
        const name = cstr(namesBase + s16(nameOffsAt + i * 2));
        if (name !== 'RGB' && name !== 'Tc') continue;
        if (i < eb!) rgb ||= buf[boolsAt + i] === 1;
        else if (i < eb! + en!) rgb ||= readNum(numsAt + (i - eb!) * numSize) >= 0;
        else rgb ||= s16(strOffsAt + (i - eb! - en!) * 2) >= 0;
      }
    }
  }
  return { names, colors, rgb };
}

/** Where ncurses looks for an entry, in its order. */
export function terminfoDirs(env: NodeJS.ProcessEnv, home: string): string[] {
  const defaults = ['/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/usr/lib/terminfo'];
  const dirs: string[] = [];
  if (env.TERMINFO) dirs.push(env.TERMINFO);
  dirs.push(join(home, '.terminfo'));
  if (env.TERMINFO_DIRS)
    for (const d of env.TERMINFO_DIRS.split(':')) dirs.push(...(d === '' ? defaults : [d]));
  dirs.push(...defaults);
  return [...new Set(dirs)];
}

const OVERRIDE: Record<string, ColourDepth> = {
  truecolor: 'truecolor',
  '24bit': 'truecolor',
  '256': 256,
  '16': 16,
  '8': 8,
};

/**
 * The colour depth to paint with. KORTTY_COLORS (truecolor, 256, 16, 8) overrides; then
 * COLORTERM=truecolor|24bit; then the terminfo entry of $TERM (RGB/Tc or max_colors); without an
 * entry, the TERM name's suffix (-direct, -256color, -16color). Terminals with fewer than 8 colours
 * get 8: a terminal without colour ignores the sequences.
 */
export function colourDepth(env: NodeJS.ProcessEnv, caps: TerminfoCaps | undefined): ColourDepth {
  const forced = OVERRIDE[(env.KORTTY_COLORS ?? '').toLowerCase()];
  if (forced) return forced;
  const ct = (env.COLORTERM ?? '').toLowerCase();
  if (ct === 'truecolor' || ct === '24bit') return 'truecolor';
  const term = env.TERM ?? '';
  if (caps) {
    if (caps.rgb || caps.colors >= 0x1000000) return 'truecolor';
    if (caps.colors >= 256) return 256;
    if (caps.colors >= 16) return 16;
    return 8;
  }
  if (/-(direct|truecolor|24bit)$/.test(term)) return 'truecolor';
  if (/-256colou?r$/.test(term)) return 256;
  if (/-(16|88)colou?r$/.test(term)) return 16;
  return 8;
}
