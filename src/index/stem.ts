import porter2 from 'wink-porter2-stemmer';

// English stemming for the lexical index: Porter2 (the Snowball English stemmer), applied to
// documents and queries alike, so `questions`, `question` and `questioning` meet. A text's
// vocabulary is small next to its length, so each word's terms are memoised; the memo is dropped
// when it grows past a bound (a huge code base's identifiers must not pin memory).

const MEMO_LIMIT = 200_000;
/** Prefix of an exact (unstemmed) form; `=` is never part of a token, so no stem can collide. */
export const EXACT_PREFIX = '=';

/** A lowercase word's index terms: its stem, and its exact form (prefixed) when that differs. */
export interface WordTerms {
  stem: string;
  exact: string | undefined;
}

let memo = new Map<string, WordTerms>();

/** The terms of a lowercase ASCII word. */
export function wordTerms(word: string): WordTerms {
  let w = memo.get(word);
  if (w === undefined) {
    const stem = porter2(word);
    w = { stem, exact: stem === word ? undefined : EXACT_PREFIX + word };
    if (memo.size >= MEMO_LIMIT) memo = new Map();
    memo.set(word, w);
  }
  return w;
}

/** The Porter2 stem of a lowercase ASCII word. */
export function stemWord(word: string): string {
  return wordTerms(word).stem;
}
