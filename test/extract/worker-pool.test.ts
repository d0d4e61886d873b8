import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { type ExtractOptions, extractDocument } from '../../src/extract/extract.js';
import { pidAlive } from '../../src/util/pid-alive.js';
import { deepHtml, docxBomb } from '../helpers/hostile-docs.js';
import { waitFor } from '../helpers/wait.js';
import { buildDocx } from './docx-fixture.js';

// The extraction children on real documents: HTML and .docx share one reused child, which is
// replaced after a failure; a conversion that exceeds its time or memory cap is stopped and the
// document skipped; cancelling kills the child; an idle child never keeps its parent alive.
// Serial: these tests look at the one reused child of this process.

process.env.KORTTY_HOME = mkdtempSync(join(tmpdir(), 'kortty-pool-home-'));
const dir = mkdtempSync(join(tmpdir(), 'kortty-pool-'));
const run = promisify(execFile);

function write(name: string, data: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

function tracked(opts: ExtractOptions = {}): ExtractOptions & { pids: number[] } {
  const pids: number[] = [];
  return { ...opts, pids, onChild: (pid) => pid && pids.push(pid) };
}

async function skipOf(p: Promise<unknown>) {
  const err = (await p.then(
    () => undefined,
    (e) => e,
  )) as { code?: string; details?: { skipReason?: string }; message: string } | undefined;
  return { code: err?.code, reason: err?.details?.skipReason, message: err?.message ?? '' };
}

/** A page html-to-text needs a while for (tens of thousands of table cells). */
const slowHtml = () =>
  `<table>${Array.from({ length: 40_000 }, (_, i) => `<tr><td>${i}</td><td>cell ${i}</td></tr>`).join('')}</table>`;

test.serial('HTML and .docx share one reused child; a failed document gets a fresh one', async (t) => {
  const o1 = tracked();
  await extractDocument(write('a.html', '<p>one</p>'), 'html', o1);
  await extractDocument(write('b.docx', buildDocx(['two'])), 'docx', o1);
  await extractDocument(write('c.html', '<p>three</p>'), 'html', o1);
  t.is(new Set(o1.pids).size, 1, 'one child for all three');
  const bad = await skipOf(extractDocument(write('deep.html', deepHtml(6000)), 'html', o1));
  t.is(bad.reason, 'html-invalid');
  t.false(pidAlive(o1.pids.at(-1)!), 'the child that failed a document was stopped');
  const o2 = tracked();
  const doc = await extractDocument(write('d.html', '<p>four</p>'), 'html', o2);
  t.deepEqual(doc, { kind: 'lines', text: 'four', sourceLines: false });
  t.not(o2.pids[0], o1.pids[0]);
});

test.serial('a conversion past its time limit is stopped and the document skipped', async (t) => {
  const o = tracked({ timeoutMs: 300 });
  const r = await skipOf(extractDocument(write('slow.html', slowHtml()), 'html', o));
  t.is(r.reason, 'extract-limit', r.message);
  t.regex(r.message, /slow\.html: HTML conversion exceeded 300 ms; the extractor was stopped/);
  t.false(pidAlive(o.pids[0]!));
});

test.serial(
  'a conversion past its heap cap is stopped; a normal document under the same cap is fine',
  async (t) => {
    const o = tracked({ heapMb: 24 });
    const r = await skipOf(extractDocument(write('big.html', slowHtml().repeat(3)), 'html', o));
    t.is(r.reason, 'extract-limit', r.message);
    t.regex(r.message, /big\.html: HTML conversion (exceeded the 24 MiB memory cap|used more than \d+ MiB)/);
    const ok = await extractDocument(write('small.html', '<p>fits</p>'), 'html', { heapMb: 24 });
    t.deepEqual(ok, { kind: 'lines', text: 'fits', sourceLines: false });
  },
);

test.serial(
  'a .docx bomb is refused before inflating; a lying one while inflating; under the caps',
  async (t) => {
    const peaks: number[] = [];
    const o: ExtractOptions = { onConversion: (c) => peaks.push(c.peakRssMb) };
    const honest = await skipOf(extractDocument(write('bomb.docx', docxBomb(1024 * 1024 * 1024)), 'docx', o));
    t.is(honest.reason, 'docx-too-large');
    t.regex(honest.message, /expand to 1\.0 GiB, over the 64 MiB cap/);
    const liar = await skipOf(
      extractDocument(write('liar.docx', docxBomb(1024 * 1024 * 1024, false)), 'docx', o),
    );
    t.is(liar.reason, 'docx-too-large');
    t.regex(liar.message, /word\/document\.xml inflates beyond the 4 KiB its directory declares/);
    // The cap is an option: a small one refuses even a modest document.
    const small = await skipOf(
      extractDocument(write('modest.docx', buildDocx(['x'.repeat(5000)])), 'docx', {
        docxMaxUncompressedBytes: 1024,
      }),
    );
    t.is(small.reason, 'docx-too-large');
    t.true(Math.max(...peaks) < 256, `the child peaked at ${Math.max(...peaks)} MiB`);
  },
);

test.serial('cancelling a conversion kills its child at once', async (t) => {
  const ac = new AbortController();
  const o = tracked({ signal: ac.signal });
  const pending = extractDocument(write('slow2.html', slowHtml().repeat(4)), 'html', o);
  // Abort once the conversion child is running, whatever the machine's speed.
  // The clock starts at the abort: a loaded machine may be slow to start the child, not to kill it.
  let abortedAt = 0;
  void waitFor(() => o.pids.length > 0, 'the conversion child to start').then(() => {
    abortedAt = Date.now();
    ac.abort();
  });
  const r = await skipOf(pending);
  t.is(r.code, 'EXTRACT_CANCELLED');
  t.true(abortedAt > 0 && Date.now() - abortedAt < 5000);
  t.false(pidAlive(o.pids[0]!));
});

test.serial('an idle reused child never keeps its parent process alive', async (t) => {
  const mod = fileURLToPath(new URL('../../src/extract/extract.js', import.meta.url));
  const path = write('idle.html', '<p>idle</p>');
  const script = `import(${JSON.stringify(mod)}).then(async (m) => { const d = await m.extractDocument(${JSON.stringify(path)}, 'html'); console.log(d.text); });`;
  const t0 = Date.now();
  const { stdout } = await run(process.execPath, ['-e', script], { timeout: 30_000 });
  t.is(stdout.trim(), 'idle');
  t.true(Date.now() - t0 < 30_000);
});
