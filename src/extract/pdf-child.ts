// Child process entry: parse one PDF with pdf2json and send one text per page over IPC.
// Run only through fork() by pdf.ts, which caps its heap and kills it on timeout; anything
// pdf2json does wrong (hangs, runaway memory, stack overflow) stays in this process.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import PDFParser from 'pdf2json';
import type { ChildMessage } from './pdf-outcome.js';
import { assemblePageText, type PdfTextBlock } from './pdf-text.js';

let finished = false;

function send(msg: ChildMessage, then?: () => void): void {
  if (!process.send) process.exit(2);
  process.send(msg, undefined, {}, () => then?.());
}

function fail(message: string): void {
  if (finished) return;
  finished = true;
  send({ t: 'error', message }, () => process.exit(0));
}

process.on('uncaughtException', (err) => fail(String(err?.message ?? err)));
process.on('unhandledRejection', (err) => fail(String((err as Error)?.message ?? err)));

async function main(path: string): Promise<void> {
  const buf = await readFile(path);
  send({ t: 'hash', sha256: createHash('sha256').update(buf).digest('hex') });
  const parser = new PDFParser(null, false);
  parser.on('data', (page) => {
    if (page && !finished)
      send({ t: 'page', text: assemblePageText(page.Texts as unknown as PdfTextBlock[]) });
  });
  parser.on('pdfParser_dataError', (err) => {
    const e = err as { parserError?: unknown } | Error;
    fail(String('parserError' in e ? e.parserError : (e as Error).message));
  });
  parser.on('pdfParser_dataReady', () => {
    if (finished) return;
    finished = true;
    send({ t: 'done' }, () => process.exit(0));
  });
  parser.parseBuffer(buf, 0);
}

main(process.argv[2] ?? '').catch((err) => fail(String(err?.message ?? err)));
