import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTokenizer } from '../src/chunk/tokenizer.js';
import type { SnapshotChunk, SnapshotDoc } from '../src/index/snapshot-types.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../src/store/engine.js';
import { runSync } from '../src/store/index-job.js';
import type { PipelinePorts } from '../src/store/ports.js';
import { planEmbedding, reusableVectors } from '../src/store/vector-reuse.js';
import { benchChunk, codeDoc, prng, proseDoc } from './chunk-bench.js';
import { greedyChunks } from './greedy-chunker.js';
import type { BenchRow } from './run.js';

// Incremental sync, each figure against an anchor measured in this run:
//  - an edit workload (one line appended to each of 40 files, one line inserted in the middle of
//    each of 10 large files) on identical stores with the real generated model: chunks embedded and
//    wall time of the update, for
//      before:   v0.1's pipeline: the greedy chunker (bench/greedy-chunker.ts) and whole-document
//                reuse (a changed file re-embeds every chunk);
//      whole-doc: the content-defined chunker with whole-document reuse (reuseChunks: false), to
//                separate the chunker's share from the reuse's;
//      after:    the content-defined chunker with chunk-level vector reuse (the default);
//  - the reuse map at 100,000 chunks over sha256 of the same texts (what a hash-keyed map costs);
//  - the chunker over bare tiktoken encoding (bench/chunk-bench.ts).

const SMALL = 40;
const LARGE = 10;

async function makeTree(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'kortty-bench-sync-'));
  const rnd = prng(16);
  for (let i = 0; i < SMALL; i++) {
    const bytes = 4096 + Math.floor(rnd() * 12 * 1024); // man-page sized: ~2-5 chunks
    await writeFile(join(root, `page${i}.md`), i % 4 === 3 ? codeDoc(rnd, bytes) : proseDoc(rnd, bytes));
  }
  for (let i = 0; i < LARGE; i++) {
    const bytes = 150 * 1024 + Math.floor(rnd() * 100 * 1024); // ~50-80 chunks
    await writeFile(join(root, `large${i}.md`), i % 2 ? codeDoc(rnd, bytes) : proseDoc(rnd, bytes));
  }
  return root;
}

async function editTree(root: string): Promise<void> {
  for (let i = 0; i < SMALL; i++) {
    const p = join(root, `page${i}.md`);
    await writeFile(p, `${await readFile(p, 'utf8')}Appended note ${i}: the store was updated today.\n`);
  }
  for (let i = 0; i < LARGE; i++) {
    const p = join(root, `large${i}.md`);
    const lines = (await readFile(p, 'utf8')).split('\n');
    lines.splice(Math.floor(lines.length / 2), 0, `An inserted line ${i} in the middle of a large file.`);
    await writeFile(p, lines.join('\n'));
  }
}

function counting(home: string): PipelinePorts & { embedded: number } {
  const base = createDefaultPorts(home);
  const ports = {
    ...base,
    embedded: 0,
    async openEmbedder(fp: Parameters<PipelinePorts['openEmbedder']>[0], id: string) {
      const e = await base.openEmbedder(fp, id);
      return {
        dimension: e.dimension,
        close: () => e.close(),
        embedDocuments(texts: string[], opts?: { signal?: AbortSignal }) {
          ports.embedded += texts.length;
          return e.embedDocuments(texts, opts);
        },
      };
    },
  };
  return ports;
}

async function workload(policy: 'before' | 'whole-doc' | 'after', tree: string) {
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-sync-home-'));
  const root = await mkdtemp(join(tmpdir(), 'kortty-bench-sync-src-'));
  await cp(tree, root, { recursive: true });
  await createStore({ name: 'bench', modelId: 'kortty-lexical-starter' }, home);
  const ports = counting(home);
  if (policy === 'before') ports.chunk = (doc, params) => greedyChunks(doc, params, getTokenizer());
  const reuseChunks = policy === 'after';
  const first = await addSources('bench', [{ kind: 'folder', path: root }], { ports }, home);
  await editTree(root);
  ports.embedded = 0;
  const cfg = await findStore('bench', home);
  const t0 = performance.now();
  const res = await runSync({ storeId: cfg.id, home, sourceIds: [cfg.sources[0]!.id], ports, reuseChunks });
  return { ms: performance.now() - t0, embedded: ports.embedded, res, initial: first.summary.chunksEmbedded };
}

function reuseMapRow(): BenchRow {
  const n = Number(process.env.KORTTY_BENCH_REUSE_CHUNKS ?? 100_000);
  const rnd = prng(5);
  const words = 'store index chunk vector search query model token file folder source snapshot'.split(' ');
  const text = () =>
    Array.from({ length: 450 }, () => words[Math.floor(rnd() * words.length)] as string).join(' ');
  const vector = new Float32Array(384);
  const docs: SnapshotDoc[] = [];
  for (let d = 0; d < n / 100; d++) {
    const chunks: SnapshotChunk[] = Array.from({ length: 100 }, (_, i) => ({
      id: '0'.repeat(16),
      index: i,
      text: text(),
      tokens: 450,
      vector,
    }));
    docs.push({ sourceId: 's', path: `/d${d}`, sha256: '', size: 0, format: 'text', chunks });
  }
  // The next sync re-chunks every document: half the texts are old, half new (fresh strings, as
  // the chunker makes them).
  const fresh = docs.flatMap((d, di) =>
    d.chunks.map((c, i) => ({ ...c, text: (di + i) % 2 ? `${c.text} ` : c.text.slice(0) })),
  );
  const t0 = performance.now();
  const fingerprint = {
    modelId: 'bench',
    fileName: 'bench.gguf',
    fileSize: 0,
    fileSha256: '',
    dimension: 384,
    pooling: 'mean' as const,
    documentPrefix: '',
    queryPrefix: '',
  };
  const work = planEmbedding(fresh, reusableVectors({ fingerprint, docs }, fingerprint));
  const mapMs = performance.now() - t0;
  const t1 = performance.now();
  for (const c of fresh) createHash('sha256').update(c.text).digest();
  const shaMs = performance.now() - t1;
  return {
    name: 'vector reuse map over sha256 of the texts',
    ratio: mapMs / shaMs,
    details: `${n} old + ${n} new chunks (~3 KB each): map + lookups ${mapMs.toFixed(0)} ms (${work.reused} reused, ${work.texts.length} to embed) vs sha256 of the new texts ${shaMs.toFixed(0)} ms`,
  };
}

export async function benchSync(): Promise<BenchRow[]> {
  const tree = await makeTree();
  const before = await workload('before', tree);
  const wholeDoc = await workload('whole-doc', tree);
  const after = await workload('after', tree);
  const what = `appends to ${SMALL} files + one mid-file line in ${LARGE} large files`;
  const rows: BenchRow[] = [
    {
      name: 'edit workload: chunks embedded, after / before',
      ratio: after.embedded / before.embedded,
      details: `${what}: ${after.embedded} chunks embedded (content-defined cuts, chunk reuse; initial index ${after.initial}) vs ${before.embedded} before (greedy cuts, changed files re-embedded whole; initial index ${before.initial}); whole-doc reuse with content-defined cuts: ${wholeDoc.embedded}`,
    },
    {
      name: 'edit workload: update wall time, after / before',
      ratio: after.ms / before.ms,
      details: `update ${(after.ms / 1000).toFixed(1)} s vs ${(before.ms / 1000).toFixed(1)} s before (whole-doc with content-defined cuts ${(wholeDoc.ms / 1000).toFixed(1)} s); scan, extract, chunk, embed, write; generated starter model`,
    },
    reuseMapRow(),
  ];
  rows.push(...(await benchChunk()));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchSync()) console.log(`${r.name}: ${r.ratio.toFixed(3)}  ${r.details}`);
}
