// Flatten an ExtractedDoc into one text plus the byte spans of its pages (pure).

import type { ExtractedDoc } from '../types.js';

/** Between two pages: a blank line, so a page end is a paragraph boundary for the chunker. */
export const PAGE_SEPARATOR = '\n\n';

export interface PageSpan {
  /** 1-based page number in the original document. */
  page: number;
  /** [start, end) byte range of the page's text inside the flattened text. */
  start: number;
  end: number;
}

export interface DocText {
  text: string;
  /** Present for paged documents; only pages with text, ascending. */
  pages?: PageSpan[];
}

export function flattenDoc(doc: ExtractedDoc): DocText {
  if (doc.kind === 'lines') return { text: doc.text };
  const parts: string[] = [];
  const pages: PageSpan[] = [];
  let at = 0;
  doc.pages.forEach((raw, i) => {
    // Trailing whitespace would only pad the separator; empty pages keep their number but add nothing.
    const text = raw.trimEnd();
    if (text.length === 0) return;
    if (parts.length > 0) {
      parts.push(PAGE_SEPARATOR);
      at += PAGE_SEPARATOR.length;
    }
    const len = Buffer.byteLength(text, 'utf8');
    pages.push({ page: i + 1, start: at, end: at + len });
    parts.push(text);
    at += len;
  });
  return { text: parts.join(''), pages };
}
