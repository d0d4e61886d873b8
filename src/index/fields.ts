// The lexical fields of a chunk besides its body (pure). Both are derived from what a snapshot
// stores (a document's path and format, its chunk texts), so an index can be rebuilt from any
// snapshot and the files need no extra section for them:
//   title:    the document's title, on every chunk of the document: the file name without its
//             suffix (`tar.1.txt` → `tar`), plus the first title line of the document's first
//             chunk: a man page's NAME line (`tar - an archiving utility`), else the first
//             Markdown heading, else (plain text, PDF, Word) the first line when it is short;
//   headings: the chunk's own heading lines (Markdown `#` and underlined headings, and man-page
//             style section lines in capitals at the left margin).
// A chunk's text stays its body, headings included: the fields add weight, they take none away.

const TITLE_LINE_MAX = 120;
/** Formats whose first short line is usually a title (a PDF's or a note's first line). */
const FIRST_LINE_TITLE = new Set(['text', 'pdf', 'docx']);
const ATX = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const CAPS_SECTION = /^[A-Z][A-Z0-9 ,/_()-]{1,48}$/;
const MAN_NAME = /^[ \t]*NAME[ \t]*$/;

/** `dir/tar.1.txt` → `tar`: the base name without its suffix and a man-page section suffix. */
export function fileStem(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const noExt = dot > 0 ? base.slice(0, dot) : base;
  return noExt.replace(/\.\d[a-z]*$/i, '');
}

/** The first non-blank line after a man page's NAME heading, '' when there is none. */
function manNameLine(lines: readonly string[]): string {
  const at = lines.findIndex((l) => MAN_NAME.test(l));
  return at >= 0 ? (lines.slice(at + 1).find((l) => l.trim() !== '') ?? '') : '';
}

/** The document's title text (see above) from its path, format and first chunk's text. */
export function documentTitle(path: string, format: string, firstChunk: string): string {
  const lines = firstChunk.split('\n', 200);
  let line = manNameLine(lines);
  if (line === '') line = lines.map((l) => ATX.exec(l)?.[1]).find((h) => h !== undefined) ?? '';
  if (line === '' && FIRST_LINE_TITLE.has(format)) line = lines.find((l) => l.trim() !== '') ?? '';
  line = line.trim();
  return line.length > 0 && line.length <= TITLE_LINE_MAX ? `${fileStem(path)}\n${line}` : fileStem(path);
}

const NAME_LIST = /^\s*([\w.+-]+(?:\s*,\s*[\w.+-]+)*)\s+(?:-|\\-|—|–)\s/;

/**
 * The names a document answers to (lowercase), for the name match (bm25.ts): its file stem first,
 * then the names a man page's NAME line lists (`bzip2, bunzip2 - a block-sorting file compressor`).
 */
export function documentNames(path: string, firstChunk: string): string[] {
  const names = new Set([fileStem(path).toLowerCase()]);
  // A NAME section opens its page: the first 4 KiB hold it, and reading no more keeps the name
  // table of a 10,000-document store cheap to build.
  const list = NAME_LIST.exec(manNameLine(firstChunk.slice(0, 4096).split('\n', 200)))?.[1];
  for (const name of list?.split(',') ?? []) names.add(name.trim().toLowerCase());
  return [...names];
}

/** The chunk's heading lines, joined by newlines ('' when it has none). */
export function chunkHeadings(text: string): string {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const atx = ATX.exec(l);
    if (atx) out.push(atx[1]!);
    else if (CAPS_SECTION.test(l) && /[A-Z]{2}/.test(l)) out.push(l);
    else if (l.trim() !== '' && SETEXT_UNDERLINE.test(lines[i + 1] ?? '') && !SETEXT_UNDERLINE.test(l))
      out.push(l);
  }
  return out.join('\n');
}
