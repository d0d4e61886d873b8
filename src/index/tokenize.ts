// Lexical tokens for BM25, the same for documents and queries:
// - NFKC then lowercase, so full-width letters and ligatures match their plain forms;
// - a token is a maximal run of letters, digits and combining marks (`_` and punctuation split,
//   so `atomic_write` matches "atomic write"; `readIndex` stays one token `readindex`);
// - Han, Hiragana and Katakana have no spaces between words: each character is its own token;
// - a short English stop list: those words are in nearly every chunk, carry almost no IDF weight,
//   and would make the longest posting lists of the index;
// - tokens longer than 64 characters (base64, hashes, minified code) are dropped.
// No stemming: code identifiers and names matter more here than English morphology.

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const CJK_CHAR = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+/gu;
const ASCII = /^[\x00-\x7f]*$/;
export const MAX_TOKEN_LENGTH = 64;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for from has have he in is it its not of on or that the their ' +
    'there these they this to was were which will with'
  ).split(' '),
);

/** Call `emit` for every token of `text`, in order. */
export function forEachToken(text: string, emit: (token: string) => void): void {
  // Pure ASCII (most of a code base) needs neither NFKC nor the CJK split.
  const ascii = ASCII.test(text);
  const norm = (ascii ? text : text.normalize('NFKC')).toLowerCase();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(norm); m !== null; m = WORD.exec(norm)) {
    const tok = m[0];
    if (tok.length > MAX_TOKEN_LENGTH) continue;
    if (!ascii && CJK.test(tok)) {
      for (const part of tok.match(CJK_CHAR) ?? []) {
        if (part.length <= MAX_TOKEN_LENGTH && !STOP_WORDS.has(part)) emit(part);
      }
    } else if (!STOP_WORDS.has(tok)) {
      emit(tok);
    }
  }
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
}
