// `npm run eval`: retrieval quality on the judged Cranfield collection (../shared/eval/cranfield,
// read in place) with the offline starter model, through the real pipeline: the 1,400 abstracts
// are written as files, indexed by addSources (scan → extract → chunk → embed → snapshot), and the
// 225 queries go through search() in vector, lexical and hybrid mode, alone and next to an
// unrelated store of 300 man pages (bench/man-pages.ts) to measure crowding. Method and figures:
// docs/EVAL.md. `--update-doc` rewrites the generated part of docs/EVAL.md with this run's tables;
// KORTTY_EVAL_MODEL=<installed model id> evaluates another embedding model the same way.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createSearchDeps } from '../src/app/search-deps.js';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { tokenize } from '../src/index/tokenize.js';
import { compareFused, type FusedEntry, fuseRankings, RRF_K } from '../src/retrieve/fuse.js';
import { defaultFusionFor } from '../src/retrieve/fusion-defaults.js';
import { mean } from '../src/retrieve/metrics.js';
import { type SearchMode, type SearchResult, search } from '../src/retrieve/search.js';
import { korttyHome, modelsDir, ragDir } from '../src/storage/paths.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../src/store/engine.js';
import { resolveModel } from '../src/store/model-resolve.js';
import type { StoreConfig } from '../src/store/store-types.js';
import { type Cranfield, documentText, judgementsFor, loadCranfield } from './cranfield-data.js';
import { updateEvalDoc } from './eval-doc.js';
import {
  type Crowding,
  crowdingMet,
  type Fusion,
  type Judged,
  perQuery,
  type Ranked,
  type Row,
  renderReport,
  type System,
} from './eval-report.js';
import { DEFAULT_MAN_DIR, loadManPages } from './man-pages.js';

const MODES: SearchMode[] = ['vector', 'lexical', 'hybrid'];
/** The starter model by default; KORTTY_EVAL_MODEL names a model installed in $KORTTY_HOME (or ~/.kortty). */
const MODEL_ID = process.env.KORTTY_EVAL_MODEL ?? STARTER_MODEL_ID;
/** Fusion grid: RRF k, and the vector list's weight with the lexical weight fixed at 1 (only the
 * ratio matters within one store). The first cell is search()'s default. */
const SWEEP_K = [RRF_K, 20, 10, 5, 1];
const SWEEP_VECTOR_WEIGHT = [1, 0.75, 0.5, 0.25, 0.15, 0.1, 0];
/** The setting proposed for the starter model (docs/EVAL.md says why); must be a grid cell. */
const RECOMMENDED: Fusion = { k: RRF_K, vectorWeight: 0, lexicalWeight: 1 };
/** Size of the unrelated store searched next to Cranfield (the crowding table). */
const MAN_PAGES = 300;

async function indexStore(
  name: string,
  inputs: { kind: 'folder' | 'file'; path: string }[],
  files: number,
  home: string,
): Promise<{ cfg: StoreConfig; ms: number; chunks: number }> {
  await createStore({ name, modelId: MODEL_ID }, home);
  const t0 = performance.now();
  const res = await addSources(name, inputs, { ports: createDefaultPorts(home) }, home);
  const ms = performance.now() - t0;
  if (res.summary.indexed !== files || res.summary.problems > 0) {
    throw new Error(
      `${name}: indexed ${res.summary.indexed} of ${files} files, ${res.summary.problems} problems`,
    );
  }
  return { cfg: await findStore(name, home), ms, chunks: res.summary.chunksEmbedded };
}

const docOf = (path: string) => basename(path, '.txt');
/** Man pages get ids no judgement uses, so they count as non-relevant. */
const MAN = 'man:';

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
  const manDir = await mkdtemp(join(tmpdir(), 'kortty-eval-man-'));
  try {
    for (const d of data.docs) await writeFile(join(dir, `${d.id}.txt`), documentText(d));
    let t0 = performance.now();
    const model = await resolveModel(MODEL_ID, home);
    const modelMs = performance.now() - t0;

    // Store A: the corpus added as one folder (the usual way); store B: one file source per abstract.
    // With the cap counted per document, both must give the same bounded excerpts.
    const a = await indexStore('cranfield-folder', [{ kind: 'folder', path: dir }], data.docs.length, home);
    const b = await indexStore(
      'cranfield-files',
      data.docs.map((d) => ({ kind: 'file' as const, path: join(dir, `${d.id}.txt`) })),
      data.docs.length,
      home,
    );
    // Store C: an unrelated store (man pages of this machine), searched together with store A.
    const pages = await loadManPages(MAN_PAGES);
    for (const p of pages) await writeFile(join(manDir, `${p.name}.txt`), p.text);
    const c = await indexStore('man-pages', [{ kind: 'folder', path: manDir }], pages.length, home);
    const deps = createSearchDeps(home);
    const idOf = (cand: { storeId: string; path: string }) =>
      cand.storeId === c.cfg.id ? `${MAN}${docOf(cand.path)}` : docOf(cand.path);
    const fusion = defaultFusionFor(MODEL_ID);
    /** Man-page chunks among `cands` (top 10 / excerpts), and those sharing no word with the query. */
    const intrusions = (query: string, cands: SearchResult['candidates']) => {
      const words = new Set(tokenize(query));
      const man = cands.filter((x) => x.storeId === c.cfg.id);
      return { any: man.length > 0, unshared: man.some((x) => !tokenize(x.text).some((w) => words.has(w))) };
    };
    const crowd: Crowding['perQuery'] = [];

    const runs: Ranked[] = [];
    const keyDoc = new Map<string, string>();
    t0 = performance.now();
    for (const q of data.queries) {
      const r: Ranked = { query: q.ordinal, lists: {}, keys: { vector: [], lexical: [] } };
      for (const mode of MODES) {
        const res = await search({ stores: [a.cfg], query: q.text, mode }, deps);
        for (const x of res.candidates) keyDoc.set(x.key, docOf(x.path));
        r.lists[mode] = res.candidates.map((c) => docOf(c.path));
        r.lists[`${mode}/bounded-folder`] = res.excerpts.map((e) => docOf(e.path));
        if (mode !== 'hybrid') r.keys[mode] = res.candidates.map((c) => c.key);
        else r.hybridKeys = res.candidates.map((c) => c.key);
        const resB = await search({ stores: [b.cfg], query: q.text, mode }, deps);
        r.lists[`${mode}/bounded-files`] = resB.excerpts.map((e) => docOf(e.path));
        const resM = await search({ stores: [a.cfg, c.cfg], query: q.text, mode }, deps);
        r.lists[`${mode}/with-man`] = dedupe(resM.candidates.map(idOf));
        r.lists[`${mode}/with-man-bounded`] = resM.excerpts.map(idOf);
        const top10 = firstDocs(resM.candidates, idOf, 10);
        crowd.push({
          query: q.ordinal,
          mode,
          top10: intrusions(q.text, top10),
          excerpts: intrusions(q.text, resM.excerpts),
        });
      }
      // Before: each store fused on its own, the lists concatenated and ranked by fused score.
      const cv = await search({ stores: [c.cfg], query: q.text, mode: 'vector' }, deps);
      const cl = await search({ stores: [c.cfg], query: q.text, mode: 'lexical' }, deps);
      const manKeys = { vector: cv.candidates.map((x) => x.key), lexical: cl.candidates.map((x) => x.key) };
      for (const x of [...cv.candidates, ...cl.candidates]) keyDoc.set(x.key, idOf(x));
      const separate = [...fuseAlone(r.keys, fusion), ...fuseAlone(manKeys, fusion)].sort(compareFused);
      r.lists['hybrid/with-man-separate'] = dedupe(separate.map((f) => keyDoc.get(f.key)!));
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
    // One folder source and one source per abstract hold the same documents: with the cap counted
    // per document, their excerpts must be the same documents.
    const layoutDiffers = MODES.map(
      (mode) =>
        runs.filter(
          (r) =>
            JSON.stringify(r.lists[`${mode}/bounded-folder`]) !==
            JSON.stringify(r.lists[`${mode}/bounded-files`]),
        ).length,
    );
    const layoutCheck = layoutDiffers.every((n) => n === 0)
      ? 'the same documents for every query in every mode'
      : `DIFFERENT documents for ${MODES.map((m, i) => `${layoutDiffers[i]} ${m}`).join(', ')} queries`;
    const crowding: Crowding = {
      pages: pages.length,
      chunks: c.chunks,
      indexMs: c.ms,
      dir: process.env.KORTTY_EVAL_MAN_DIR ?? DEFAULT_MAN_DIR,
      modes: MODES.map((mode) => ({
        mode,
        ranked: runs.map((r) => r.lists[`${mode}/with-man`]!),
        bounded: runs.map((r) => r.lists[`${mode}/with-man-bounded`]!),
      })),
      separate: runs.map((r) => r.lists['hybrid/with-man-separate']!),
      perQuery: crowd,
    };
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
      crowding,
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
        searches: runs.length * (MODES.length * 3 + 2),
        model: `${MODEL_ID} (${model.fingerprint.dimension} d, sha256 ${model.sha256.slice(0, 12)})`,
        fusionCheck: mismatches === 0 ? 'identical for all queries' : `DIFFERS for ${mismatches} queries`,
        layoutCheck,
      },
    });
    console.log(report);
    if (mismatches > 0 || layoutDiffers.some((n) => n > 0) || !crowdingMet(crowding, rows, judged(3))) {
      process.exitCode = 1;
    }
    if (updateDoc) await updateEvalDoc(report, BEGIN, END);
  } finally {
    for (const d of [home, dir, manDir]) await rm(d, { recursive: true, force: true });
  }
}

/** Ids in first-seen order, each once. */
function dedupe(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** The candidates of the first `n` distinct documents. */
function firstDocs<T extends { storeId: string; path: string }>(
  cands: T[],
  idOf: (c: T) => string,
  n: number,
): T[] {
  const docs = new Set<string>();
  return cands.filter((c) => {
    const id = idOf(c);
    if (docs.size < n) docs.add(id);
    return docs.has(id);
  });
}

/** One store fused on its own, as search() merged stores before global lists (for the table). */
function fuseAlone(lists: { vector: string[]; lexical: string[] }, fusion: Fusion | object): FusedEntry[] {
  const f = fusion as Partial<Fusion>;
  const wv = f.vectorWeight ?? 1;
  const wl = f.lexicalWeight ?? 1;
  const produced = (lists.vector.length > 0 ? wv : 0) + (lists.lexical.length > 0 ? wl : 0);
  const scale = produced > 0 ? (wv + wl) / produced : 1;
  return fuseRankings(lists, fusion).map((e) => ({ ...e, fusedScore: e.fusedScore * scale }));
}

const BEGIN = '<!-- eval:begin (generated by `node dist/bench/eval-cranfield.js --update-doc`) -->';
const END = '<!-- eval:end -->';

await main();
