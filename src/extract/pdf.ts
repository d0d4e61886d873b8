// PDF specifics of extraction: the parser (pdf2json) runs in a fresh extraction child per PDF
// (worker-pool.ts) with a heap cap, a memory cap and a wall-clock timeout, so a PDF that hangs
// the parser, freezes its event loop or exhausts memory costs one killed child, never the
// calling process.

import type { PdfFailure } from './pdf-outcome.js';

/** Defaults: generous for a 50 MiB PDF on a slow machine, small enough not to stall a job for long. */
export const DEFAULT_PDF_TIMEOUT_MS = 60_000;
export const DEFAULT_PDF_HEAP_MB = 512;

/** pdf.js looks for the header in the first KiB; anything else is not a PDF at all. */
export function pdfHeaderProblem(bytes: Uint8Array): PdfFailure | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(1024, bytes.byteLength));
  return head.includes('%PDF-')
    ? undefined
    : { skipReason: 'pdf-invalid', reason: 'malformed PDF (no %PDF- header)' };
}
