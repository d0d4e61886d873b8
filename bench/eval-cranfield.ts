// `npm run eval`: retrieval quality on the judged Cranfield collection (../shared/eval/cranfield,
// read in place) with the offline starter model, through the real pipeline: the 1,400 abstracts
// are written as files, indexed by addSources (scan → extract → chunk → embed → snapshot), and the
// 225 queries go through search() in vector, lexical and hybrid mode. Method and figures:
// docs/EVAL.md. `--update-doc` rewrites the generated part of docs/EVAL.md with this run's tables;
// KORTTY_EVAL_MODEL=<installed model id> evaluates another embedding model the same way.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { fuseRankings, RRF_K } from '../src/retrieve/fuse.js';
import { defaultFusionFor } from '../src/retrieve/fusion-defaults.js';
import { mean } from '../src/retrieve/metrics.js';
import { createSearchDeps, type SearchMode, search } from '../src/retrieve/search.js';
import { korttyHome, modelsDir, ragDir } from '../src/storage/paths.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../src/store/engine.js';
import { resolveModel } from '../src/store/model-resolve.js';
import type { StoreConfig } from '../src/store/store-types.js';
import {
  type CranDoc,
  type Cranfield,
  documentText,
  judgementsFor,
  loadCranfield,
} from './cranfield-data.js';
import {
  type Fusion,
  type Judged,
  perQuery,
  type Ranked,
  type Row,
  renderReport,
  type System,
} from './eval-report.js';

const MODES: SearchMode[] = ['vector', 'lexical', 'hybrid'];
/** The starter model by default; KORTTY_EVAL_MODEL names a model installed in $KORTTY_HOME (or ~/.kortty). */
const MODEL_ID = process.env.KORTTY_EVAL_MODEL ?? STARTER_MODEL_ID;
/** Fusion grid: RRF k, and the vector list's weight with the lexical weight fixed at 1 (only the
 * ratio matters within one store). The first cell is search()'s default. */
const SWEEP_K = [RRF_K, 20, 10, 5, 1];
const SWEEP_VECTOR_WEIGHT = [1, 0.75, 0.5, 0.25, 0.15, 0.1, 0];
/** The setting proposed for the starter model (docs/EVAL.md says why); must be a grid cell. */
const RECOMMENDED: Fusion = { k: RRF_K, vectorWeight: 0.15, lexicalWeight: 1 };

async function indexStore(
  name: string,
  dir: string,
  docs: CranDoc[],
  layout: 'folder' | 'files',
  home: string,
): Promise<{ cfg: StoreConfig; ms: number; chunks: number }> {
  await createStore({ name, modelId: MODEL_ID }, home);
  const inputs =
    layout === 'folder'
      ? [{ kind: 'folder' as const, path: dir }]
      : docs.map((d) => ({ kind: 'file' as const, path: join(dir, `${d.id}.txt`) }));
  const t0 = performance.now();
  const res = await addSources(name, inputs, { ports: createDefaultPorts(home) }, home);
  const ms = performance.now() - t0;
  if (res.summary.indexed !== docs.length || res.summary.problems > 0) {
    throw new Error(
      `${name}: indexed ${res.summary.indexed} of ${docs.length} files, ${res.summary.problems} problems`,
    );
  }
  return { cfg: await findStore(name, home), ms, chunks: res.summary.chunksEmbedded };
}

const docOf = (path: string) => basename(path, '.txt');

async function main() {
  const updateDoc = process.argv.includes('--update-doc');
  const data: Cranfield = await loadCranfield();
  const modelsFrom = korttyHome(); // before KORTTY_HOME points at the temp home
  const home = await mkdtemp(join(tmpdir(), 'kortty-eval-home-'));
  process.env.KORTTY_HOME = home;
  if (MODEL_ID !== STARTER_MODEL_ID) {
    // An installed model is used in place: the temp home links to the models directory.
    await mkdir(ragDir(home), { recursive: true });
    await symlink(modelsDir(modelsFrom), modelsDir(home));
  }
  const dir = await mkdtemp(join(tmpdir(), 'kortty-cranfield-'));
  try {
    for (const d of data.docs) await writeFile(join(dir, `${d.id}.txt`), documentText(d));
    let t0 = performance.now();
    const model = await resolveModel(MODEL_ID, home);
    const modelMs = performance.now() - t0;

    // Store A: the corpus added as one folder (the usual way); store B: one file source per abstract,
    // so the "2 excerpts per source" bound cannot bind and the bounded figure shows the other bounds.
    const a = await indexStore('cranfield-folder', dir, data.docs, 'folder', home);
    const b = await indexStore('cranfield-files', dir, data.docs, 'files', home);
    const deps = createSearchDeps(home);

    const runs: Ranked[] = [];
    const keyDoc = new Map<string, string>();
    t0 = performance.now();
    for (const q of data.queries) {
      const r: Ranked = { query: q.ordinal, lists: {}, keys: { vector: [], lexical: [] } };
      for (const mode of MODES) {
        const res = await search({ stores: [a.cfg], query: q.text, mode }, deps);
        for (const c of res.candidates) keyDoc.set(c.key, docOf(c.path));
        r.lists[mode] = res.candidates.map((c) => docOf(c.path));
        r.lists[`${mode}/bounded-folder`] = res.excerpts.map((e) => docOf(e.path));
        if (mode !== 'hybrid') r.keys[mode] = res.candidates.map((c) => c.key);
        else r.hybridKeys = res.candidates.map((c) => c.key);
        const resB = await search({ stores: [b.cfg], query: q.text, mode }, deps);
        r.lists[`${mode}/bounded-files`] = resB.excerpts.map((e) => docOf(e.path));
      }
      runs.push(r);
    }
    const searchMs = performance.now() - t0;
    await deps.close();

    // search()'s hybrid list must be exactly RRF (defaults) over its own vector and lexical lists:
    // the fusion sweep below re-fuses those lists offline, so this is what makes the sweep faithful.
    let mismatches = 0;
    for (const r of runs) {
      const again = fuseRankings(r.keys, defaultFusionFor(MODEL_ID)).map((f) => f.key);
      if (JSON.stringify(again) !== JSON.stringify(r.hybridKeys)) mismatches++;
    }

    const judged = (maxGrade: number): Judged[] =>
      data.queries.map((q) => ({ query: q.ordinal, gains: judgementsFor(data.qrels, q.ordinal, maxGrade) }));
    const sweep: System[] = [];
    for (const k of SWEEP_K) {
      for (const wv of SWEEP_VECTOR_WEIGHT) {
        const fusion = { k, vectorWeight: wv, lexicalWeight: 1 };
        sweep.push({
          ...fusion,
          lists: runs.map((r) => fuseRankings(r.keys, fusion).map((f) => keyDoc.get(f.key)!)),
        });
      }
    }
    const rows: Row[] = MODES.map((mode) => ({
      mode,
      ranked: runs.map((r) => r.lists[mode]!),
      boundedFolder: runs.map((r) => r.lists[`${mode}/bounded-folder`]!),
      boundedFiles: runs.map((r) => r.lists[`${mode}/bounded-files`]!),
    }));
    // The trap: joining cranqrel on the `.I` ids instead of file order (what the README warns of).
    const trapJudged = (maxGrade: number): Judged[] =>
      data.queries.map((q) => ({
        query: q.ordinal,
        gains: judgementsFor(data.qrels, Number(q.fileId), maxGrade),
      }));
    const lexNdcg = (j: Judged[]) => mean(perQuery(rows.find((r) => r.mode === 'lexical')!.ranked, j).ndcg10);
    const trap = `lexical nDCG@10 (grades 1–3) is ${lexNdcg(judged(3)).toFixed(3)} with judgements joined by file order, ${lexNdcg(trapJudged(3)).toFixed(3)} if joined by the .I ids`;
    const report = renderReport({
      rows,
      sweep,
      recommended: RECOMMENDED,
      trap,
      judged13: judged(3),
      judged14: judged(4),
      setup: {
        docs: data.docs.length,
        queries: data.queries.length,
        qrels: data.qrels.length,
        chunksFolder: a.chunks,
        chunksFiles: b.chunks,
        indexFolderMs: a.ms,
        indexFilesMs: b.ms,
        modelMs,
        searchMs,
        searches: runs.length * MODES.length * 2,
        model: `${MODEL_ID} (${model.fingerprint.dimension} d, sha256 ${model.sha256.slice(0, 12)})`,
        fusionCheck: mismatches === 0 ? 'identical for all queries' : `DIFFERS for ${mismatches} queries`,
      },
    });
    console.log(report);
    if (mismatches > 0) process.exitCode = 1;
    if (updateDoc) await updateEvalDoc(report);
  } finally {
    for (const d of [home, dir]) await rm(d, { recursive: true, force: true });
  }
}

const BEGIN = '<!-- eval:begin (generated by `node dist/bench/eval-cranfield.js --update-doc`) -->';
const END = '<!-- eval:end -->';

async function updateEvalDoc(report: string): Promise<void> {
  const path = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'EVAL.md');
  const doc = await readFile(path, 'utf8');
  const i = doc.indexOf(BEGIN);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`${path}: markers ${BEGIN} … ${END} not found`);
  await writeFile(path, `${doc.slice(0, i + BEGIN.length)}\n\n${report}\n\n${doc.slice(j)}`);
  console.log(`updated ${path}`);
}

await main();
