import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createEmbedder } from '../src/embed/provider.js';
import { openSnapshot } from '../src/index/snapshot-io.js';
import { snapshotPath } from '../src/storage/paths.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore, updateSources } from '../src/store/engine.js';
import { resolveModel } from '../src/store/model-resolve.js';
import type { BenchRow } from './run.js';

// Store-level figures, each over an anchor measured in this run:
//  - end-to-end indexing throughput (scan → extract → chunk → embed → snapshot → activate) over
//    bare batched embedding of the very same chunk texts with the same model (aim ≥ 0.9);
//  - a no-change "Update now" on 5,000 files over `openssl dgst -sha256` of the same files (aim ≤ 1.5×).

const run = promisify(execFile);
const WORDS =
  'store index chunk vector search query model token embedding file folder source snapshot excerpt marker terminal retrieval context answer citation page line paragraph document format scan review'.split(
    ' ',
  );

function text(seed: number, words: number): string {
  let s = seed >>> 0;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(WORDS[s % WORDS.length]!);
    if (i % 14 === 13) out.push('\n');
  }
  return out.join(' ');
}

async function makeTree(files: number, words: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'kortty-bench-tree-'));
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${i % 50}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `f${i}.md`), `# file ${i}\n${text(i + 1, words)}\n`);
  }
  return root;
}

export async function benchStore(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-store-'));
  const ports = createDefaultPorts(home);
  const model = await resolveModel('kortty-lexical-starter', home);

  // 1. end-to-end vs bare embedding
  const files = Number(process.env.KORTTY_BENCH_E2E_FILES ?? 300);
  const tree = await makeTree(files, 1200);
  await createStore({ name: 'e2e', modelId: 'kortty-lexical-starter' }, home);
  // Warm the model file cache and node-llama-cpp once so neither side pays first-load costs.
  const warm = await createEmbedder({ modelPath: model.path, sha256: model.sha256 });
  await warm.embedDocuments(['warm up']);
  await warm.close();
  let t0 = performance.now();
  const res = await addSources('e2e', [{ kind: 'folder', path: tree }], { ports }, home);
  const e2eMs = performance.now() - t0;
  const snap = await openSnapshot(snapshotPath('e2e', home));
  const texts = snap!.data.docs.flatMap((d) => d.chunks.map((c) => c.text));
  snap!.close();
  const bare = await createEmbedder({ modelPath: model.path, sha256: model.sha256 });
  t0 = performance.now();
  for (let i = 0; i < texts.length; i += 32) await bare.embedDocuments(texts.slice(i, i + 32));
  const bareMs = performance.now() - t0;
  await bare.close();
  rows.push({
    name: 'store: e2e indexing throughput / bare embedding',
    ratio: bareMs / e2eMs,
    details: `${files} files, ${res.summary.chunksEmbedded} chunks: e2e ${(e2eMs / 1000).toFixed(2)} s (${((texts.length * 1000) / e2eMs).toFixed(1)} chunks/s), bare ${(bareMs / 1000).toFixed(2)} s (aim ≥ 0.9)`,
  });

  // 2. no-change Update now on 5,000 files vs openssl
  const n = Number(process.env.KORTTY_BENCH_SYNC_FILES ?? 5000);
  const big = await makeTree(n, 120);
  await createStore({ name: 'sync', modelId: 'kortty-lexical-starter' }, home);
  await addSources('sync', [{ kind: 'folder', path: big }], { ports }, home);
  const list: string[] = [];
  for (let i = 0; i < n; i++) list.push(join(big, `d${i % 50}`, `f${i}.md`));
  const openssl = async () => {
    const t = performance.now();
    for (let i = 0; i < list.length; i += 500)
      await run('openssl', ['dgst', '-sha256', ...list.slice(i, i + 500)], { maxBuffer: 1 << 26 });
    return performance.now() - t;
  };
  const update = async () => {
    const t = performance.now();
    const r = await updateSources('sync', 'all', { ports }, home);
    if (r.summary.chunksEmbedded !== 0) throw new Error('no-change update embedded chunks');
    return performance.now() - t;
  };
  let bestSsl = Infinity;
  let bestUpd = Infinity;
  for (let round = 0; round < 3; round++) {
    bestSsl = Math.min(bestSsl, await openssl());
    bestUpd = Math.min(bestUpd, await update());
  }
  rows.push({
    name: 'store: no-change Update now / openssl sha256',
    ratio: bestUpd / bestSsl,
    details: `${n} files: update ${bestUpd.toFixed(0)} ms, openssl ${bestSsl.toFixed(0)} ms (best of 3; aim ≤ 1.5)`,
  });
  return rows;
}
