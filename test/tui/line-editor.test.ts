import test from 'ava';
import { clampCursor, editLine } from '../../src/tui/line-editor.js';

// The line editor as a table: text with the cursor shown as "|", a key, the expected text with
// its cursor (and the kill buffer where it matters). Keys are neo-blessed's names.

const parse = (s: string) => ({ text: s.replace('|', ''), cursor: s.indexOf('|') });
const show = (r: { text: string; cursor: number }) =>
  `${r.text.slice(0, r.cursor)}|${r.text.slice(r.cursor)}`;
const key = (full: string) => (full.length === 1 ? { full, ch: full } : { full });

const CASES: [string, string, string, string?][] = [
  // typing and moving
  ['|', 'a', 'a|'],
  ['ab|', 'S-c', 'ab|'], // S-c alone has no character: not typed
  ['a|c', 'b', 'ab|c'],
  ['hello world|', 'C-a', '|hello world'],
  ['hello world|', 'home', '|hello world'],
  ['|hello world', 'C-e', 'hello world|'],
  ['|hello world', 'end', 'hello world|'],
  ['abc|', 'left', 'ab|c'],
  ['abc|', 'C-b', 'ab|c'],
  ['a|bc', 'right', 'ab|c'],
  ['a|bc', 'C-f', 'ab|c'],
  ['|abc', 'left', '|abc'],
  ['abc|', 'right', 'abc|'],
  // graphemes move and delete as one
  ['x👍🏽|', 'left', 'x|👍🏽'],
  ['x|👍🏽', 'right', 'x👍🏽|'],
  ['cafe\u0301|', 'backspace', 'caf|'],
  ['a👨‍👩‍👧|b', 'backspace', 'a|b'],
  ['a|👨‍👩‍👧b', 'delete', 'a|b'],
  ['a|👨‍👩‍👧b', 'C-d', 'a|b'],
  // words: letters and digits (M-b, M-f, M-d, M-backspace); whitespace (C-w)
  ['the /usr/local/share dir|', 'M-b', 'the /usr/local/share |dir'],
  ['the /usr/local/share |dir', 'M-b', 'the /usr/local/|share dir'],
  ['the /usr/local/share |dir', 'C-left', 'the /usr/local/|share dir'],
  ['|the /usr/local', 'M-f', 'the| /usr/local'],
  ['the| /usr/local', 'M-f', 'the /usr|/local'],
  ['the| /usr/local', 'M-right', 'the /usr|/local'],
  ['naïve 日本語 text|', 'M-b', 'naïve 日本語 |text'],
  ['naïve 日本語 |text', 'M-b', 'naïve |日本語 text'],
  ['the /usr/local/share|', 'C-w', 'the |', '/usr/local/share'],
  ['the /usr/local/share  |', 'C-w', 'the |', '/usr/local/share  '],
  ['the /usr/local/share|', 'M-backspace', 'the /usr/local/|', 'share'],
  ['|the /usr/local', 'M-d', '| /usr/local', 'the'],
  ['the| /usr/local', 'M-d', 'the|/local', ' /usr'],
  // lines
  ['a long query to clear|', 'C-u', '|', 'a long query to clear'],
  ['keep |this', 'C-u', '|this', 'keep '],
  ['keep |this', 'C-k', 'keep |', 'this'],
];

test('line editor: readline keys, table', (t) => {
  for (const [before, k, after, killed] of CASES) {
    const r = editLine(parse(before), key(k));
    if (k === 'S-c') {
      t.is(r, undefined, 'a key without a character is not an edit');
      continue;
    }
    t.truthy(r, `${before} ${k}`);
    t.is(show(r!), after, `${JSON.stringify(before)} + ${k}`);
    if (killed !== undefined) t.is(r!.kill, killed, `${before} + ${k}: kill buffer`);
  }
});

test('line editor: C-y yanks the last kill; moves and plain deletes keep the kill buffer', (t) => {
  let s = editLine(parse('alpha beta|'), key('C-w'))!;
  t.is(show(s), 'alpha |');
  s = editLine(s, key('C-a'), s.kill)!;
  t.is(s.kill, 'beta');
  s = editLine(s, key('backspace'), s.kill)!;
  t.is(s.kill, 'beta');
  s = editLine(s, key('C-y'), s.kill)!;
  t.is(show(s), 'beta|alpha ');
});

test('line editor: keys that are not editing keys are left to the keymap', (t) => {
  for (const k of [
    'enter',
    'tab',
    'S-tab',
    'escape',
    'up',
    'down',
    'pageup',
    'C-c',
    'C-x',
    'C-n',
    'f1',
    'M-x',
  ])
    t.is(
      editLine(parse('ab|c'), {
        full: k,
        ...(k === 'enter' ? { ch: '\r' } : k === 'tab' ? { ch: '\t' } : {}),
      }),
      undefined,
      k,
    );
  t.is(clampCursor('a👍🏽b', 2), 1, 'a cursor inside a grapheme moves to its start');
  t.is(clampCursor('abc', undefined), 3);
  t.is(clampCursor('abc', 99), 3);
});
