// Turns untrusted text (document excerpts, terminal selections, paths) into inert data that
// cannot close or forge the <retrieved_context> wrapper, an excerpt tag, a [Rn] marker or a
// chat-template control token. Pure. The steps, in order (order matters: each later step
// sees what the earlier ones produced, so e.g. a zero-width space cannot hide a tag from
// the escaper):
//   1. lone UTF-16 surrogates → U+FFFD; ANSI/terminal escape sequences removed
//   2. line breaks (CRLF, CR, NEL, LS, PS, VT, FF) → LF
//   3. invisible characters STRIPPED: every format character (Cf: zero-width, bidi embeddings,
//      overrides and isolates, soft hyphen, BOM, tag characters U+E0000..) and every
//      default-ignorable code point (variation selectors, Hangul fillers, CGJ...), plus C0/C1
//      controls except TAB and LF. Soft hyphen is stripped too: it is invisible unless a line
//      breaks there and it can split a word such as retrieved\u00ADcontext.
//   4. look-alikes folded: full-width/small/angle-bracket variants of < and > (＜ ﹤ ‹ ˂ ᐸ ⟨ 〈 〈 ❮ ❬ ⧼
//      and mirrors) become < and >, full-width ampersands become &.
//   5. bracketed control tokens ([INST], [/INST], [TOOL_CALLS], [SYSTEM_PROMPT] ... any case and
//      spacing) rewritten with parentheses: (INST).
//   6. marker look-alikes — an opening bracket or bracket look-alike, then R or any R look-alike
//      (r, Ｒ, ℛ, 𝐑, Cyrillic Р, Greek Ρ ...), then digits (any script) — rewritten with parentheses:
//      [R1] → (R1), ［Ｒ１］ → (Ｒ１), [R1, R2] → (R1, R2). Visible, readable, never a marker.
//   7. escaped: & → &amp; then < → &lt;. With every < gone, no tag can be opened or closed in any
//      case/whitespace variant, `&lt;` written by the document becomes `&amp;lt;` (no entity
//      forgery), and every <|...|>, <s>, <start_of_turn>, <<SYS>> token loses its first byte.
// `>` is left as is: it cannot close a tag without a `<`, and code stays readable (a -> b).

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// CSI (ESC [ or 8-bit CSI), OSC/DCS/PM/APC/SOS strings up to BEL/ST (bounded, and never past a
// line end, so a stray ESC ] cannot swallow the rest of a document), two-byte ESC sequences.
const ANSI =
  /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]|(?:\u001B[\]PX^_]|[\u009D\u0090\u0098\u009E\u009F])[^\u0007\u001B\u009C\n]{0,4096}(?:\u0007|\u001B\\|\u009C)?|\u001B[ -/]*[0-~]?/g;
const LINE_BREAKS = /\r\n|[\r\u0085\u2028\u2029\u000B\u000C]/g;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u0000-\u0008\u000E-\u001F\u007F-\u009F]/gu;

const LT_LIKE = /[\uFF1C\uFE64\u2039\u02C2\u1438\u27E8\u2329\u3008\u276E\u276C\u29FC\u27EA\uFE3F]/g;
const GT_LIKE = /[\uFF1E\uFE65\u203A\u02C3\u1433\u27E9\u232A\u3009\u276F\u276D\u29FD\u27EB\uFE40]/g;
const AMP_LIKE = /[\uFF06\uFE60]/g;

/** Control tokens spelled with square brackets (Mistral v3+/Tekken, GLM, BERT-style). */
export const BRACKET_TOKEN_NAMES = [
  'INST',
  'SYSTEM_PROMPT',
  'AVAILABLE_TOOLS',
  'TOOL_CALLS',
  'TOOL_RESULTS',
  'TOOL_CONTENT',
  'TOOL_CALL',
  'CALL_ID',
  'ARGS',
  'THINK',
  'IMG',
  'IMG_BREAK',
  'IMG_END',
  'PREFIX',
  'MIDDLE',
  'SUFFIX',
  'gMASK',
  'sMASK',
  'MASK',
  'CLS',
  'SEP',
  'PAD',
  'UNK',
  'BOS',
  'EOS',
];
const BRACKET_TOKEN = new RegExp(`\\[(\\s*\\/?\\s*(?:${BRACKET_TOKEN_NAMES.join('|')})\\s*)\\]`, 'gi');

/**
 * Literal chat-template control tokens of common model families. Sanitized text never contains
 * any of them (tests assert it; every one starts with `<` or is bracketed).
 */
export const SPECIAL_TOKENS = [
  '<|im_start|>',
  '<|im_end|>',
  '<|im_sep|>',
  '<|endoftext|>',
  '<|begin_of_text|>',
  '<|end_of_text|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|python_tag|>',
  '<|system|>',
  '<|user|>',
  '<|assistant|>',
  '<|end|>',
  '<|start|>',
  '<|message|>',
  '<|channel|>',
  '<|return|>',
  '<|call|>',
  '<|fim_prefix|>',
  '<|fim_middle|>',
  '<|fim_suffix|>',
  '<|tool_call|>',
  '<|START_OF_TURN_TOKEN|>',
  '<|END_OF_TURN_TOKEN|>',
  '<|CHATBOT_TOKEN|>',
  '<|USER_TOKEN|>',
  '<|SYSTEM_TOKEN|>',
  '<|start_of_role|>',
  '<|end_of_role|>',
  '<｜begin▁of▁sentence｜>',
  '<｜end▁of▁sentence｜>',
  '<｜User｜>',
  '<｜Assistant｜>',
  '<s>',
  '</s>',
  '<unk>',
  '<pad>',
  '<bos>',
  '<eos>',
  '<start_of_turn>',
  '<end_of_turn>',
  '<start_of_image>',
  '<<SYS>>',
  '<</SYS>>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<think>',
  '</think>',
  '[INST]',
  '[/INST]',
  '[SYSTEM_PROMPT]',
  '[/SYSTEM_PROMPT]',
  '[AVAILABLE_TOOLS]',
  '[/AVAILABLE_TOOLS]',
  '[TOOL_CALLS]',
  '[TOOL_RESULTS]',
  '[/TOOL_RESULTS]',
  '[gMASK]',
];

const OPEN_LIKE =
  '[\\[\\uFF3B\\u3010\\u3014\\u3016\\u3018\\u301A\\u27E6\\u298B\\u298D\\u298F\\u2045\\u2772\\uFE5D\\uFE47]';
const CLOSE_LIKE =
  '[\\]\\uFF3D\\u3011\\u3015\\u3017\\u3019\\u301B\\u27E7\\u298C\\u298E\\u2990\\u2046\\u2773\\uFE5E\\uFE48]';
// Separator runs are bounded so the pattern stays linear on hostile whitespace runs; the
// citation extractor (src/ai/citations.ts) only accepts `[R` directly followed by a digit, so
// anything it could read as a marker is always caught here.
const SEP = '[\\s\\p{M}\\-_.:#\\u2010-\\u2015\\uFF0D]{0,16}';
const DIGITS = '[\\p{Nd}\\p{No}]{1,12}';
const LETTER = '[\\p{L}\\p{So}]';
const MARKER_LIKE = new RegExp(
  `(${OPEN_LIKE})(${SEP})(${LETTER})(${SEP}${DIGITS}(?:${SEP}[,;&/+]${SEP}(?:${LETTER}${SEP})?${DIGITS})*${SEP})(${CLOSE_LIKE})?`,
  'gu',
);
// Letters that read as R but NFKC does not map to R (Cyrillic, Greek, Cherokee, Lisu, small capital...).
const R_CONFUSABLES = new Set([
  'Р',
  'р',
  'Ρ',
  'ʀ',
  'Ꭱ',
  'ᖇ',
  'Ʀ',
  'ꓣ',
  'ᚱ',
  'ᴚ',
  'ɾ',
  'ɼ',
  'ʁ',
  'Ꮢ',
  'ℛ',
  'ℜ',
  'ℝ',
  '℟',
  '℞',
]);

export function isRLike(ch: string): boolean {
  if (ch === 'R' || ch === 'r' || R_CONFUSABLES.has(ch)) return true;
  const n = ch.normalize('NFKC');
  return /^\(?[Rr]\)?$/.test(n);
}

/** Steps 1-4: a clean, visible, LF-only string. No escaping yet. */
export function normalizeUntrusted(text: string): string {
  return text
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(ANSI, '')
    .replace(LINE_BREAKS, '\n')
    .replace(INVISIBLE, '')
    .replace(LT_LIKE, '<')
    .replace(GT_LIKE, '>')
    .replace(AMP_LIKE, '&');
}

/** Steps 5-6 on normalized text: no bracketed control token, no marker look-alike. */
export function neutralizeMarkers(text: string): string {
  return text
    .replace(BRACKET_TOKEN, '($1)')
    .replace(MARKER_LIKE, (m, _open: string, s1: string, r: string, rest: string, close?: string) =>
      isRLike(r) ? `(${s1}${r}${rest}${close ? ')' : ''}` : m,
    );
}

/** Step 7. */
export function escapeAngle(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** Full pipeline for multi-line untrusted text placed inside a wrapper. */
export function sanitizeUntrusted(text: string): string {
  return escapeAngle(neutralizeMarkers(normalizeUntrusted(text)));
}

/**
 * For one-line fields from untrusted or user-chosen names (paths, store names) shown in headers:
 * the full pipeline, and line breaks and tabs made visible so a name cannot start a new line.
 */
export function sanitizeInline(text: string): string {
  return sanitizeUntrusted(text).replace(/\n/g, '\u2424').replace(/\t/g, ' ');
}

/** Inverse of step 7, for tests and display: what the model is told the escaped text means. */
export function unescapeAngle(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

const WRAPPER_NAMES = '(?:retrieved[\\s_-]*context|terminal[\\s_-]*selection|excerpt)';
const USER_TAG_LT = new RegExp(`<(?=\\s*\\/?\\s*${WRAPPER_NAMES}\\b)`, 'gi');
const USER_TOKEN_LT =
  /<(?=\s*[|｜])|<(?=\s*\/?\s*(?:s|unk|pad|bos|eos|start_of_turn|end_of_turn|start_of_image|tool_call|tool_response|think|SYS)\s*>)/gi;

/**
 * For the user's own typed prompt, which is meant as instructions: only what could close or
 * forge our wrappers or inject a control token is escaped; ordinary `<` (code such as Vec<T>)
 * stays. Invisible characters are stripped and look-alikes folded first, as for documents.
 */
export function neutralizeUserPrompt(text: string): string {
  return normalizeUntrusted(text)
    .replace(BRACKET_TOKEN, '($1)')
    .replace(USER_TAG_LT, '&lt;')
    .replace(USER_TOKEN_LT, '&lt;');
}
