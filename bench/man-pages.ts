import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

// The unrelated store of the crowding evaluation: real manual pages from this machine
// (/usr/share/man/man1, or KORTTY_EVAL_MAN_DIR), read in place and rendered to plain text by a
// small troff reader (pure): English prose about command-line tools, far from aeronautics but
// sharing its common words. The selection is deterministic for a given directory: the pages
// sorted by file name, taken at an even stride; pages are cut at MAX_PAGE_CHARS.

export const DEFAULT_MAN_DIR = '/usr/share/man/man1';
/** Longer pages are cut (at a line end): a few giant pages (compilers, shells) would otherwise
 * make most of the store. */
export const MAX_PAGE_CHARS = 24_000;

export interface ManPage {
  name: string;
  text: string;
}

const NAMED: Record<string, string> = {
  em: '-',
  en: '-',
  aq: "'",
  dq: '"',
  lq: '"',
  rq: '"',
  bu: '*',
  co: '(c)',
};

/** Inline escapes: fonts and sizes dropped, named characters spelled, `\X` → X. */
function inline(s: string): string {
  return s
    .replace(/\\f(?:\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\s[+-]?\d+/g, '')
    .replace(/\\\*(?:\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\\((..)/g, (_, n: string) => NAMED[n] ?? '')
    .replace(/\\\[([^\]]*)\]/g, (_, n: string) => NAMED[n] ?? '')
    .replace(/\\[&c%:,/^|)]/g, '')
    .replace(/\\e/g, '\\')
    .replace(/\\(.)/g, '$1');
}

/** The text of a troff man page, or undefined for a `.so` redirect to another page. */
export function renderManPage(troff: string): string | undefined {
  const out: string[] = [];
  for (const raw of troff.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^\.\s*so\s/.test(line)) return undefined;
    if (/^\.\s*\\"/.test(line) || /^'\\"/.test(line)) continue;
    const macro = /^[.']\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!macro) {
      out.push(inline(line));
      continue;
    }
    const [, name, rest] = macro;
    const args = (rest ?? '').match(/"[^"]*"|\S+/g)?.map((a) => a.replace(/^"|"$/g, '')) ?? [];
    switch (name) {
      case 'SH':
      case 'SS':
        out.push('', inline(args.join(' ')).toUpperCase());
        break;
      case 'B':
      case 'I':
      case 'SM':
        out.push(inline(args.join(' ')));
        break;
      case 'BR':
      case 'BI':
      case 'IB':
      case 'IR':
      case 'RB':
      case 'RI':
        out.push(inline(args.join('')));
        break;
      case 'PP':
      case 'LP':
      case 'P':
      case 'TP':
      case 'sp':
        out.push('');
        break;
      case 'IP':
        out.push('', inline(args[0] ?? ''));
        break;
      case 'TH':
        out.push(inline(`${args[0] ?? ''}(${args[1] ?? ''})`));
        break;
      default:
        break; // layout requests (.nf, .RS, .if, .de, ...) carry no text worth indexing
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/** Cut at the last line end before `max` characters. */
export function capText(text: string, max = MAX_PAGE_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  return `${text.slice(0, cut > 0 ? cut : max)}\n`;
}

/** `count` rendered pages of `dir` (gzip or plain troff), evenly spread over the sorted names, cut at `maxChars`. */
export async function loadManPages(
  count: number,
  dir = process.env.KORTTY_EVAL_MAN_DIR ?? DEFAULT_MAN_DIR,
  maxChars = MAX_PAGE_CHARS,
): Promise<ManPage[]> {
  // The Cloud SDK installs some 16,000 generated `gcloud_*` subcommand pages, which would make
  // nearly the whole sample one tool's reference: they are left out.
  const files = (await readdir(dir))
    .filter((f) => /\.\d\w*(\.gz)?$/.test(f) && !f.startsWith('gcloud'))
    .sort();
  const out: ManPage[] = [];
  const names = new Set<string>();
  const stride = Math.max(1, Math.floor(files.length / count));
  // Every stride-th page first; redirects and stubs are replaced by their neighbours.
  const order: string[] = [];
  for (let offset = 0; offset < stride; offset++)
    for (let j = offset; j < files.length; j += stride) order.push(files[j]!);
  for (const f of order) {
    if (out.length >= count) break;
    const name = f.replace(/\.gz$/, '').replace(/\.\d\w*$/, '');
    if (names.has(name)) continue;
    const bytes = await readFile(join(dir, f));
    const text = renderManPage((f.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
    if (!text || text.length < 200) continue;
    names.add(name);
    out.push({ name, text: capText(text, maxChars) });
  }
  if (out.length < count) throw new Error(`${dir}: only ${out.length} usable man pages, ${count} wanted`);
  return out;
}
