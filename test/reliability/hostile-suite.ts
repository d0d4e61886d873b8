import { execFile, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isKorttyError } from '../../src/errors.js';
import { extractDocument } from '../../src/extract/extract.js';
import { pooledWorkerPid } from '../../src/extract/worker-pool.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { detectFormat } from '../../src/scan/formats.js';
import { scanSource } from '../../src/scan/scan-source.js';
import { snapshotPath, storeConfigPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { storeIdFor } from '../../src/store/store-config.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import type { Review } from '../../src/types.js';
import { buildDocx } from '../extract/docx-fixture.js';
import { buildTextPdf } from '../fixtures/pdf.js';
import { loopingPdf, writeBigDir, writeHostileTree } from '../helpers/hostile-corpus.js';
import { homeWithStarter, writeTree } from '../helpers/store-env.js';
import { check, createRow, type SuiteRow, scratchDirSync, sleep } from './common.js';
import { rewriteVersions } from './rewrite-versions.js';

// Item 4: hostile files. A generated tree (mutated PDFs: byte flips, truncation, damaged xref;
// a 1,000-level directory chain; invalid-UTF-8, line-break and control-character names; FIFOs
// and a socket under allowlisted names; symbolic-link loops; binary and invalid-UTF-8 contents)
// is indexed in this process and again by the CLI in a child process: every file is indexed or
// skipped with a reason, no extraction outlives its timeout, no parser process is left, this
// process survives, and both runs give byte-identical snapshots and the same problem lists.
// Also: a PDF that hangs the parser (bounded by the timeout), a directory of 100,000 entries, and
// files rewritten while they are scanned and read (the index never pairs one version's hash with
// another version's text, and Update now converges once they settle).

const REWRITER = fileURLToPath(new URL('./rewriter.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const run = promisify(execFile);

export interface HostileOptions {
  pdfSeeds: number;
  bigDirEntries: number;
  depth: number;
  /** PDF timeout for the in-process runs (the CLI run uses its default). */
  pdfTimeoutMs?: number;
  /** Timeout for the PDF that hangs the parser (default 3 s). */
  hangTimeoutMs?: number;
  /** Second run through the CLI in a child process (default) or in this process (quicker). */
  secondRun?: 'cli' | 'in-process';
  /** Syncs while files are rewritten (default 6). */
  rewriteSyncs?: number;
  log?: (line: string) => void;
}

interface Extraction {
  ms: number;
  skipReason?: string;
}

/** The real pipeline, with the PDF timeout set and every extraction timed. */
function timedPorts(home: string, pdfTimeoutMs: number, seen: Map<string, Extraction>): PipelinePorts {
  const base = createDefaultPorts(home);
  return {
    ...base,
    async extract(path, _format, signal, expectSha256, scanned) {
      const t0 = performance.now();
      try {
        return await extractDocument(path, detectFormat(basename(path))?.extract ?? 'text', {
          signal,
          pdfTimeoutMs,
          expectSha256,
          scanned,
        });
      } catch (err) {
        seen.set(path, {
          ms: performance.now() - t0,
          skipReason: isKorttyError(err) ? String(err.details.skipReason ?? err.code) : String(err),
        });
        throw err;
      } finally {
        if (!seen.has(path)) seen.set(path, { ms: performance.now() - t0 });
      }
    },
  };
}

/** Extraction children of this process still alive, but for the idle reused one (HTML, .docx). */
function parserChildren(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('extract-child')) out.push(Number(d));
    } catch {}
  }
  return out.filter((pid) => pid !== pooledWorkerPid());
}

function problemsOf(cfg: StoreConfig): string[] {
  return cfg.sources.flatMap((s) => s.problemList.map((p) => `${p.path} ${p.reason}`));
}

export async function runHostileSuite(opts: HostileOptions): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const pdfTimeoutMs = opts.pdfTimeoutMs ?? 10_000;
  const grace = 3000;
  const rows: SuiteRow[] = [];

  // A. The static hostile tree, twice.
  const treeRow = createRow(
    `hostile tree (${opts.pdfSeeds} mutated PDFs, depth ${opts.depth}, bad names, FIFOs, loops)`,
  );
  const twiceRow = createRow(
    opts.secondRun === 'in-process'
      ? 'hostile tree indexed a second time: same result'
      : 'hostile tree indexed again by the CLI (child process): same result',
  );
  const pdfRow = createRow(`mutated PDFs: indexed or skipped, each within its timeout (${pdfTimeoutMs} ms)`);
  const root = scratchDirSync('kortty-rel-hostile-');
  const tree = await writeHostileTree(root, { pdfs: opts.pdfSeeds, depth: opts.depth });
  log(`hostile: tree written (${tree.files.length} files)`);
  const home1 = await homeWithStarter();
  let snap1: Buffer | undefined;
  let cfg1: StoreConfig | undefined;
  await treeRow.trial(async () => {
    const seen = new Map<string, Extraction>();
    await createStore({ name: 'Hostile', modelId: 'kortty-lexical-starter' }, home1);
    const res = await addSources(
      'Hostile',
      [{ kind: 'folder', path: root }],
      { ports: timedPorts(home1, pdfTimeoutMs, seen) },
      home1,
    );
    cfg1 = await findStore('Hostile', home1);
    const review = res.reviews.get(cfg1.sources[0]!.id) as Review;
    check(review && !review.stoppedBy, 'the scan did not complete');
    const snap = await openSnapshot(snapshotPath(storeIdFor('Hostile'), home1));
    check(snap, 'no snapshot');
    const docs = new Set(snap.data.docs.map((d) => d.path));
    snap.close();
    snap1 = await readFile(snapshotPath(storeIdFor('Hostile'), home1));
    const rowsByRel = new Map(review.rows.map((r) => [r.relPath, r]));
    const counts = new Map<string, number>();
    for (const f of tree.files) {
      const abs = join(root, f.rel);
      const row = rowsByRel.get(f.rel);
      check(row, `no review row for ${f.rel}`);
      let outcome: string;
      if (row.status === 'skipped') {
        check(row.reason && row.explanation, `${f.rel} skipped without a reason`);
        outcome = `skipped at scan: ${row.reason}`;
      } else if (docs.has(abs)) {
        outcome = 'indexed';
      } else {
        const x = seen.get(abs);
        check(x?.skipReason, `${f.rel} was accepted but is neither indexed nor skipped with a reason`);
        outcome = `skipped at extraction: ${x.skipReason}`;
      }
      if (f.kind === 'deep') check(outcome === 'indexed', `${f.rel}: ${outcome}`);
      if (f.kind === 'pdf') pdfRow.trials++;
      const key = `${f.kind}: ${outcome}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const reasons = (reason: string) => review.rows.filter((r) => r.reason === reason).length;
    check(reasons('bad-name') === tree.badNames, `bad-name rows ${reasons('bad-name')} ≠ ${tree.badNames}`);
    check(
      reasons('special-file') === tree.specials,
      `special-file rows ${reasons('special-file')} ≠ ${tree.specials}`,
    );
    check(reasons('symlink') === tree.symlinks, `symlink rows ${reasons('symlink')} ≠ ${tree.symlinks}`);
    check(
      review.rows.every((r) => r.status !== 'skipped' || (r.reason && r.explanation)),
      'a skipped row has no reason',
    );
    for (const [path, x] of seen) {
      pdfRow.worstMs = Math.max(pdfRow.worstMs, x.ms);
      if (x.ms > pdfTimeoutMs + grace) pdfRow.fail(`${path}: extraction took ${x.ms.toFixed(0)} ms`);
    }
    const left = parserChildren();
    check(left.length === 0, `PDF parser processes left: ${left.join(', ')}`);
    treeRow.note(
      [...counts]
        .sort()
        .map(([k, n]) => `${k} ×${n}`)
        .join('; '),
    );
  }, 'in-process run');
  rows.push(treeRow, pdfRow);
  log('hostile: in-process run done');

  await twiceRow.trial(async () => {
    const home2 = await homeWithStarter();
    const env = { ...process.env, KORTTY_HOME: home2 };
    const t0 = performance.now();
    if (opts.secondRun === 'in-process') {
      await createStore({ name: 'Hostile', modelId: 'kortty-lexical-starter' }, home2);
      await addSources(
        'Hostile',
        [{ kind: 'folder', path: root }],
        { ports: timedPorts(home2, pdfTimeoutMs, new Map()) },
        home2,
      );
      twiceRow.note(`second run (in this process) took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } else {
      await run(process.execPath, [CLI, 'store', 'create', 'Hostile', '--model', 'kortty-lexical-starter'], {
        env,
      });
      const r = await run(process.execPath, [CLI, 'source', 'add', 'Hostile', root, '--yes', '--json'], {
        env,
        timeout: 30 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((e) => e as { code?: number; stderr?: string });
      twiceRow.note(`CLI run took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      check(!('code' in r) || !r.code, () => `the CLI failed: ${(r as { stderr?: string }).stderr}`);
    }
    const snap2 = await readFile(snapshotPath(storeIdFor('Hostile'), home2));
    check(snap1 && snap2.equals(snap1), 'the two runs gave different snapshots');
    const cfg2 = JSON.parse(
      await readFile(storeConfigPath(storeIdFor('Hostile'), home2), 'utf8'),
    ) as StoreConfig;
    const a = problemsOf(cfg1!);
    const b = problemsOf(cfg2);
    check(
      JSON.stringify(a) === JSON.stringify(b),
      () => `problem lists differ:\n${a.join('\n')}\n---\n${b.join('\n')}`,
    );
    const s1 = cfg1!.sources[0]!;
    const s2 = cfg2.sources[0]!;
    check(
      s1.files === s2.files && s1.chunks === s2.chunks && s1.problems === s2.problems,
      'source counts differ',
    );
    await rm(home2, { recursive: true, force: true });
  }, 'CLI run');
  rows.push(twiceRow);
  log('hostile: CLI run done');

  rows.push(await hangingPdf(opts.hangTimeoutMs ?? 3000, grace));
  rows.push(...(await bigDirectory(opts.bigDirEntries, log)));
  rows.push(await rewrittenWhileRead(log, opts.rewriteSyncs ?? 6));
  rows.push(await extractorChecksHash());
  await rm(home1, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  return rows;
}

/** A PDF that hangs the parser: skipped as pdf-timeout after the timeout, the job goes on. */
async function hangingPdf(timeoutMs: number, grace: number): Promise<SuiteRow> {
  const row = createRow(`PDF that hangs the parser: skipped at the timeout (${timeoutMs} ms), job completes`);
  await row.trial(async () => {
    const root = scratchDirSync('kortty-rel-hang-');
    await writeFile(join(root, 'loop.pdf'), loopingPdf());
    await writeFile(join(root, 'fine.md'), 'a fine document next to a hanging one\n');
    const home = await homeWithStarter();
    const seen = new Map<string, Extraction>();
    await createStore({ name: 'Hang', modelId: 'kortty-lexical-starter' }, home);
    const t0 = performance.now();
    await addSources(
      'Hang',
      [{ kind: 'folder', path: root }],
      { ports: timedPorts(home, timeoutMs, seen) },
      home,
    );
    const ms = performance.now() - t0;
    const x = seen.get(join(root, 'loop.pdf'));
    check(x?.skipReason === 'pdf-timeout', `loop.pdf: ${JSON.stringify(x)}`);
    check(x.ms >= timeoutMs - 50 && x.ms <= timeoutMs + grace, `the parser ran ${x.ms.toFixed(0)} ms`);
    const snap = await openSnapshot(snapshotPath(storeIdFor('Hang'), home));
    check(
      snap?.data.docs.some((d) => d.path.endsWith('fine.md')),
      'fine.md was not indexed',
    );
    snap!.close();
    check(parserChildren().length === 0, 'a parser process was left');
    row.note(`job ${ms.toFixed(0)} ms, parser killed after ${x.ms.toFixed(0)} ms`);
    await rm(home, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  });
  return row;
}

/** A directory with `n` entries: as a source (preview bound) and scanned with the bound raised. */
async function bigDirectory(n: number, log: (l: string) => void): Promise<SuiteRow[]> {
  const asSource = createRow(`directory of ${n.toLocaleString('en')} entries as a source`);
  const scanned = createRow(
    `directory of ${n.toLocaleString('en')} entries scanned with the bound raised: a row each`,
  );
  const root = scratchDirSync('kortty-rel-bigdir-');
  const dir = join(root, 'many');
  writeBigDir(dir, n);
  log(`hostile: ${n} entries written`);
  const home = await homeWithStarter();
  await asSource.trial(async () => {
    await createStore({ name: 'Big', modelId: 'kortty-lexical-starter' }, home);
    await addSources('Big', [{ kind: 'folder', path: dir }], { ports: createDefaultPorts(home) }, home);
    const src = (await findStore('Big', home)).sources[0]!;
    if (n > 5000) {
      check(
        src.status === 'ERROR' && /preview stopped/.test(src.statusReason ?? ''),
        `status ${src.status}: ${src.statusReason}`,
      );
      asSource.note(`status ${src.status}: ${src.statusReason}`);
    } else {
      check(
        src.status === 'READY' && src.files === Math.ceil(n / 10),
        `status ${src.status}, ${src.files} files`,
      );
    }
  });
  await scanned.trial(async () => {
    const review = await scanSource({ root: dir, kind: 'folder', bounds: { maxFiles: n + 1 } });
    check(!review.stoppedBy, 'the scan stopped');
    check(review.rows.length === n, `${review.rows.length} rows for ${n} entries`);
    const accepted = review.rows.filter((r) => r.status !== 'skipped').length;
    check(accepted === Math.ceil(n / 10), `${accepted} accepted`);
    check(
      review.rows.every((r) => r.status !== 'skipped' || r.reason === 'unsupported-format'),
      'unexpected reasons',
    );
  });
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  return [asSource, scanned];
}

/** Each extractor refuses bytes whose hash is not the scanned one (the fix the row above needs). */
async function extractorChecksHash(): Promise<SuiteRow> {
  const row = createRow('extraction refuses content that changed since the scan (text, HTML, PDF, docx)');
  const root = scratchDirSync('kortty-rel-hash-');
  const files: [string, Buffer, 'text' | 'html' | 'pdf' | 'docx'][] = [
    ['a.md', Buffer.from('plain text\n'), 'text'],
    ['b.html', Buffer.from('<p>html text</p>'), 'html'],
    ['c.pdf', buildTextPdf([['pdf text']]), 'pdf'],
    ['d.docx', buildDocx(['docx text']), 'docx'],
  ];
  for (const [name, bytes, kind] of files) {
    await row.trial(async () => {
      const path = join(root, name);
      await writeFile(path, bytes);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const ok = await extractDocument(path, kind, { expectSha256: sha });
      check(JSON.stringify(ok).includes('text'), `${name}: no text extracted`);
      const err = await extractDocument(path, kind, { expectSha256: 'f'.repeat(64) }).then(
        () => undefined,
        (e) => e,
      );
      check(isKorttyError(err, 'EXTRACT_FAILED'), `${name}: ${err}`);
      check(
        err.details.skipReason === 'read-error' && /changed since the scan/.test(err.message),
        err.message,
      );
    }, name);
  }
  check(parserChildren().length === 0, 'a parser process was left');
  await rm(root, { recursive: true, force: true });
  return row;
}

/** Files rewritten in place while the scanner and the extractor read them. */
async function rewrittenWhileRead(log: (l: string) => void, syncs: number): Promise<SuiteRow> {
  const row = createRow('files rewritten while being read: hash and text always of one version');
  const root = scratchDirSync('kortty-rel-rewrite-');
  const files: Record<string, string> = {};
  for (let i = 0; i < 24; i++)
    files[`r${String(i).padStart(2, '0')}.md`] = rewriteVersions(`r${i}.md`)[0]!.toString();
  await writeTree(root, files);
  const home = await homeWithStarter();
  await createStore({ name: 'Rewrite', modelId: 'kortty-lexical-starter' }, home);
  const ports = createDefaultPorts(home);
  await addSources('Rewrite', [{ kind: 'folder', path: root }], { ports }, home);
  const writer = fork(
    REWRITER,
    Object.keys(files).map((f) => join(root, f)),
    { stdio: 'ignore' },
  );
  let inconsistent = 0;
  let changed = 0;
  const first = join(root, Object.keys(files)[0]!);
  try {
    for (let i = 0; i < syncs; i++) {
      await row.trial(async () => {
        await updateSources('Rewrite', 'all', { ports }, home);
        const snap = await openSnapshot(snapshotPath(storeIdFor('Rewrite'), home));
        check(snap, 'no snapshot');
        try {
          for (const d of snap.data.docs) {
            // Small files are one chunk whose text is the whole file: its hash must be the text's.
            const text = d.chunks.map((c) => c.text).join('');
            const h = createHash('sha256').update(text).digest('hex');
            if (h !== d.sha256) {
              inconsistent++;
              throw new Error(
                `${basename(d.path)}: the snapshot pairs hash ${d.sha256.slice(0, 12)} with the text of another version (${JSON.stringify(text.slice(0, 40))})`,
              );
            }
          }
        } finally {
          snap.close();
        }
        const cfg = await findStore('Rewrite', home);
        check(
          cfg.sources[0]!.problemList.every((p) => p.reason && p.explanation),
          'a problem without a reason',
        );
        changed += cfg.sources[0]!.problemList.filter((p) =>
          /changed since the scan/.test(p.explanation ?? ''),
        ).length;
        // The next sync must meet files the writer has rewritten since this one was checked.
        const checkedAt = Date.now();
        const until = checkedAt + 10_000;
        while (statSync(first).mtimeMs <= checkedAt) {
          check(Date.now() < until, 'the rewriter wrote nothing for 10 s');
          await sleep(5);
        }
      }, `sync ${i} while rewriting`);
    }
  } finally {
    writer.kill('SIGKILL');
    await new Promise((r) => writer.once('exit', r));
  }
  // Once the files settle, Update now converges to a from-scratch index of the settled tree.
  await row.trial(async () => {
    await writeTree(root, files);
    await updateSources('Rewrite', 'all', { ports }, home);
    await updateSources('Rewrite', 'all', { ports }, home);
    const ref = await homeWithStarter();
    await createStore({ name: 'Rewrite', modelId: 'kortty-lexical-starter' }, ref);
    await addSources('Rewrite', [{ kind: 'folder', path: root }], { ports: createDefaultPorts(ref) }, ref);
    const a = await readFile(snapshotPath(storeIdFor('Rewrite'), home));
    const b = await readFile(snapshotPath(storeIdFor('Rewrite'), ref));
    check(a.equals(b), 'after the files settled, Update now did not converge to a from-scratch index');
    await rm(ref, { recursive: true, force: true });
  }, 'settle and converge');
  row.note(
    `${inconsistent} documents paired a hash with another version's text; ${changed} skipped as changed since the scan`,
  );
  log('hostile: rewrite done');
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
  return row;
}
