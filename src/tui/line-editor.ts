// One-line text editing as in readline (and so in bash, zsh, Python's REPL…): a pure model,
// (text, cursor) + key → (text, cursor). The cursor is a string index that always sits on a
// grapheme boundary, so 👍🏽 or é (e + U+0301) move and delete as one character. Killed text goes
// to one kill buffer that C-y yanks back.
//
//   C-a home  start of line        C-e end    end of line
//   C-b left  back a character     C-f right  forward a character
//   M-b       back a word          M-f        forward a word (words: letters and digits)
//   C-h bksp  delete back          C-d delete delete forward
//   C-w       kill the previous whitespace-separated word (unix-word-rubout)
//   M-bksp    kill back to the start of a word          M-d  kill to the end of a word
//   C-u       kill to the start of the line             C-k  kill to the end of the line
//   C-y       yank the last kill

/** The editing keys for the help overlay (they are the same in every keymap). */
export const EDIT_KEYS: { keys: string; description: string }[] = [
  { keys: 'ctrl-a, home', description: 'Start of the line' },
  { keys: 'ctrl-e, end', description: 'End of the line' },
  { keys: 'ctrl-b, ←', description: 'Back a character' },
  { keys: 'ctrl-f, →', description: 'Forward a character' },
  { keys: 'alt-b, alt-f', description: 'Back / forward a word' },
  { keys: 'ctrl-w', description: 'Delete the word before the cursor' },
  { keys: 'alt-bksp, alt-d', description: 'Delete to the start / end of a word' },
  { keys: 'ctrl-u, ctrl-k', description: 'Delete to the start / end of the line' },
  { keys: 'ctrl-y', description: 'Paste what was deleted last' },
];

export interface LineState {
  text: string;
  cursor: number;
}

export interface EditKey {
  /** neo-blessed's key name: "C-a", "M-b", "left", "backspace"… */
  full: string;
  /** The character typed, for printable keys. */
  ch?: string;
}

export interface EditResult extends LineState {
  /** The kill buffer after the edit. */
  kill: string;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Grapheme boundaries of the text: 0, …, text.length. */
function boundaries(text: string): number[] {
  const out = [0];
  for (const { index, segment } of segmenter.segment(text)) out.push(index + segment.length);
  if (text.length === 0) return [0];
  return out;
}

const prevStop = (b: number[], i: number) => b.findLast((x) => x < i) ?? 0;
const nextStop = (b: number[], i: number) => b.find((x) => x > i) ?? b.at(-1)!;

const isWord = (g: string) => /[\p{L}\p{N}\p{M}_]/u.test(g);

function graphemesOf(text: string): { at: number; g: string }[] {
  return [...segmenter.segment(text)].map((s) => ({ at: s.index, g: s.segment }));
}

/** Start of the word before the cursor (skipping non-word characters first), readline's M-b. */
function wordBack(text: string, cursor: number, word: (g: string) => boolean): number {
  const gs = graphemesOf(text).filter((x) => x.at < cursor);
  let i = gs.length - 1;
  while (i >= 0 && !word(gs[i]!.g)) i--;
  while (i >= 0 && word(gs[i]!.g)) i--;
  return i < 0 ? 0 : gs[i + 1]!.at;
}

/** End of the word after the cursor (skipping non-word characters first), readline's M-f. */
function wordForward(text: string, cursor: number): number {
  const gs = graphemesOf(text).filter((x) => x.at >= cursor);
  let i = 0;
  while (i < gs.length && !isWord(gs[i]!.g)) i++;
  while (i < gs.length && isWord(gs[i]!.g)) i++;
  return i >= gs.length ? text.length : gs[i]!.at;
}

const notSpace = (g: string) => !/\s/u.test(g);

/** Clamps a cursor onto a grapheme boundary of the text. */
export function clampCursor(text: string, cursor: number | undefined): number {
  if (cursor === undefined || cursor >= text.length) return text.length;
  const b = boundaries(text);
  return b.findLast((x) => x <= Math.max(0, cursor)) ?? 0;
}

/**
 * The state after `key`, or undefined when the key is not an editing key (the caller then looks
 * it up in the keymap: enter, tab, escape…).
 */
export function editLine(s: LineState, key: EditKey, kill = ''): EditResult | undefined {
  const { text } = s;
  const cursor = clampCursor(text, s.cursor);
  const b = boundaries(text);
  const at = (c: number): EditResult => ({ text, cursor: c, kill });
  const cut = (from: number, to: number, keep = true): EditResult => ({
    text: text.slice(0, from) + text.slice(to),
    cursor: from,
    kill: keep && to > from ? text.slice(from, to) : kill,
  });
  const ch = key.ch;
  const printable =
    ch !== undefined &&
    ch.length > 0 &&
    !/^[CM]-/.test(key.full) &&
    !/[\u0000-\u001f\u007f]/.test(ch) &&
    key.full !== 'enter' &&
    key.full !== 'return' &&
    key.full !== 'tab';
  if (printable)
    return { text: text.slice(0, cursor) + ch + text.slice(cursor), cursor: cursor + ch.length, kill };
  switch (key.full) {
    case 'C-a':
    case 'home':
      return at(0);
    case 'C-e':
    case 'end':
      return at(text.length);
    case 'C-b':
    case 'left':
      return at(prevStop(b, cursor));
    case 'C-f':
    case 'right':
      return at(nextStop(b, cursor));
    case 'M-b':
    case 'M-left':
    case 'C-left':
      return at(wordBack(text, cursor, isWord));
    case 'M-f':
    case 'M-right':
    case 'C-right':
      return at(wordForward(text, cursor));
    case 'backspace':
    case 'C-h':
      return cut(prevStop(b, cursor), cursor, false);
    case 'delete':
    case 'C-d':
      return cut(cursor, nextStop(b, cursor), false);
    case 'C-w':
      return cut(wordBack(text, cursor, notSpace), cursor);
    case 'M-backspace':
    case 'M-delete':
      return cut(wordBack(text, cursor, isWord), cursor);
    case 'M-d':
      return cut(cursor, wordForward(text, cursor));
    case 'C-u':
      return cut(0, cursor);
    case 'C-k':
      return cut(cursor, text.length);
    case 'C-y':
      return { text: text.slice(0, cursor) + kill + text.slice(cursor), cursor: cursor + kill.length, kill };
    default:
      return undefined;
  }
}
