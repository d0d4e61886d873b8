// What a PDF parse in the child process came to, as a skip reason (pure).

import type { SkipReason } from '../types.js';

export type PdfSkipReason = Extract<
  SkipReason,
  'pdf-encrypted' | 'pdf-no-text' | 'pdf-invalid' | 'pdf-timeout'
>;

export interface PdfFailure {
  skipReason: PdfSkipReason;
  reason: string;
}

/** pdf2json reports failures as strings; a password problem surfaces as PasswordException. */
export function classifyParserError(message: string): PdfFailure {
  const m = message.replace(/^(Error:\s*)+/, '').trim() || 'unknown parser error';
  // Its bundled pdf.js also refuses AES-256 (PDF 2.0) encryption outright: still "protected".
  if (/PasswordException|password/i.test(m)) {
    return { skipReason: 'pdf-encrypted', reason: `password-protected PDF (${m})` };
  }
  if (/encrypt/i.test(m)) {
    return { skipReason: 'pdf-encrypted', reason: `encrypted PDF the parser cannot open (${m})` };
  }
  return { skipReason: 'pdf-invalid', reason: `malformed PDF (${m})` };
}

/** Pages parsed but no page has text: an image-only (scanned) or empty PDF. */
export function checkPages(pages: readonly string[]): PdfFailure | undefined {
  if (pages.some((p) => p.trim().length > 0)) return undefined;
  return {
    skipReason: 'pdf-no-text',
    reason: `no extractable text in ${pages.length} page${pages.length === 1 ? '' : 's'} (image-only or empty PDF)`,
  };
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Tail of the child's stderr. */
  stderr: string;
  timedOut: boolean;
  timeoutMs: number;
  heapMb: number;
  /** Killed for resident memory above `rssMb` (buffers outside the V8 heap count there). */
  rssExceeded?: boolean;
  rssMb?: number;
}

/** V8's own report when the heap cap is reached. */
export const HEAP_EXHAUSTED = /heap out of memory|Allocation failed|Reached heap limit/i;

/** The child ended without an answer. */
export function classifyExit(x: ChildExit): PdfFailure {
  if (x.timedOut) {
    return {
      skipReason: 'pdf-timeout',
      reason: `PDF parsing exceeded ${x.timeoutMs} ms; the parser was stopped`,
    };
  }
  if (HEAP_EXHAUSTED.test(x.stderr)) {
    // Same code as a timeout: the document is too costly to parse within the limits.
    return {
      skipReason: 'pdf-timeout',
      reason: `PDF parsing exceeded the ${x.heapMb} MiB memory cap; the parser was stopped`,
    };
  }
  if (x.rssExceeded) {
    return {
      skipReason: 'pdf-timeout',
      reason: `PDF parsing used more than ${x.rssMb} MiB of memory; the parser was stopped`,
    };
  }
  const how = x.signal ? `signal ${x.signal}` : `exit code ${x.code}`;
  return { skipReason: 'pdf-invalid', reason: `malformed PDF (the parser stopped without a result, ${how})` };
}
