import test from 'ava';
import fc from 'fast-check';
import { sanitize as tuiSanitize } from '../../src/tui/text.js';
import {
  createTerminalSanitizer,
  escapeForJson,
  sanitizeLine,
  sanitizeTerminal,
} from '../../src/util/terminal-text.js';

// The one terminal sanitizer: what it keeps, what it makes visible, its stream form (any cut of
// the input gives the same output) and its JSON form (still valid JSON, same value).

const ESC = '\x1b';
const FLAG_SCOTLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';

// Everything a terminal acts on, or that hides or reorders text.
const DANGEROUS =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u00AD\u2028\u2029\u3164]/u;

test('C0, DEL, C1 and escape sequences become visible text; LF and TAB stay', (t) => {
  const osc52 = `${ESC}]52;c;cm0gLXJmIH4=\x07`;
  const title = `${ESC}]0;pwned\x07`;
  const clear = `${ESC}[2J${ESC}[H`;
  const c1 = '\u009b2J\u009d0;t\u009c';
  const out = sanitizeTerminal(`a\tb\n${osc52}${title}${clear}${c1}\x00\x7f`);
  t.is(
    out,
    'a\tb\n\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x9b2J\\x9d0;t\\x9c\\x00\\x7f',
  );
  t.false(DANGEROUS.test(out));
});

test('CR: CRLF becomes LF, a lone CR (overwrites the line) is visible', (t) => {
  t.is(sanitizeTerminal('one\r\ntwo\rrm -rf ~\r\n'), 'one\ntwo\\x0drm -rf ~\n');
});

test('invisible and reordering characters are visible; ZWJ/ZWNJ and emoji flags are kept', (t) => {
  t.is(sanitizeTerminal('safe\u202Etxt.exe'), 'safe\\u202etxt.exe');
  t.is(
    sanitizeTerminal('a\u2066b\u2069c\u200Bd\uFEFFe\u00ADf\u2060g'),
    'a\\u2066b\\u2069c\\u200bd\\ufeffe\\u00adf\\u2060g',
  );
  t.is(sanitizeTerminal('x\u2028y\u2029z\u3164'), 'x\\u2028y\\u2029z\\u3164');
  // Reserved default-ignorable code points: a terminal with newer Unicode tables draws them as
  // nothing. Variation selectors (emoji presentation) are default-ignorable too, and kept.
  t.is(sanitizeTerminal('a\u2065b\uFFF0c\u{E0080}d'), 'a\\u2065b\\ufff0c\\u{e0080}d');
  t.is(sanitizeTerminal('\u2764\uFE0F \u{1F1FA}\u{1F1F8}'), '\u2764\uFE0F \u{1F1FA}\u{1F1F8}');
  // Tag characters smuggle invisible text; inside a subdivision flag they are the flag.
  t.is(sanitizeTerminal('hi\u{E0069}\u{E0067}'), 'hi\\u{e0069}\\u{e0067}');
  t.is(sanitizeTerminal(`${FLAG_SCOTLAND} ok`), `${FLAG_SCOTLAND} ok`);
  const family = '👨\u200D👩\u200D👧 می\u200Cخواهم 👍🏽 日本語 é';
  t.is(sanitizeTerminal(family), family);
  t.is(sanitizeTerminal('bad \uD800 half'), 'bad \uFFFD half');
});

test('the line form also shows LF and CR and turns TAB into a space; the TUI uses it', (t) => {
  t.is(sanitizeLine('a\nb\r\nc\td\u202E'), 'a\\x0ab\\x0d\\x0ac d\\u202e');
  t.is(tuiSanitize, sanitizeLine);
});

test('the stream form gives the same output however the input is cut', (t) => {
  const pieces = fc.constantFrom(
    'a',
    ' ',
    '\n',
    '\r',
    '\t',
    ESC,
    ']52;',
    '\x07',
    '[2J',
    '\u009b',
    '\u202E',
    '\u200D',
    '\u{1F3F4}',
    '\u{E0067}',
    '\u{E007F}',
    '\uD83D',
    '\uDE00',
    '日',
    '👍🏽',
  );
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
      const text = parts.join('');
      const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      const s = createTerminalSanitizer();
      let out = '';
      let prev = 0;
      for (const c of [...at, text.length]) {
        out += s.write(text.slice(prev, c));
        prev = c;
      }
      out += s.end();
      return out === sanitizeTerminal(text);
    }),
    { numRuns: 3000 },
  );
  // The cases that need state, one by one.
  const s = createTerminalSanitizer();
  t.is(s.write('line\r'), 'line');
  t.is(s.write('\nnext'), '\nnext');
  t.is(s.write(`${FLAG_SCOTLAND.slice(0, 6)}`), '');
  t.is(s.write(FLAG_SCOTLAND.slice(6)), FLAG_SCOTLAND);
  t.is(s.write('\uD83D'), '');
  t.is(s.write('\uDE00'), '😀');
  t.is(s.write('end\r'), 'end');
  t.is(s.end(), '\\x0d');
});

test('JSON stays valid, parses to the same value, and carries nothing a terminal acts on', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      const value = { a, b, list: [a, `${ESC}]0;x\x07\u009b\u202E`] };
      const json = escapeForJson(JSON.stringify(value, null, 2));
      return (
        JSON.stringify(JSON.parse(json)) === JSON.stringify(value) &&
        !DANGEROUS.test(json.replace(/\n/g, '')) &&
        sanitizeTerminal(json) === json
      );
    }),
    { numRuns: 2000 },
  );
  t.is(escapeForJson(JSON.stringify('\u009b\u202E\u{E0041}')), '"\\u009b\\u202e\\udb40\\udc41"');
});
