// HTML to readable text (pure): no markup, no script/style/template content, headings and
// paragraphs kept as blank-line-separated blocks, links as their text, tables as aligned rows.

import { compile, type HtmlToTextOptions } from 'html-to-text';

const SKIP = ['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'head', 'img'];

export const HTML_TO_TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  // A document can be large; html-to-text's default cap would silently drop the rest.
  limits: { maxInputLength: Number.MAX_SAFE_INTEGER, ellipsis: '' },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => ({ selector: h, options: { uppercase: false } })),
    {
      selector: 'table',
      format: 'dataTable',
      options: { uppercaseHeaderCells: false, maxColumnWidth: Number.MAX_SAFE_INTEGER },
    },
    ...SKIP.map((selector) => ({ selector, format: 'skip' })),
  ],
};

// Compiled once: html-to-text's convert() compiles the selectors on every call, which costs
// milliseconds per document (more than converting a typical page).
let converter: ((html: string) => string) | undefined;

export function htmlToText(html: string): string {
  converter ??= compile(HTML_TO_TEXT_OPTIONS);
  const text = converter(html);
  // Trailing spaces from table padding and runs of 3+ newlines add nothing for retrieval.
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
