// Child process entry of the extraction pool (worker-pool.ts): converts HTML, .docx and PDF
// documents it receives as text or bytes (never as a path) and answers each over IPC. The parent
// caps its heap, memory and time and kills it when a document exceeds them; anything a converter
// does wrong (stack overflow on deep nesting, a zip bomb, a parser that throws asynchronously)
// stays here and becomes that document's skip reason.

import { ownPeakRssKb } from '../util/peak-rss.js';
import { docxFailure, extractDocxText } from './docx.js';
import { htmlToText } from './html.js';
import { checkPages, classifyParserError } from './pdf-outcome.js';
import { assemblePageText, type PdfTextBlock } from './pdf-text.js';
import type { FromWorker, ToWorker, WorkerFailure, WorkerTask, WorkerValue } from './worker-protocol.js';

let current: { id: number; kind: WorkerTask['kind'] } | null = null;

const maxRssKb = ownPeakRssKb;

function send(msg: FromWorker, then?: () => void): void {
  if (!process.send || !process.connected) process.exit(2);
  process.send(msg, undefined, {}, () => then?.());
}

/** A failure outside the converter's own promise (pdf2json throws from timers): answer, then exit. */
function failCurrent(err: unknown): void {
  const job = current;
  if (!job) process.exit(1);
  current = null;
  send({ id: job.id, ok: false, failure: failureFor(job.kind, err), maxRssKb: maxRssKb() }, () =>
    process.exit(1),
  );
}

process.on('uncaughtException', failCurrent);
process.on('unhandledRejection', failCurrent);
process.on('disconnect', () => process.exit(0));
process.on('message', (m: ToWorker) => void run(m));

async function run(m: ToWorker): Promise<void> {
  current = { id: m.id, kind: m.task.kind };
  let reply: FromWorker;
  try {
    reply = { id: m.id, ok: true, value: await convert(m.task), maxRssKb: maxRssKb() };
  } catch (err) {
    reply = { id: m.id, ok: false, failure: failureFor(m.task.kind, err), maxRssKb: maxRssKb() };
  }
  if (current?.id !== m.id) return; // already answered by failCurrent
  current = null;
  send(reply);
}

async function convert(task: WorkerTask): Promise<WorkerValue> {
  switch (task.kind) {
    case 'html':
      return { kind: 'text', text: htmlToText(task.text) };
    case 'docx':
      return { kind: 'text', text: await extractDocxText(task.bytes, task.maxUncompressedBytes) };
    case 'pdf': {
      const pages = await parsePdf(task.bytes);
      const none = checkPages(pages);
      if (none) throw Object.assign(new Error(none.reason), { failure: none });
      return { kind: 'pages', pages };
    }
  }
}

function failureFor(kind: WorkerTask['kind'], err: unknown): WorkerFailure {
  const known = (err as { failure?: WorkerFailure })?.failure;
  if (known) return known;
  const message = String((err as Error)?.message ?? err);
  if (kind === 'docx') return docxFailure(err);
  if (kind === 'pdf') return classifyParserError(message);
  if (/call stack/i.test(message))
    return { skipReason: 'html-invalid', reason: `HTML nested too deeply to convert (${message})` };
  return { skipReason: 'html-invalid', reason: `HTML conversion failed (${message})` };
}

async function parsePdf(bytes: Uint8Array): Promise<string[]> {
  const { default: PDFParser } = await import('pdf2json');
  return new Promise<string[]>((resolve, reject) => {
    const pages: string[] = [];
    const parser = new PDFParser(null, false);
    parser.on('data', (page) => {
      if (page) pages.push(assemblePageText(page.Texts as unknown as PdfTextBlock[]));
    });
    parser.on('pdfParser_dataError', (err) => {
      const e = err as { parserError?: unknown } | Error;
      reject(new Error(String('parserError' in e ? e.parserError : (e as Error).message)));
    });
    parser.on('pdfParser_dataReady', () => resolve(pages));
    // A buffer of its own: the parser reads the underlying ArrayBuffer from offset 0, while bytes
    // received over IPC are a view into the message.
    const own = Buffer.allocUnsafeSlow(bytes.byteLength);
    own.set(bytes);
    parser.parseBuffer(own, 0);
  });
}
