// Turn one accepted file into text (I/O shell over the pure converters).
//
// Outcomes:
// - resolves an ExtractedDoc: `lines` for text/HTML/.docx (possibly empty text: the chunker then
//   gives no chunks), `pages` for PDFs (index 0 = page 1);
// - rejects with EXTRACT_FAILED and `details.skipReason` (a SkipReason) when the file is to be
//   skipped: pdf-encrypted, pdf-no-text, pdf-invalid, pdf-timeout, docx-invalid, not-utf8,
//   too-large, read-error;
// - rejects with EXTRACT_FAILED without skipReason for failures that are not the file's fault
//   (e.g. the PDF parser process could not start), and EXTRACT_CANCELLED when `signal` aborts.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createError } from '../errors.js';
import type { ExtractedDoc, ExtractKind, SkipReason } from '../types.js';
import { extractDocxText } from './docx.js';
import { htmlToText } from './html.js';
import { extractPdfPages } from './pdf.js';
import { decodeUtf8Text } from './text.js';

export interface ExtractOptions {
  signal?: AbortSignal;
  /** Wall-clock limit for one PDF (default 60 s). */
  pdfTimeoutMs?: number;
  /** Heap cap of the PDF parser process in MiB (default 512). */
  pdfHeapMb?: number;
  /**
   * sha256 the scan recorded. The bytes actually extracted must have it: a file rewritten between
   * the scan and this read is skipped (read-error), so an index never pairs one version's hash
   * with another version's text (a later sync would trust the hash and keep the wrong text).
   */
  expectSha256?: string;
}

function changedSinceScan(path: string): Error {
  return skipError(
    path,
    'changed since the scan (its content no longer has the scanned hash); run the update again',
    'read-error',
  );
}

function checkHash(path: string, bytes: Uint8Array, expect: string | undefined): void {
  if (expect !== undefined && createHash('sha256').update(bytes).digest('hex') !== expect)
    throw changedSinceScan(path);
}

function skipError(path: string, reason: string, skipReason: SkipReason, cause?: unknown): Error {
  return createError('EXTRACT_FAILED', { path, reason, skipReason }, cause);
}

async function readText(path: string, signal: AbortSignal | undefined, expect?: string): Promise<string> {
  const bytes = await readBytes(path, signal);
  checkHash(path, bytes, expect);
  const decoded = decodeUtf8Text(bytes);
  if (!decoded.ok) {
    throw skipError(path, decoded.reason, decoded.reason.startsWith('too large') ? 'too-large' : 'not-utf8');
  }
  return decoded.text;
}

async function readBytes(path: string, signal: AbortSignal | undefined): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path, signal ? { signal } : {});
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError')
      throw createError('EXTRACT_CANCELLED', { path }, err);
    const code = (err as { code?: string }).code ?? String(err);
    if (code === 'ERR_FS_FILE_TOO_LARGE') throw skipError(path, 'too large to read', 'too-large', err);
    throw skipError(path, `cannot read (${code})`, 'read-error', err);
  }
  return bytes;
}

export async function extractDocument(
  path: string,
  kind: ExtractKind,
  opts: ExtractOptions = {},
): Promise<ExtractedDoc> {
  const { signal, expectSha256 } = opts;
  if (signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
  let doc: ExtractedDoc;
  switch (kind) {
    case 'text':
      doc = { kind: 'lines', text: await readText(path, signal, expectSha256), sourceLines: true };
      break;
    case 'html':
      doc = {
        kind: 'lines',
        text: htmlToText(await readText(path, signal, expectSha256)),
        sourceLines: false,
      };
      break;
    case 'docx': {
      const bytes = await readBytes(path, signal);
      checkHash(path, bytes, expectSha256);
      doc = { kind: 'lines', text: await extractDocxText(path, bytes), sourceLines: false };
      break;
    }
    case 'pdf':
      doc = { kind: 'pages', pages: await extractPdfPages(path, opts) };
      break;
    default:
      throw createError('INVALID_ARGUMENT', { name: 'kind', reason: `unknown extract kind ${String(kind)}` });
  }
  if (signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
  return doc;
}
