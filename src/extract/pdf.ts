// PDF extraction (adapter): pdf2json runs in a forked child with a heap cap and a wall-clock
// timeout, so a PDF that hangs the parser, freezes its event loop or exhausts memory costs one
// killed child, never the calling process.

import { fork } from 'node:child_process';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createError } from '../errors.js';
import {
  type ChildMessage,
  checkPages,
  classifyExit,
  classifyParserError,
  type PdfFailure,
} from './pdf-outcome.js';

/** Defaults: generous for a 50 MiB PDF on a slow machine, small enough not to stall a job for long. */
export const DEFAULT_PDF_TIMEOUT_MS = 60_000;
export const DEFAULT_PDF_HEAP_MB = 512;

export interface PdfOptions {
  signal?: AbortSignal;
  pdfTimeoutMs?: number;
  pdfHeapMb?: number;
  /** The parsed bytes must have this sha256 (see ExtractOptions.expectSha256). */
  expectSha256?: string;
}

// dist/src/extract/pdf.js and dist/src/extract/pdf-child.js sit side by side after tsc.
const CHILD = fileURLToPath(new URL('./pdf-child.js', import.meta.url));
const STDERR_TAIL = 8192;

function skip(path: string, f: PdfFailure): Error {
  return createError('EXTRACT_FAILED', { path, reason: f.reason, skipReason: f.skipReason });
}

/** pdf.js looks for the header in the first KiB; anything else is not a PDF at all. */
async function checkHeader(path: string): Promise<void> {
  let head: Buffer;
  try {
    const fh = await open(path, 'r');
    try {
      head = Buffer.alloc(1024);
      const { bytesRead } = await fh.read(head, 0, 1024, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? String(err);
    throw createError(
      'EXTRACT_FAILED',
      { path, reason: `cannot read (${code})`, skipReason: 'read-error' },
      err,
    );
  }
  if (!head.includes('%PDF-')) {
    throw skip(path, { skipReason: 'pdf-invalid', reason: 'malformed PDF (no %PDF- header)' });
  }
}

/** Text of each page, index 0 = page 1. Throws EXTRACT_FAILED with a pdf-* skipReason. */
export async function extractPdfPages(path: string, opts: PdfOptions = {}): Promise<string[]> {
  const timeoutMs = opts.pdfTimeoutMs ?? DEFAULT_PDF_TIMEOUT_MS;
  const heapMb = opts.pdfHeapMb ?? DEFAULT_PDF_HEAP_MB;
  if (opts.signal?.aborted) throw createError('EXTRACT_CANCELLED', { path });
  await checkHeader(path);

  return new Promise<string[]>((resolve, reject) => {
    const pages: string[] = [];
    let stderr = '';
    let settled = false;
    let timedOut = false;
    // The outcome the child reported; the promise settles only once the child is gone, so no
    // parser process outlives the call.
    let outcome: { err?: Error } | undefined;
    let grace: NodeJS.Timeout | undefined;
    const child = fork(CHILD, [path], {
      execArgv: [`--max-old-space-size=${heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, PDF2JSON_DISABLE_LOGS: '1' },
      serialization: 'json',
    });
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const settle = (err: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(pages);
    };
    const report = (err: Error | undefined) => {
      if (outcome) return;
      outcome = { err };
      // The child exits by itself after its last message; make sure it does.
      grace = setTimeout(kill, 2000);
    };
    const onAbort = () => {
      outcome = { err: createError('EXTRACT_CANCELLED', { path }) };
      kill();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      stderr = (stderr + s).slice(-STDERR_TAIL);
    });
    child.on('message', (raw) => {
      const msg = raw as ChildMessage;
      if (outcome) return;
      if (msg.t === 'hash') {
        if (opts.expectSha256 !== undefined && msg.sha256 !== opts.expectSha256) {
          report(
            createError('EXTRACT_FAILED', {
              path,
              reason:
                'changed since the scan (its content no longer has the scanned hash); run the update again',
              skipReason: 'read-error',
            }),
          );
          kill();
        }
      } else if (msg.t === 'page') pages.push(String(msg.text));
      else if (msg.t === 'error') report(skip(path, classifyParserError(String(msg.message))));
      else if (msg.t === 'done') {
        const none = checkPages(pages);
        report(none ? skip(path, none) : undefined);
      }
    });
    child.on('error', (err) => {
      // fork itself failed (not the PDF's fault): no skip reason, a real error.
      kill();
      settle(
        createError('EXTRACT_FAILED', { path, reason: `cannot start the PDF parser (${err.message})` }, err),
      );
    });
    child.on('close', (code, signal) => {
      if (outcome) settle(outcome.err);
      else settle(skip(path, classifyExit({ code, signal, stderr, timedOut, timeoutMs, heapMb })));
    });
  });
}
