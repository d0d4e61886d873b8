import { stemWord } from './stem.js';
import { STOP_WORDS } from './tokenize.js';

// One walk over a re-ranked chunk's words for the signals that need positions: proximity
// (proximity.ts) and the best paragraph (passage.ts) read the same occurrences. The walk runs on
// every re-ranked hit of every query, so it reads words with one plain pattern instead of the full
// tokenizer: positions are words (a camelCase identifier is one, which only shifts distances inside
// identifiers), stop words are skipped, letter words are stemmed. Paragraphs end at blank lines.

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
// The same words in ASCII text, where the Unicode classes are letters and digits: several times faster.
const ASCII_WORD = /[A-Za-z0-9]+/g;
const ASCII = /^[\x00-\x7f]*$/;
const BREAK = /\n[ \t]*\n/g;
const LETTERS = /^[a-z]+$/;

/** The occurrences of some terms in a text, in order. */
export interface TermWalk {
  terms: string[];
  /** Word position of each occurrence. */
  positions: number[];
  /** Paragraph (from 0) of each occurrence. */
  paragraphs: number[];
  /** Words per paragraph (paragraphs without words are not counted). */
  paragraphLengths: number[];
}

/** The occurrences of `wanted`'s terms in `text`. */
export function walkTerms(
  text: string,
  wanted: ReadonlyMap<string, unknown> | ReadonlySet<string>,
): TermWalk {
  const walk: TermWalk = { terms: [], positions: [], paragraphs: [], paragraphLengths: [] };
  const breaks: number[] = [];
  BREAK.lastIndex = 0;
  for (let m = BREAK.exec(text); m !== null; m = BREAK.exec(text)) breaks.push(m.index);
  const word = ASCII.test(text) ? ASCII_WORD : WORD;
  let next = 0;
  let len = 0;
  let pos = -1;
  word.lastIndex = 0;
  for (let m = word.exec(text); m !== null; m = word.exec(text)) {
    if (next < breaks.length && m.index > breaks[next]!) {
      if (len > 0) walk.paragraphLengths.push(len);
      len = 0;
      while (next < breaks.length && m.index > breaks[next]!) next++;
    }
    const lower = m[0].toLowerCase();
    if (STOP_WORDS.has(lower)) continue;
    pos++;
    len++;
    const term = LETTERS.test(lower) ? stemWord(lower) : lower;
    if (!wanted.has(term)) continue;
    walk.terms.push(term);
    walk.positions.push(pos);
    walk.paragraphs.push(walk.paragraphLengths.length);
  }
  if (len > 0) walk.paragraphLengths.push(len);
  return walk;
}
