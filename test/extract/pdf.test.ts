import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { type ExtractOptions, extractDocument } from '../../src/extract/extract.js';
import { pidAlive } from '../../src/util/pid-alive.js';
import {
  buildEmptyPdf,
  buildHeavyPdf,
  buildImageOnlyPdf,
  buildLoopingPdf,
  buildTextPdf,
  encryptPdf,
  truncatePdf,
} from '../fixtures/pdf.js';
import { waitFor } from '../helpers/wait.js';

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-pdf-home-'));
const dir = mkdtempSync(join(tmpdir(), 'kortty-pdf-'));

function write(name: string, data: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

const PAGES = [
  ['Page one first line', 'Page one second line (with parentheses)'],
  ['Second page: 50% done \\ backslash'],
  ['Third page', 'caf\xe9 au lait'],
];

/** Rejects with EXTRACT_FAILED and the given skip reason; returns the error for further checks. */
async function expectSkip(t: import('ava').ExecutionContext, p: Promise<unknown>, skipReason: string) {
  const err = (await t.throwsAsync(p)) as {
    code?: string;
    details?: Record<string, unknown>;
    message: string;
  };
  t.is(err.code, 'EXTRACT_FAILED');
  t.is(err.details?.skipReason, skipReason, err.message);
  return err;
}

/** Extraction options that record the pid of the parser child each PDF is handed to. */
function tracked(opts: ExtractOptions = {}): ExtractOptions & { pids: number[] } {
  const pids: number[] = [];
  return { ...opts, pids, onChild: (pid) => pid && pids.push(pid) };
}

test('multi-page text PDF: one text per page, in page order', async (t) => {
  const path = write('three-pages.pdf', buildTextPdf(PAGES));
  const doc = await extractDocument(path, 'pdf');
  t.deepEqual(doc, {
    kind: 'pages',
    pages: [
      'Page one first line\nPage one second line (with parentheses)',
      'Second page: 50% done \\ backslash',
      'Third page\ncafé au lait',
    ],
  });
});

test('image-only PDF is skipped as pdf-no-text', async (t) => {
  const err = await expectSkip(
    t,
    extractDocument(write('scan.pdf', buildImageOnlyPdf(2)), 'pdf'),
    'pdf-no-text',
  );
  t.regex(err.message, /scan\.pdf: no extractable text in 2 pages/);
});

test('empty PDF is skipped as pdf-no-text', async (t) => {
  await expectSkip(t, extractDocument(write('empty.pdf', buildEmptyPdf(1)), 'pdf'), 'pdf-no-text');
});

test('password-protected PDFs (AES-128 and AES-256, made by qpdf) are skipped as pdf-encrypted', async (t) => {
  const plain = write('plain.pdf', buildTextPdf(PAGES));
  for (const bits of [128, 256] as const) {
    const out = join(dir, `secret-${bits}.pdf`);
    encryptPdf(plain, out, { userPassword: 'secret', ownerPassword: 'owner', bits });
    const err = await expectSkip(t, extractDocument(out, 'pdf'), 'pdf-encrypted');
    t.regex(err.message, new RegExp(`secret-${bits}\\.pdf: .*(password|encrypt)`));
  }
});

test('a PDF with only an owner password (no password to open) is read normally', async (t) => {
  const plain = write('plain-owner.pdf', buildTextPdf(PAGES));
  const out = join(dir, 'owner-only.pdf');
  encryptPdf(plain, out, { userPassword: '', ownerPassword: 'owner', bits: 128 });
  const doc = await extractDocument(out, 'pdf');
  t.is(doc.kind === 'pages' ? doc.pages[1] : undefined, 'Second page: 50% done \\ backslash');
});

test('truncated and non-PDF files are skipped as pdf-invalid', async (t) => {
  const whole = buildTextPdf(PAGES);
  for (const fraction of [0.1, 0.5, 0.97]) {
    await expectSkip(
      t,
      extractDocument(write(`cut-${fraction}.pdf`, truncatePdf(whole, fraction)), 'pdf'),
      'pdf-invalid',
    );
  }
  const err = await expectSkip(
    t,
    extractDocument(write('text.pdf', Buffer.from('just text\n')), 'pdf'),
    'pdf-invalid',
  );
  t.regex(err.message, /no %PDF- header/);
});

test('a PDF that hangs the parser is killed at the timeout', async (t) => {
  const path = write('loop-hang.pdf', buildLoopingPdf());
  const started = Date.now();
  const opts = tracked({ pdfTimeoutMs: 1500 });
  const err = await expectSkip(t, extractDocument(path, 'pdf', opts), 'pdf-timeout');
  t.regex(err.message, /loop-hang\.pdf: PDF parsing exceeded 1500 ms/);
  t.true(Date.now() - started >= 1500);
  t.is(opts.pids.length, 1);
  t.false(pidAlive(opts.pids[0]!), 'the child process was killed');
});

test('a PDF that exhausts the heap cap is stopped; the same cap parses a normal PDF', async (t) => {
  const heavy = write('heavy.pdf', buildHeavyPdf(300_000));
  const opts = tracked({ pdfHeapMb: 32 });
  const err = await expectSkip(t, extractDocument(heavy, 'pdf', opts), 'pdf-timeout');
  t.regex(err.message, /heavy\.pdf: PDF parsing exceeded the 32 MiB memory cap/);
  t.is(opts.pids.length, 1);
  t.false(pidAlive(opts.pids[0]!));
  const ok = await extractDocument(write('light.pdf', buildTextPdf(PAGES)), 'pdf', { pdfHeapMb: 32 });
  t.is(ok.kind === 'pages' ? ok.pages.length : 0, 3);
});

test('while a parser hangs this process stays responsive; aborting cancels and kills the parser', async (t) => {
  const path = write('loop-abort.pdf', buildLoopingPdf());
  const ac = new AbortController();
  let settled = false;
  const opts = tracked({ signal: ac.signal, pdfTimeoutMs: 120_000 });
  const pending = extractDocument(path, 'pdf', opts).finally(() => {
    settled = true;
  });
  // The parser child runs (and loops for ever); nothing waits for a fixed delay.
  await waitFor(() => opts.pids.length === 1, 'the parser child to run');
  // The hang is confined to the child: another extraction runs to the end meanwhile.
  const other = await extractDocument(write('meanwhile.pdf', buildTextPdf(PAGES)), 'pdf');
  t.is(other.kind === 'pages' ? other.pages.length : 0, 3);
  t.false(settled, 'the hung parse is still pending');
  t.true(pidAlive(opts.pids[0]!), 'and its child still runs');
  ac.abort();
  const err = (await t.throwsAsync(pending)) as { code?: string };
  t.is(err.code, 'EXTRACT_CANCELLED');
  t.is(opts.pids.length, 1);
  t.false(pidAlive(opts.pids[0]!));
});

test('a missing PDF is a read error, not a parser crash', async (t) => {
  await expectSkip(t, extractDocument(join(dir, 'missing.pdf'), 'pdf'), 'read-error');
});
