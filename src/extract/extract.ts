// Turn one accepted file into text (I/O shell over the pure converters).
//
// The file is read once, here, through the scan's record of it (read-scanned.ts): never through
// a link, never a FIFO or device, at most its scanned size, with the scanned hash. Plain text is
// decoded in this process; HTML, .docx and PDF are converted in a capped child process
// (worker-pool.ts) that receives the text or bytes, so whatever a hostile document does to a
// converter is that document's failure.
//
// Outcomes:
// - resolves an ExtractedDoc: `lines` for text/HTML/.docx (possibly empty text: the chunker then
//   gives no chunks), `pages` for PDFs (index 0 = page 1);
// - rejects with EXTRACT_FAILED and `details.skipReason` (a SkipReason) when the file is to be
//   skipped: pdf-encrypted, pdf-no-text, pdf-invalid, pdf-timeout, docx-invalid, docx-too-large,
//   html-invalid, extract-limit, not-utf8, too-large, read-error, symlink, special-file,
//   permission-denied;
// - rejects with EXTRACT_FAILED without skipReason for failures that are not the file's fault
//   (an extraction process could not start), and EXTRACT_CANCELLED when `signal` aborts.

import { createError } from '../errors.js';
import type { ExtractedDoc, ExtractKind, ScannedFile, SkipReason } from '../types.js';
import { DEFAULT_PDF_HEAP_MB, DEFAULT_PDF_TIMEOUT_MS, pdfHeaderProblem } from './pdf.js';
import { readScannedBytes } from './read-scanned.js';
import { decodeUtf8Text } from './text.js';
import { classifyDeath } from './worker-outcome.js';
import { runInWorker, WorkerCancelled, type WorkerCaps, type WorkerOutcome } from './worker-pool.js';
import type { WorkerTask, WorkerValue } from './worker-protocol.js';

/** Defaults for HTML and .docx conversions. */
export const DEFAULT_CONVERT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONVERT_HEAP_MB = 512;
/** Resident memory allowed above the heap cap (code, buffers outside the heap). */
export const RSS_HEADROOM_MB = 256;
/** The XML parts of a .docx may expand to at most this (Word's largest documents stay far below). */
export const DEFAULT_DOCX_MAX_UNCOMPRESSED = 64 * 1024 * 1024;

export interface ExtractOptions {
  signal?: AbortSignal;
  /** Wall-clock limit for one PDF (default 60 s). */
  pdfTimeoutMs?: number;
  /** Heap cap of the PDF parser process in MiB (default 512). */
  pdfHeapMb?: number;
  /** Wall-clock limit for one HTML or .docx conversion (default 30 s). */
  timeoutMs?: number;
  /** Heap cap of the HTML/.docx extraction process in MiB (default 512). */
  heapMb?: number;
  /** Resident memory cap of an extraction process in MiB (default: its heap cap + 256). */
  rssMb?: number;
  /** Cap on the uncompressed size of a .docx's XML parts (default 64 MiB). */
  docxMaxUncompressedBytes?: number;
  /**
   * The scan's record of the file: extraction opens that file through the directories the scan
   * entered and reads at most its size. Without it the path is opened (no links, no blocking).
   */
  scanned?: ScannedFile;
  /**
   * sha256 the scan recorded (default: the scanned one). The bytes actually extracted must have
   * it: a file rewritten between the scan and this read is skipped (read-error), so an index never
   * pairs one version's hash with another version's text.
   */
  expectSha256?: string;
  /** Called with the pid of the child process a conversion is handed to (tests). */
  onChild?: (pid: number | undefined) => void;
  /** Figures of each conversion in a child process (tests and benchmarks). */
  onConversion?: (c: { kind: WorkerTask['kind']; pid: number | undefined; peakRssMb: number }) => void;
}

function skipError(path: string, reason: string, skipReason: SkipReason, cause?: unknown): Error {
  return createError('EXTRACT_FAILED', { path, reason, skipReason }, cause);
}

function decode(path: string, bytes: Uint8Array): string {
  const decoded = decodeUtf8Text(bytes);
  if (!decoded.ok) {
    throw skipError(path, decoded.reason, decoded.reason.startsWith('too large') ? 'too-large' : 'not-utf8');
  }
  return decoded.text;
}

async function convert(path: string, task: WorkerTask, opts: ExtractOptions): Promise<WorkerValue> {
  const pdf = task.kind === 'pdf';
  const heapMb = pdf ? (opts.pdfHeapMb ?? DEFAULT_PDF_HEAP_MB) : (opts.heapMb ?? DEFAULT_CONVERT_HEAP_MB);
  const caps: WorkerCaps = {
    timeoutMs: pdf
      ? (opts.pdfTimeoutMs ?? DEFAULT_PDF_TIMEOUT_MS)
      : (opts.timeoutMs ?? DEFAULT_CONVERT_TIMEOUT_MS),
    heapMb,
    rssMb: opts.rssMb ?? heapMb + RSS_HEADROOM_MB,
  };
  let out: WorkerOutcome;
  try {
    out = await runInWorker(task, { caps, signal: opts.signal, dedicated: pdf, onStart: opts.onChild });
  } catch (err) {
    if (err instanceof WorkerCancelled) throw createError('EXTRACT_CANCELLED', { path }, err);
    // The process could not start: not the file's fault.
    const what = pdf ? 'PDF parser' : 'extraction process';
    throw createError(
      'EXTRACT_FAILED',
      { path, reason: `cannot start the ${what} (${(err as Error).message})` },
      err,
    );
  }
  opts.onConversion?.({ kind: task.kind, pid: out.pid, peakRssMb: out.peakRssMb });
  if (out.t === 'ok') return out.value;
  const f =
    out.t === 'failed'
      ? out.failure
      : classifyDeath(task.kind, { ...out.death, timeoutMs: caps.timeoutMs, heapMb, rssMb: caps.rssMb });
  throw createError('EXTRACT_FAILED', {
    path,
    reason: f.reason,
    skipReason: f.skipReason,
    peakRssMb: out.peakRssMb,
  });
}

const textOf = (v: WorkerValue) => (v.kind === 'text' ? v.text : v.pages.join('\n\n'));

export async function extractDocument(
  path: string,
  kind: ExtractKind,
  opts: ExtractOptions = {},
): Promise<ExtractedDoc> {
  const { signal } = opts;
  if (signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
  if (kind !== 'text' && kind !== 'html' && kind !== 'docx' && kind !== 'pdf')
    throw createError('INVALID_ARGUMENT', { name: 'kind', reason: `unknown extract kind ${String(kind)}` });
  const bytes = await readScannedBytes(path, {
    scanned: opts.scanned,
    expectSha256: opts.expectSha256,
    signal,
  });
  let doc: ExtractedDoc;
  switch (kind) {
    case 'text':
      doc = { kind: 'lines', text: decode(path, bytes), sourceLines: true };
      break;
    case 'html': {
      const v = await convert(path, { kind: 'html', text: decode(path, bytes) }, opts);
      doc = { kind: 'lines', text: textOf(v), sourceLines: false };
      break;
    }
    case 'docx': {
      const max = opts.docxMaxUncompressedBytes ?? DEFAULT_DOCX_MAX_UNCOMPRESSED;
      const v = await convert(path, { kind: 'docx', bytes, maxUncompressedBytes: max }, opts);
      doc = { kind: 'lines', text: textOf(v), sourceLines: false };
      break;
    }
    case 'pdf': {
      const bad = pdfHeaderProblem(bytes);
      if (bad) throw skipError(path, bad.reason, bad.skipReason);
      const v = await convert(path, { kind: 'pdf', bytes }, opts);
      doc = { kind: 'pages', pages: v.kind === 'pages' ? v.pages : [v.text] };
      break;
    }
  }
  if (signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
  return doc;
}
