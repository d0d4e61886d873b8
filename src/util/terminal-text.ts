// The one sanitizer for text shown on a terminal: document paths, patterns, store names, model
// answers. Pure. Nothing a terminal would act on gets through, and nothing that could hide or
// reorder text on screen either; all of it stays visible, so a user sees what was there:
//   - C0 controls (except TAB and LF), DEL and C1 controls → `\xNN`. An escape sequence thereby
//     becomes plain text (`\x1b]52;c;…\x07`): no clipboard write, title change or screen clear.
//   - CR: a CRLF pair becomes LF; a lone CR (which would let later text overwrite a line) `\x0d`.
//   - invisible format characters (bidi embeddings, overrides and isolates, LRM/RLM, zero-width
//     space, word joiner, BOM, soft hyphen, tag characters, interlinear annotations), line and
//     paragraph separators, the Hangul fillers that render as blanks, and the reserved code points
//     Unicode sets aside as default-ignorable (U+2065, U+FFF0–FFF8, the unassigned E0000 plane
//     block), which a terminal with newer Unicode tables draws as nothing → `\u202e`, `\u{e0041}`.
//     Kept: ZWJ and ZWNJ (emoji sequences and several scripts need them) and the tag characters of
//     an emoji subdivision flag (🏴 + tags + cancel tag), which display as one flag.
//   - lone UTF-16 surrogates → U+FFFD.
// `sanitizeLine` is the single-line form (table cells, names, paths): LF and CR become visible and
// TAB a space. `createTerminalSanitizer` is the same function over text arriving in pieces.
// `escapeForJson` makes JSON text terminal-safe without changing the value it encodes.

const FLAG = '\u{1F3F4}[\u{E0020}-\u{E007E}]{1,32}\u{E007F}';
const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
// \p{Cf} minus ZWNJ/ZWJ, plus Zl/Zp, the blank-looking Hangul fillers and the unassigned
// default-ignorables (assigned ones are Cf or deliberately kept, like the variation selectors).
const INVISIBLE =
  '[[\\p{Cf}\\p{Zl}\\p{Zp}\\u115F\\u1160\\u3164\\uFFA0[\\p{Default_Ignorable_Code_Point}&&\\p{Cn}]]--[\\u200C\\u200D]]';
const CONTROL = '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]';

// One pass, alternatives in priority order: a flag is kept whole before its tags could match
// INVISIBLE; CRLF before a lone CR.
const TEXT_RE = new RegExp(`(${FLAG})|\\r\\n|${LONE_SURROGATE}|${CONTROL}|${INVISIBLE}`, 'gv');
const LINE_RE = new RegExp(`(${FLAG})|${LONE_SURROGATE}|[\\t\\n]|${CONTROL}|${INVISIBLE}`, 'gv');

const hex2 = (cp: number) => `\\x${cp.toString(16).padStart(2, '0')}`;

function visible(m: string): string {
  const cp = m.codePointAt(0)!;
  if (m.length === 1 && cp >= 0xd800 && cp <= 0xdfff) return '\uFFFD';
  if (cp <= 0x9f) return hex2(cp);
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Multi-line text for a terminal: keeps LF and TAB, makes everything else that is not plain text visible. */
export function sanitizeTerminal(text: string): string {
  return text.replace(TEXT_RE, (m, flag: string | undefined) =>
    flag ? flag : m === '\r\n' ? '\n' : visible(m),
  );
}

/** One line (a table cell, a name, a path): like sanitizeTerminal, and LF/CR visible, TAB a space. */
export function sanitizeLine(text: string): string {
  return text.replace(LINE_RE, (m, flag: string | undefined) =>
    flag ? flag : m === '\t' ? ' ' : visible(m),
  );
}

export interface TerminalSanitizer {
  /** Sanitized text that can be shown now; a tail that could still change meaning is held back. */
  write(chunk: string): string;
  /** Everything held back, sanitized as final. */
  end(): string;
}

// The longest unit that can span two chunks: a flag (🏴 + 32 tags + cancel tag, 2 code units each).
const MAX_HELD = 2 + 33 * 2;

/**
 * sanitizeTerminal over a stream (a model answer arriving token by token): the concatenated output
 * equals sanitizeTerminal of the concatenated input, however the input is cut. Held back: a final
 * CR (an LF may follow), a final high surrogate, and an unfinished subdivision flag.
 */
export function createTerminalSanitizer(): TerminalSanitizer {
  let held = '';
  return {
    write(chunk: string): string {
      const text = held + chunk;
      const cut = safeCut(text);
      held = text.slice(cut);
      return sanitizeTerminal(text.slice(0, cut));
    },
    end(): string {
      const rest = held;
      held = '';
      return sanitizeTerminal(rest);
    },
  };
}

function safeCut(text: string): number {
  let cut = text.length;
  const last = text.charCodeAt(cut - 1);
  if (last === 0x0d || (last >= 0xd800 && last <= 0xdbff)) cut -= 1;
  // A 🏴 (U+1F3F4, \uD83C\uDFF4) near the end may start a flag whose cancel tag has not arrived.
  const from = Math.max(0, cut - MAX_HELD);
  const flag = text.lastIndexOf('\u{1F3F4}', cut - 1);
  if (flag >= from && /^\u{1F3F4}[\u{E0020}-\u{E007E}]*$/u.test(text.slice(flag, cut))) {
    // Unfinished only while it can still become a flag (≤ 32 tags so far).
    if (cut - flag <= MAX_HELD - 2) return flag;
  }
  return cut;
}

// What escapeForJson escapes: everything either sanitizer would touch, except the LF and spaces
// JSON uses between tokens (JSON.stringify already escapes every C0 control inside strings).
const JSON_RE = new RegExp(
  `[\\u0000-\\u0009\\u000B-\\u001F\\u007F-\\u009F\\u200C\\u200D]|${INVISIBLE}`,
  'gv',
);

/**
 * JSON text (as JSON.stringify writes it) made terminal-safe: each character a terminal could act
 * on or hide text with becomes a `\uXXXX` escape. Still valid JSON, and it parses to the same value.
 */
export function escapeForJson(json: string): string {
  return json.replace(JSON_RE, (m) => {
    let out = '';
    for (let i = 0; i < m.length; i++) out += `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
