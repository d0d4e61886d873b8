import { mean } from '../src/retrieve/metrics.js';
import { f3, type Judged, pairedDiff, perQuery, signed, table } from './eval-report.js';
import { type EvalQuery, judgementOf } from './selection-set.js';

// Markdown tables of the selection and question-proxy evaluations (pure): each system's quality,
// each against textbook BM25 and shaping on against off (paired bootstrap), and, for the
// selection set, the figures per kind of selection.

export interface SystemRun {
  /** `textbook BM25`, or a search() mode (`default` = the mode search() picks when none is given). */
  name: string;
  /** Query shaping on or off; null for the baseline (it gets the selection as it is). */
  shape: boolean | null;
  /** Per query: candidate documents best first, and the documents of the bounded excerpts. */
  ranked: string[][];
  bounded: string[][];
}

export interface SetRun {
  title: string;
  queries: EvalQuery[];
  systems: SystemRun[];
}

export const BASELINE = 'textbook BM25';

const shapeLabel = (s: SystemRun) => (s.shape === null ? '—' : s.shape ? 'on' : 'off');

export function judgedOf(queries: readonly EvalQuery[]): Judged[] {
  return queries.map((q, i) => ({ query: i, gains: judgementOf(q) }));
}

type Metric = 'r6' | 'rr' | 'ndcg10';
const METRICS: [Metric, string][] = [
  ['r6', 'recall@6'],
  ['rr', 'MRR'],
  ['ndcg10', 'nDCG@10'],
];

function qualityTable(run: SetRun, judged: Judged[]): string {
  const body = run.systems.map((s) => {
    const m = perQuery(s.ranked, judged);
    const b = perQuery(s.bounded, judged);
    const n = mean(s.bounded.map((l) => l.length)).toFixed(1);
    return [
      s.name,
      shapeLabel(s),
      f3(mean(m.r6)),
      f3(mean(m.rr)),
      f3(mean(m.ndcg10)),
      `${f3(mean(b.r6))} (${n})`,
      f3(mean(b.rr)),
    ];
  });
  return table(
    ['system', 'shaping', 'recall@6', 'MRR', 'nDCG@10', 'bounded recall@6 (excerpts)', 'bounded MRR'],
    body,
  );
}

function diffRows(a: SystemRun, b: SystemRun, judged: Judged[], label: string): string[][] {
  const pa = perQuery(a.ranked, judged);
  const pb = perQuery(b.ranked, judged);
  const ba = perQuery(a.bounded, judged);
  const bb = perQuery(b.bounded, judged);
  const rows: [string, number[], number[]][] = [
    ...METRICS.map(([m, name]): [string, number[], number[]] => [name, pa[m], pb[m]]),
    ['bounded recall@6', ba.r6, bb.r6],
    ['bounded MRR', ba.rr, bb.rr],
  ];
  return rows.map(([metric, x, y]) => {
    const d = pairedDiff(x, y);
    return [
      label,
      metric,
      f3(mean(x)),
      f3(mean(y)),
      signed(d.diff),
      `[${signed(d.lo)}, ${signed(d.hi)}]`,
      `${d.better} / ${d.same} / ${d.worse}`,
    ];
  });
}

const DIFF_HEAD = [
  'comparison',
  'metric',
  'A',
  'B',
  'Δ (B − A)',
  '95% CI (paired bootstrap)',
  'B better / same / worse',
];

function kindTable(run: SetRun, judged: Judged[], systems: SystemRun[]): string {
  const kinds = [...new Set(run.queries.map((q) => q.kind))].sort();
  const body = kinds.map((k) => {
    const idx = run.queries.flatMap((q, i) => (q.kind === k ? [i] : []));
    const cells = systems.flatMap((s) => {
      const m = perQuery(
        idx.map((i) => s.ranked[i]!),
        idx.map((i) => judged[i]!),
      );
      return [f3(mean(m.r6)), f3(mean(m.rr))];
    });
    return [k, String(idx.length), ...cells];
  });
  const head = systems.flatMap((s) => {
    const n = s.shape === null ? s.name : `${s.name}, shaping ${shapeLabel(s)}`;
    return [`${n} recall@6`, `${n} MRR`];
  });
  return table(['kind', 'queries', ...head], body);
}

/** The report of one set: quality per system, Δ against textbook BM25 and of shaping, per kind. */
export function renderSetReport(run: SetRun): string {
  const judged = judgedOf(run.queries);
  const base = run.systems.find((s) => s.name === BASELINE)!;
  const on = run.systems.filter((s) => s.shape === true);
  const vsBase = on.flatMap((s) => diffRows(base, s, judged, `${s.name} (shaping on) vs ${BASELINE}`));
  const shaping = on.flatMap((s) => {
    const off = run.systems.find((x) => x.name === s.name && x.shape === false);
    return off ? diffRows(off, s, judged, `${s.name}: shaping on vs off`) : [];
  });
  const def = run.systems.filter((s) => s.name === 'default' && s.shape !== null);
  return [
    `#### ${run.title}`,
    '',
    qualityTable(run, judged),
    '',
    `Each mode with shaping on against ${BASELINE} (A = ${BASELINE}, B = the mode):`,
    '',
    table(DIFF_HEAD, vsBase),
    '',
    'Query shaping, on (B) against off (A), per mode:',
    '',
    table(DIFF_HEAD, shaping),
    '',
    'Per kind of query:',
    '',
    kindTable(run, judged, [base, ...def]),
  ].join('\n');
}

/** Queries whose page the given system does not rank first: id, kind, the page's rank, the top documents. */
export function misses(run: SetRun, system: SystemRun): string[] {
  return run.queries.flatMap((q, i) => {
    const docs = [...new Set(system.ranked[i])];
    const right = new Set([q.page, ...(q.also ?? [])]);
    const rank = docs.findIndex((d) => right.has(d)) + 1;
    if (rank === 1) return [];
    const at = rank === 0 ? 'not found' : `rank ${rank}`;
    return [`${q.id} (${q.kind}) ${q.page}: ${at}; top ${docs.slice(0, 3).join(', ')}`];
  });
}
