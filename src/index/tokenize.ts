import { wordTerms } from './stem.js';

// Lexical terms for BM25, the same for documents and queries (the query side adds weights in
// bm25.ts). Text is NFKC-normalised (full-width letters and ligatures match their plain forms).
//
// A *compound* is a maximal run of letters, digits, marks and the joiners `_ . / -`, with joiners
// trimmed at both ends (`tar:` → `tar`, `/usr/bin/` → `usr/bin`), except that one or two leading
// hyphens before a letter stay: that is a flag (`-avz`, `--delete`). A compound is split into
// *parts* at the joiners and at camelCase boundaries (`readIndex` → read, index; `HTTPServer` →
// http, server). Each part takes one position (what proximity and the document length count) and
// is indexed as its stem (Porter2, English), plus its exact lowercase form prefixed with `=` when
// that differs from the stem, so an exact match can weigh more than a stem match. A compound of
// several parts, or a flag, is also indexed whole, unstemmed (`snake_case`, `os.path.join`,
// `usr/bin/tar`, `--delete`, `-avz`), at its first part's position. Error codes stay whole: a code
// is one part (`ENOENT`, `E0425`), and `HTTP 502` (http or https then a status number) adds the
// term `http 502`.
//
// Han, Hiragana and Katakana have no spaces between words: each character is its own part.
// A short English stop list: those words are in nearly every chunk, carry almost no IDF weight
// and would make the longest posting lists (a stop word inside a compound still counts for the
// whole). Terms longer than 64 characters (base64, hashes, minified code) are dropped.

const COMPOUND = /[\p{L}\p{N}\p{M}_./-]+/gu;
const JOINER_EDGES = /^[_./-]+|[_./-]+$/g;
const FLAG = /^-{1,2}(?=\p{L})/u;
const PARTS = /[\p{L}\p{N}\p{M}]+/gu;
// camelCase boundaries: lower or digit → upper, and an acronym's last capital before a lowercase
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const CJK_CHAR = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+/gu;
const ASCII = /^[\x00-\x7f]*$/;
const LETTERS = /^[a-z]+$/;
const HTTP_STATUS = /^[1-5]\d\d$/;
export const MAX_TOKEN_LENGTH = 64;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for from has have he in is it its not of on or that the their ' +
    'there these they this to was were which will with'
  ).split(' '),
);

/**
 * Receives each term in order. `position` counts parts from 0; `primary` is true for exactly one
 * term per position (the part's stem): the term proximity looks at. Whole compounds and exact
 * forms are extra terms at an existing position.
 */
export type TermSink = (term: string, position: number, primary: boolean) => void;

/** What one compound contributes, computed once per distinct compound (texts repeat words). */
interface Compound {
  terms: string[];
  /** Position of each term relative to the compound's first part. */
  at: number[];
  primary: boolean[];
  positions: number;
  /** The first part (lowercase), '' when none: the `HTTP 502` rule looks across compounds. */
  first: string;
  /** The last part, '' when it was a stop word, undefined when the compound has no part. */
  last: string | undefined;
}

const MEMO_LIMIT = 100_000;
let memo = new Map<string, Compound>();

function analyse(raw: string): Compound {
  const c: Compound = { terms: [], at: [], primary: [], positions: 0, first: '', last: undefined };
  const emit = (term: string, at: number, primary: boolean) => {
    c.terms.push(term);
    c.at.push(at);
    c.primary.push(primary);
  };
  const part = (piece: string) => {
    const lower = piece.toLowerCase();
    if (c.last === undefined) c.first = lower;
    if (lower.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(lower)) {
      c.last = '';
      return;
    }
    if ((c.last === 'http' || c.last === 'https') && HTTP_STATUS.test(lower))
      emit(`http ${lower}`, c.positions - 1, false);
    c.last = lower;
    if (LETTERS.test(lower)) {
      const w = wordTerms(lower);
      emit(w.stem, c.positions, true);
      if (w.exact !== undefined) emit(w.exact, c.positions, false);
    } else {
      emit(lower, c.positions, true);
    }
    c.positions++;
  };
  // Most words of a text are plain lowercase: one part, nothing to split or trim.
  if (LETTERS.test(raw)) {
    part(raw);
    return c;
  }
  const flag = FLAG.exec(raw)?.[0] ?? '';
  const core = raw.slice(flag.length).replace(JOINER_EDGES, '');
  if (core === '') return c;
  const pieces: string[] = [];
  let cjk = false;
  PARTS.lastIndex = 0;
  for (let p = PARTS.exec(core); p !== null; p = PARTS.exec(core)) {
    const word = p[0];
    if (CJK.test(word)) {
      cjk = true;
      pieces.push(...(word.match(CJK_CHAR) ?? []));
    } else if (CAMEL.test(word)) pieces.push(...word.split(CAMEL));
    else pieces.push(word);
  }
  // A run of CJK text is a phrase, not an identifier: its characters are its terms.
  if (!cjk && (flag !== '' || pieces.length > 1)) {
    const whole = (flag + core).toLowerCase();
    if (whole.length <= MAX_TOKEN_LENGTH) emit(whole, 0, false);
  }
  for (const piece of pieces) part(piece);
  return c;
}

/** Call `emit` for every term of `text`; returns the number of positions (the text's length). */
export function forEachTerm(text: string, emit: TermSink): number {
  const norm = ASCII.test(text) ? text : text.normalize('NFKC');
  let pos = 0;
  let prev = '';
  COMPOUND.lastIndex = 0;
  for (let m = COMPOUND.exec(norm); m !== null; m = COMPOUND.exec(norm)) {
    const raw = m[0];
    let c = memo.get(raw);
    if (c === undefined) {
      c = analyse(raw);
      if (memo.size >= MEMO_LIMIT) memo = new Map();
      memo.set(raw, c);
    }
    if (c.last === undefined) continue;
    if ((prev === 'http' || prev === 'https') && c.positions > 0 && HTTP_STATUS.test(c.first))
      emit(`http ${c.first}`, pos - 1, false);
    const { terms, at, primary } = c;
    for (let i = 0; i < terms.length; i++) emit(terms[i]!, pos + at[i]!, primary[i]!);
    pos += c.positions;
    prev = c.last;
  }
  return pos;
}

/** The terms of `text` in order (every kind: stems, exact forms, wholes). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}
