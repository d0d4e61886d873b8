import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The Cranfield collection (../shared/eval/cranfield/, read in place, never copied): 1,400
// abstracts, 225 queries and graded judgements. Parsing is pure; `loadCranfield` reads the files.
//
// Traps handled here:
// - cranqrel numbers queries by their position in cran.qry (1..225), not by their `.I` id
//   (`.I 001, 002, 004, 008, …`): judgement query n belongs to the n-th query of the file;
// - cran.qry has CRLF line endings, cran.all.1400 LF;
// - both files end with a bare `.I` sentinel line (no id), which is not a record;
// - a few abstracts (576, 578) have two `.W` sections: both are kept, in order.

export interface CranDoc {
  id: string;
  title: string;
  authors: string;
  bibliography: string;
  text: string;
}

export interface CranQuery {
  /** 1-based position in cran.qry: the number cranqrel uses. */
  ordinal: number;
  /** The `.I` id printed in cran.qry (not consecutive). */
  fileId: string;
  text: string;
}

/** Cleverdon's grades: 1 complete answer … 4 minimum interest. */
export interface CranJudgement {
  query: number;
  doc: string;
  grade: number;
}

export interface Cranfield {
  docs: CranDoc[];
  queries: CranQuery[];
  qrels: CranJudgement[];
}

type Record_ = { id: string; fields: Map<string, string[]> };

/** `.I id` records with `.X` field markers; each field keeps its raw lines. */
export function parseRecords(raw: string): Record_[] {
  const out: Record_[] = [];
  let cur: Record_ | undefined;
  let tag: string | undefined;
  for (const line of raw.split(/\r?\n/)) {
    const marker = /^\.([A-Z])(?:\s+(.*))?$/.exec(line);
    if (marker) {
      const [, t, rest] = marker;
      if (t === 'I') {
        const id = rest?.trim();
        cur = id ? { id, fields: new Map() } : undefined; // bare `.I`: end-of-file sentinel
        if (cur) out.push(cur);
        tag = undefined;
      } else if (cur) {
        tag = t!;
        // a repeated section (two `.W` in 576 and 578) continues the first
        if (!cur.fields.has(tag)) cur.fields.set(tag, []);
      }
      continue;
    }
    if (cur && tag) cur.fields.get(tag)!.push(line.trim());
  }
  return out;
}

/** A field's non-blank lines, trimmed and joined with `sep`; runs of spaces collapsed. */
function field(r: Record_, f: string, sep: ' ' | '\n'): string {
  const lines = (r.fields.get(f) ?? []).map((l) => l.replace(/[ \t]+/g, ' ')).filter((l) => l !== '');
  return lines.join(sep);
}

export function parseDocs(raw: string): CranDoc[] {
  return parseRecords(raw).map((r) => ({
    id: String(Number(r.id)),
    title: field(r, 'T', ' '),
    authors: field(r, 'A', ' '),
    bibliography: field(r, 'B', ' '),
    text: field(r, 'W', '\n'),
  }));
}

export function parseQueries(raw: string): CranQuery[] {
  return parseRecords(raw).map((r, i) => ({ ordinal: i + 1, fileId: r.id, text: field(r, 'W', ' ') }));
}

export function parseQrels(raw: string): CranJudgement[] {
  const out: CranJudgement[] = [];
  for (const [n, line] of raw.split(/\r?\n/).entries()) {
    const cols = line.trim().split(/\s+/);
    if (cols.length === 1 && cols[0] === '') continue;
    const [q, d, g] = cols.map(Number);
    if (cols.length !== 3 || !Number.isInteger(q) || !Number.isInteger(d) || !Number.isInteger(g)) {
      throw new Error(`cranqrel line ${n + 1}: expected "query doc grade", got "${line}"`);
    }
    out.push({ query: q!, doc: String(d), grade: g! });
  }
  return out;
}

/** One file per abstract: the title, then the text (whose first lines usually repeat the title). */
export function documentText(d: CranDoc): string {
  const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
  const body = flat(d.text).startsWith(flat(d.title)) ? d.text : `${d.title}\n${d.text}`;
  return `${body}\n`;
}

/**
 * Gains for one query: grades 1..maxGrade are relevant with gain (maxGrade + 1 − grade), so a
 * complete answer (1) weighs most; grades above maxGrade (and grade ≤ 0, used by some copies of
 * the collection for "not relevant") get no entry.
 */
export function judgementsFor(
  qrels: readonly CranJudgement[],
  query: number,
  maxGrade: number,
): Map<string, number> {
  const m = new Map<string, number>();
  for (const j of qrels) {
    if (j.query !== query || j.grade < 1 || j.grade > maxGrade) continue;
    m.set(j.doc, Math.max(m.get(j.doc) ?? 0, maxGrade + 1 - j.grade));
  }
  return m;
}

/** ../shared/eval/cranfield relative to the repository (dist/bench/ → repo root → ..). */
export function defaultCranfieldDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, '..', '..', '..', 'shared', 'eval', 'cranfield');
}

export async function loadCranfield(
  dir = process.env.KORTTY_CRANFIELD_DIR ?? defaultCranfieldDir(),
): Promise<Cranfield> {
  const read = (f: string) => readFile(join(dir, f), 'utf8');
  const c: Cranfield = {
    docs: parseDocs(await read('cran.all.1400')),
    queries: parseQueries(await read('cran.qry')),
    qrels: parseQrels(await read('cranqrel')),
  };
  const docIds = new Set(c.docs.map((d) => d.id));
  for (const j of c.qrels) {
    if (j.query < 1 || j.query > c.queries.length || !docIds.has(j.doc)) {
      throw new Error(`cranqrel names query ${j.query} / document ${j.doc}, which ${dir} does not have`);
    }
  }
  return c;
}
