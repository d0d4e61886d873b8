import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { convert } from 'html-to-text';
import { extractDocument } from '../src/extract/extract.js';
import { HTML_TO_TEXT_OPTIONS, htmlToText } from '../src/extract/html.js';
import { decodeUtf8Text } from '../src/extract/text.js';
import { runInWorker, stopExtractWorkers } from '../src/extract/worker-pool.js';
import { detectFormat } from '../src/scan/formats.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore } from '../src/store/engine.js';
import type { PipelinePorts } from '../src/store/ports.js';
import type { BenchRow } from './run.js';

// HTML extraction since it moved into a capped child process (a document that blows the
// converter's stack or memory costs that document only). Anchors, same files, same run:
// - "before": the previous in-process extraction (read, decode, html-to-text convert() per call);
// - in-process with the converter compiled once (what the child runs);
// - a fresh child per file (what a child per document would cost; the pool avoids it);
// and a whole first sync of the HTML folder (scan, extract, chunk, embed, snapshot) now against
// the same sync with the previous in-process extraction. Rounds alternate; medians are reported.

const FILES = Number(process.env.KORTTY_BENCH_HTML_FILES ?? 1000);
const ROUNDS = 5;
const WORDS = 'harbor lantern copper meadow quartz signal orbit cedar prism tundra ledger vector'.split(' ');

function page(i: number): string {
  const para = (n: number) =>
    Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
  const body = Array.from(
    { length: 4 + (i % 12) },
    (_, k) =>
      `<h2>Section ${k}</h2><p>${para(40)} <a href="/x/${k}">${para(3)}</a></p><ul><li>${para(8)}</li><li>${para(6)}</li></ul>`,
  ).join('\n');
  return `<!doctype html><html><head><title>Page ${i}</title><style>p{margin:0}</style></head><body>${body}<table><tr><th>a</th><th>b</th></tr><tr><td>${i}</td><td>${para(4)}</td></tr></table></body></html>`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function before(path: string): Promise<string> {
  const decoded = decodeUtf8Text(await readFile(path));
  if (!decoded.ok) throw new Error(decoded.reason);
  return convert(decoded.text, HTML_TO_TEXT_OPTIONS);
}

async function inProcess(path: string): Promise<string> {
  const decoded = decodeUtf8Text(await readFile(path));
  if (!decoded.ok) throw new Error(decoded.reason);
  return htmlToText(decoded.text);
}

async function pooled(path: string): Promise<string> {
  const doc = await extractDocument(path, 'html');
  return doc.kind === 'lines' ? doc.text : '';
}

const caps = { timeoutMs: 30_000, heapMb: 512, rssMb: 768 };

async function childPerFile(path: string): Promise<string> {
  const decoded = decodeUtf8Text(await readFile(path));
  if (!decoded.ok) throw new Error(decoded.reason);
  const out = await runInWorker({ kind: 'html', text: decoded.text }, { caps, dedicated: true });
  return out.t === 'ok' && out.value.kind === 'text' ? out.value.text : '';
}

async function timeAll(paths: string[], fn: (p: string) => Promise<string>): Promise<number> {
  const t0 = performance.now();
  for (const p of paths) await fn(p);
  return performance.now() - t0;
}

/** The ports of the previous version: HTML converted in this process. */
function beforePorts(home: string): PipelinePorts {
  const base = createDefaultPorts(home);
  return {
    ...base,
    async extract(path, format, signal, expectSha256, scanned) {
      if (detectFormat(basename(path))?.extract !== 'html')
        return base.extract(path, format, signal, expectSha256, scanned);
      return { kind: 'lines', text: await before(path), sourceLines: false };
    },
  };
}

export async function benchExtract(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'kortty-extract-bench-'));
  try {
    const paths: string[] = [];
    let bytes = 0;
    for (let i = 0; i < FILES; i++) {
      const html = page(i);
      const p = join(root, `page-${String(i).padStart(4, '0')}.html`);
      writeFileSync(p, html);
      paths.push(p);
      bytes += html.length;
    }
    // Same text from every path (and warm caches, a warm child).
    for (const p of paths.slice(0, 50)) {
      const [a, b] = [await before(p), await pooled(p)];
      if (
        a
          .replace(/\n{3,}/g, '\n\n')
          .replace(/[ \t]+\n/g, '\n')
          .trim() !== b
      )
        throw new Error(`${p}: the child's text differs from the in-process text`);
    }
    const t = { before: [] as number[], compiled: [] as number[], pooled: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const order =
        r % 2 === 0
          ? (['before', 'compiled', 'pooled'] as const)
          : (['pooled', 'compiled', 'before'] as const);
      for (const k of order)
        t[k].push(await timeAll(paths, k === 'before' ? before : k === 'compiled' ? inProcess : pooled));
    }
    const few = paths.slice(0, 40);
    const perFile = median([await timeAll(few, childPerFile), await timeAll(few, childPerFile)]) / few.length;
    const pooledPer = median(t.pooled) / paths.length;
    const rows: BenchRow[] = [
      {
        name: 'HTML extract: reused child / in-process before',
        ratio: median(t.pooled) / median(t.before),
        details: `${FILES} pages, ${(bytes / 1e6).toFixed(1)} MB; ${median(t.pooled).toFixed(0)} vs ${median(t.before).toFixed(0)} ms (medians of ${ROUNDS}); before = convert() per file in this process`,
      },
      {
        name: 'HTML extract: reused child / in-process compiled',
        ratio: median(t.pooled) / median(t.compiled),
        details: `${median(t.pooled).toFixed(0)} vs ${median(t.compiled).toFixed(0)} ms: the cost of the process boundary (IPC round trip per document)`,
      },
      {
        name: 'HTML extract: child per file / reused child',
        ratio: perFile / pooledPer,
        details: `${perFile.toFixed(1)} vs ${pooledPer.toFixed(2)} ms per document`,
      },
    ];
    // A whole first sync of the folder, now vs the previous in-process extraction.
    const sync: { now: number[]; before: number[] } = { now: [], before: [] };
    // One pair: a sync of 1,000 files takes minutes on a loaded machine, and embedding dominates.
    for (let r = 0; r < 1; r++) {
      for (const k of ['before', 'now'] as const) {
        const home = mkdtempSync(join(tmpdir(), 'kortty-extract-bench-home-'));
        try {
          await createStore({ name: 'Html', modelId: 'kortty-lexical-starter' }, home);
          const ports = k === 'now' ? createDefaultPorts(home) : beforePorts(home);
          const t0 = performance.now();
          await addSources('Html', [{ kind: 'folder', path: root }], { ports }, home);
          sync[k].push(performance.now() - t0);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      }
    }
    rows.push({
      name: `index ${FILES.toLocaleString('en')} HTML files: now / before`,
      ratio: median(sync.now) / median(sync.before),
      details: `first sync (scan, extract, chunk, embed with the starter model, snapshot): ${median(sync.now).toFixed(0)} vs ${median(sync.before).toFixed(0)} ms`,
    });
    return rows;
  } finally {
    await stopExtractWorkers();
    rmSync(root, { recursive: true, force: true });
  }
}
