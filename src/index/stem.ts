import porter2 from 'wink-porter2-stemmer';

// English stemming for the lexical index: Porter2 (the Snowball English stemmer), applied to
// documents and queries alike, so `questions`, `question` and `questioning` meet. A text's
// vocabulary is small next to its length, so stems are memoised; the memo is dropped when it
// grows past a bound (a huge code base's identifiers must not pin memory).

const MEMO_LIMIT = 200_000;
let memo = new Map<string, string>();

/** The Porter2 stem of a lowercase ASCII word. */
export function stemWord(word: string): string {
  let s = memo.get(word);
  if (s === undefined) {
    s = porter2(word);
    if (memo.size >= MEMO_LIMIT) memo = new Map();
    memo.set(word, s);
  }
  return s;
}
