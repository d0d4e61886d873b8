import { mean, ndcgAt, recallAt, reciprocalRank } from '../src/retrieve/metrics.js';
import { mulberry32 as prng } from '../test/helpers/prng.js';

// Scores and Markdown tables for the Cranfield eval (pure). Per-query metrics are averaged over
// the queries with at least one relevant document at the given grade threshold.

export interface Ranked {
  query: number;
  /** Document ids best first, per system ("hybrid", "hybrid/bounded-folder", …). */
  lists: Record<string, string[]>;
  /** Chunk keys of the vector and lexical candidate lists, best first (inputs of fusion). */
  keys: { vector: string[]; lexical: string[] };
  hybridKeys?: string[];
}

export interface Judged {
  query: number;
  gains: Map<string, number>;
}

export interface Row {
  mode: string;
  /** Per query (same order as the judgements): fused candidates as document ids. */
  ranked: string[][];
  /** What the model gets: the bounded excerpts, for each store layout. */
  boundedFolder: string[][];
  boundedFiles: string[][];
}

export interface System {
  k: number;
  vectorWeight: number;
  lexicalWeight: number;
  lists: string[][];
}

export interface Setup {
  docs: number;
  queries: number;
  qrels: number;
  chunksFolder: number;
  chunksFiles: number;
  indexFolderMs: number;
  indexFilesMs: number;
  modelMs: number;
  searchMs: number;
  searches: number;
  model: string;
  fusionCheck: string;
  layoutCheck: string;
}

/** Cranfield searched together with an unrelated store of man pages (ids `man:…`, never relevant). */
export interface Crowding {
  pages: number;
  chunks: number;
  indexMs: number;
  dir: string;
  /** search() over Cranfield + man pages: fused documents and bounded excerpts, per query. */
  modes: { mode: string; ranked: string[][]; bounded: string[][] }[];
  /** Hybrid, each store fused on its own and the lists concatenated (how stores were merged before). */
  separate: string[][];
  /** Whether a man-page chunk was in the top 10 documents / the excerpts, and whether one shared no word. */
  perQuery: {
    query: number;
    mode: string;
    top10: { any: boolean; unshared: boolean };
    excerpts: { any: boolean; unshared: boolean };
  }[];
}

/** The bound on crowding: merging loses at most this much nDCG@10 and recall@6. */
export const CROWDING_TOLERANCE = 0.01;

interface PerQuery {
  r6: number[];
  rr: number[];
  ndcg10: number[];
}

export function perQuery(lists: string[][], judged: Judged[]): PerQuery {
  const out: PerQuery = { r6: [], rr: [], ndcg10: [] };
  judged.forEach((j, i) => {
    if (![...j.gains.values()].some((g) => g > 0)) return;
    const l = lists[i]!;
    out.r6.push(recallAt(l, j.gains, 6));
    out.rr.push(reciprocalRank(l, j.gains));
    out.ndcg10.push(ndcgAt(l, j.gains, 10));
  });
  return out;
}

/** Mean of b − a over paired queries with a 95% percentile bootstrap interval (10,000 resamples). */
export function pairedDiff(
  a: number[],
  b: number[],
): { diff: number; lo: number; hi: number; better: number; same: number; worse: number } {
  const d = a.map((x, i) => b[i]! - x);
  const rand = prng(20240611);
  const means: number[] = [];
  for (let r = 0; r < 10000; r++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rand() * d.length)]!;
    means.push(s / d.length);
  }
  means.sort((x, y) => x - y);
  const eps = 1e-12;
  return {
    diff: mean(d),
    lo: means[Math.floor(0.025 * means.length)]!,
    hi: means[Math.floor(0.975 * means.length) - 1]!,
    better: d.filter((x) => x > eps).length,
    same: d.filter((x) => Math.abs(x) <= eps).length,
    worse: d.filter((x) => x < -eps).length,
  };
}

/** Markdown table helpers, shared with the selection report. */
export const f3 = (x: number) => x.toFixed(3);
export const signed = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(3);
export const table = (head: string[], body: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

function qualityTable(rows: Row[], judged: Judged[]): string {
  const body = rows.map((r) => {
    const m = perQuery(r.ranked, judged);
    const bf = perQuery(r.boundedFolder, judged);
    const bs = perQuery(r.boundedFiles, judged);
    const n = (ls: string[][]) => mean(ls.map((l) => l.length)).toFixed(1);
    return [
      r.mode,
      f3(mean(m.r6)),
      f3(mean(m.rr)),
      f3(mean(m.ndcg10)),
      `${f3(mean(bs.r6))} (${n(r.boundedFiles)})`,
      `${f3(mean(bf.r6))} (${n(r.boundedFolder)})`,
    ];
  });
  return table(
    [
      'mode',
      'recall@6',
      'MRR',
      'nDCG@10',
      'bounded recall@6, a source per abstract (excerpts)',
      'bounded recall@6, one folder source (excerpts)',
    ],
    body,
  );
}

function relevantQueries(judged: Judged[]): string {
  const q = judged.filter((j) => [...j.gains.values()].some((g) => g > 0));
  const pairs = q.reduce((s, j) => s + [...j.gains.values()].filter((g) => g > 0).length, 0);
  return `${q.length} queries with at least one relevant document, ${pairs} relevant pairs (${(pairs / q.length).toFixed(1)} per query)`;
}

interface Named {
  name: string;
  lists: string[][];
}

/** Paired per-query comparison of `b` against `a` at both grade thresholds. */
function diffTable(a: Named, b: Named, j13: Judged[], j14: Judged[]): string {
  const body: string[][] = [];
  for (const [label, judged] of [
    ['1–3', j13],
    ['1–4', j14],
  ] as const) {
    const pa = perQuery(a.lists, judged);
    const pb = perQuery(b.lists, judged);
    for (const metric of ['r6', 'rr', 'ndcg10'] as Metric[]) {
      const d = pairedDiff(pa[metric], pb[metric]);
      body.push([
        label,
        METRIC_NAME[metric],
        f3(mean(pa[metric])),
        f3(mean(pb[metric])),
        signed(d.diff),
        `[${signed(d.lo)}, ${signed(d.hi)}]`,
        `${d.better} / ${d.same} / ${d.worse}`,
      ]);
    }
  }
  return table(
    ['grades', 'metric', a.name, b.name, 'Δ', '95% CI (paired bootstrap)', 'better / same / worse per query'],
    body,
  );
}

type Metric = 'r6' | 'rr' | 'ndcg10';
const METRIC_NAME: Record<Metric, string> = { r6: 'recall@6', rr: 'MRR', ndcg10: 'nDCG@10' };

/** One metric over the (k × vector weight) grid, with lexical alone as the reference. */
function sweepMatrix(sweep: System[], rows: Row[], judged: Judged[], metric: Metric, label: string): string {
  const lex = mean(perQuery(rows.find((r) => r.mode === 'lexical')!.ranked, judged)[metric]);
  const ks = [...new Set(sweep.map((s) => s.k))];
  const ws = [...new Set(sweep.map((s) => s.vectorWeight))];
  const body = ks.map((k) => [
    `k = ${k}`,
    ...ws.map((w) => {
      const s = sweep.find((x) => x.k === k && x.vectorWeight === w)!;
      const v = mean(perQuery(s.lists, judged)[metric]);
      return `${f3(v)} (${signed(v - lex)})`;
    }),
  ]);
  return [
    `${METRIC_NAME[metric]}, grades ${label} (lexical alone ${f3(lex)}; cell: value (Δ vs lexical)):`,
    '',
    table(['RRF k \\ vectorWeight : lexicalWeight', ...ws.map((w) => `${w} : 1`)], body),
  ].join('\n');
}

const isMan = (id: string) => id.startsWith('man:');

function crowdingTable(x: Crowding, rows: Row[], judged: Judged[]): string {
  const body: string[][] = [];
  const cell = (v: number, base?: number) => (base === undefined ? f3(v) : `${f3(v)} (${signed(v - base)})`);
  const count = (mode: string, f: (q: Crowding['perQuery'][number]) => boolean) =>
    String(x.perQuery.filter((q) => q.mode === mode && f(q)).length);
  for (const m of x.modes) {
    const alone = rows.find((r) => r.mode === m.mode)!;
    const a = perQuery(alone.ranked, judged);
    const ab = perQuery(alone.boundedFolder, judged);
    const w = perQuery(m.ranked, judged);
    const wb = perQuery(m.bounded, judged);
    body.push([
      m.mode,
      'Cranfield alone',
      cell(mean(a.ndcg10)),
      cell(mean(a.r6)),
      cell(mean(ab.r6)),
      '—',
      '—',
      '—',
    ]);
    body.push([
      m.mode,
      `+ ${x.pages} man pages, search()`,
      cell(mean(w.ndcg10), mean(a.ndcg10)),
      cell(mean(w.r6), mean(a.r6)),
      cell(mean(wb.r6), mean(ab.r6)),
      count(m.mode, (q) => q.top10.any),
      count(m.mode, (q) => q.excerpts.any),
      count(m.mode, (q) => q.top10.unshared || q.excerpts.unshared),
    ]);
  }
  const alone = perQuery(rows.find((r) => r.mode === 'hybrid')!.ranked, judged);
  const sep = perQuery(x.separate, judged);
  body.push([
    'hybrid',
    `+ ${x.pages} man pages, each store fused alone (before)`,
    cell(mean(sep.ndcg10), mean(alone.ndcg10)),
    cell(mean(sep.r6), mean(alone.r6)),
    '—',
    String(x.separate.filter((l) => l.slice(0, 10).some(isMan)).length),
    '—',
    '—',
  ]);
  return table(
    [
      'mode',
      'searched',
      'nDCG@10 (Δ)',
      'recall@6 (Δ)',
      'bounded recall@6 (Δ)',
      'queries with a man page in the top 10',
      '… in the excerpts',
      '… that shares no word with the query',
    ],
    body,
  );
}

/** Modes that match words: there a man page sharing no word with the query must never show. Pure
 * vector search ranks by the embedding alone, which may see similarity without a shared word. */
const WORD_MODES = new Set(['hybrid', 'lexical']);

/** True when search() over both stores loses at most CROWDING_TOLERANCE of nDCG@10 and recall@6 in
 * every mode and, in the modes that match words, never shows a man-page chunk sharing no word. */
export function crowdingMet(x: Crowding, rows: Row[], judged: Judged[]): boolean {
  return x.modes.every((m) => {
    const a = perQuery(rows.find((r) => r.mode === m.mode)!.ranked, judged);
    const w = perQuery(m.ranked, judged);
    const unshared = x.perQuery.some((q) => q.mode === m.mode && (q.top10.unshared || q.excerpts.unshared));
    return (
      mean(w.ndcg10) - mean(a.ndcg10) >= -CROWDING_TOLERANCE &&
      mean(w.r6) - mean(a.r6) >= -CROWDING_TOLERANCE &&
      !(unshared && WORD_MODES.has(m.mode))
    );
  });
}

export interface Fusion {
  k: number;
  vectorWeight: number;
  lexicalWeight: number;
}

export function renderReport(x: {
  rows: Row[];
  sweep: System[];
  crowding: Crowding;
  recommended: Fusion;
  judged13: Judged[];
  judged14: Judged[];
  setup: Setup;
  trap: string;
}): string {
  const s = x.setup;
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const mode = (m: string): Named => ({ name: m, lists: x.rows.find((r) => r.mode === m)!.ranked });
  const fused = (f: Fusion): System =>
    x.sweep.find(
      (y) => y.k === f.k && y.vectorWeight / y.lexicalWeight === f.vectorWeight / f.lexicalWeight,
    )!;
  const rec = x.recommended;
  const recName = `hybrid k=${rec.k} ${rec.vectorWeight}:${rec.lexicalWeight}`;
  return [
    `Corpus: ${s.docs} abstracts, ${s.queries} queries, ${s.qrels} judgements. Model: ${s.model}.`,
    `Indexing (addSources, real pipeline): one folder source ${sec(s.indexFolderMs)} → ${s.chunksFolder} chunks; ` +
      `${s.docs} file sources ${sec(s.indexFilesMs)} → ${s.chunksFiles} chunks; model ready in ${sec(s.modelMs)}.`,
    `${s.searches} search() calls in ${sec(s.searchMs)}. search()'s hybrid list vs RRF re-fused offline from its ` +
      `vector and lexical lists: ${s.fusionCheck}.`,
    `Query-numbering trap check: ${x.trap}.`,
    `Bounded excerpts of the one-folder store against the store with a source per abstract: ${s.layoutCheck}.`,
    '',
    `#### Grades 1–3 relevant (${relevantQueries(x.judged13)})`,
    '',
    qualityTable(x.rows, x.judged13),
    '',
    `#### Grades 1–4 relevant (${relevantQueries(x.judged14)})`,
    '',
    qualityTable(x.rows, x.judged14),
    '',
    '#### Hybrid (search() defaults for this model, src/retrieve/fusion-defaults.ts) against lexical, per query',
    '',
    diffTable(mode('lexical'), mode('hybrid'), x.judged13, x.judged14),
    '',
    '#### Fusion settings (fused offline from the same vector and lexical lists; first cell = current default)',
    '',
    sweepMatrix(x.sweep, x.rows, x.judged13, 'ndcg10', '1–3'),
    '',
    sweepMatrix(x.sweep, x.rows, x.judged13, 'rr', '1–3'),
    '',
    sweepMatrix(x.sweep, x.rows, x.judged13, 'r6', '1–3'),
    '',
    sweepMatrix(x.sweep, x.rows, x.judged14, 'ndcg10', '1–4'),
    '',
    `#### Crowding: Cranfield searched together with ${x.crowding.pages} man pages (grades 1–3)`,
    '',
    `The unrelated store: ${x.crowding.pages} pages of ${x.crowding.dir} (bench/man-pages.ts), one folder source, ` +
      `${x.crowding.chunks} chunks, indexed in ${sec(x.crowding.indexMs)}. Man pages are never relevant. ` +
      `Bound: Δ ≥ −${CROWDING_TOLERANCE} for nDCG@10 and recall@6 in every mode, and in hybrid and lexical mode no ` +
      `man-page chunk that shares no word with the query in the top 10 or the excerpts: ` +
      `${crowdingMet(x.crowding, x.rows, x.judged13) ? 'met' : 'NOT MET'}.`,
    '',
    crowdingTable(x.crowding, x.rows, x.judged13),
    '',
    `#### Proposed starter-model setting (${recName}) against lexical and against the current default`,
    '',
    diffTable(mode('lexical'), { name: recName, lists: fused(rec).lists }, x.judged13, x.judged14),
    '',
    diffTable(mode('hybrid'), { name: recName, lists: fused(rec).lists }, x.judged13, x.judged14),
  ].join('\n');
}
