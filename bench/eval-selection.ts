// The second collection of `npm run eval`: what users select in a terminal, judged on real
// programs. The corpus is the man pages of a fixed list of commands (bench/selection-cases.ts),
// rendered by man-db and indexed by addSources with the offline starter model; the queries are the
// real output of those commands run in a throw-away project (wrong flags, missing files, a refused
// connection on a closed loopback port, a bad git repository, a malformed tar, …) framed as a user
// selects it, plus command lines; each is judged by the page of the command that was run. Three
// question sets follow: one derived from each page (a proxy), the option descriptions of fish's
// completions (people's words, bench/option-questions.ts), and those asked as questions. Every mode of
// search() runs with query shaping on and off, next to textbook BM25 over the same chunks with the
// same bounds. Built under temp directories, never in the repository. Method: docs/EVAL.md.
//
//   node dist/bench/eval-selection.js [--update-doc] [--misses] [--modes=lexical,default] [--set=selection]
//   --modes and --set narrow a run for quick comparisons (the baseline always runs); --update-doc
//   needs the full run. KORTTY_EVAL_SELECTION_KEEP=DIR also writes the pages and queries
//   (queries.json) to DIR. The corpus also holds unrelated man pages of this machine
//   (bench/man-pages.ts, never relevant), DEFAULT_EXTRA of them sampled, so the set ranks against a
//   store of about 300 pages like a real one; KORTTY_EVAL_SELECTION_EXTRA=N samples N instead
//   (0: the commands' pages alone).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSearchDeps } from '../src/app/search-deps.js';
import { countTokens } from '../src/chunk/tokenizer.js';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { openSnapshot } from '../src/index/snapshot-io.js';
import { selectExcerpts } from '../src/retrieve/bounds.js';
import { dedupe } from '../src/retrieve/metrics.js';
import { CANDIDATES_PER_LIST, type SearchMode, search } from '../src/retrieve/search.js';
import { snapshotPath } from '../src/storage/paths.js';
import { createDefaultPorts } from '../src/store/default-ports.js';
import { addSources, createStore, findStore } from '../src/store/engine.js';
import { resolveModel } from '../src/store/model-resolve.js';
import type { Candidate } from '../src/types.js';
import { updateEvalDoc } from './eval-doc.js';
import { loadManPages } from './man-pages.js';
import {
  completionDescriptions,
  NAMED_FORMS,
  PER_PAGE,
  pickOptionQuestions,
  QUESTION_FORMS,
} from './option-questions.js';
import { buildProject, captureCases, renderPages } from './selection-capture.js';
import { LINE_CASES, PAGES, RUN_CASES } from './selection-cases.js';
import { BASELINE, misses, renderSetReport, type SetRun, type SystemRun } from './selection-report.js';
import {
  assembleAsked,
  assembleNamed,
  assembleOptionQuestions,
  assembleProxy,
  assembleSelection,
  type EvalQuery,
} from './selection-set.js';
import { buildTextbookIndex, rankTextbook } from './textbook-bm25.js';

/** Unrelated pages sampled into the corpus by default: about 300 pages in all, a real store's size. */
const DEFAULT_EXTRA = 241;
const MODEL_ID = process.env.KORTTY_EVAL_MODEL ?? STARTER_MODEL_ID;
/** search()'s modes, and `default`: the mode search() uses when the request names none. */
const MODES: (SearchMode | 'default')[] = ['vector', 'lexical', 'hybrid', 'default'];

const SETS = ['selection', 'proxy', 'options', 'asked', 'named'];
/** fish's completions, the source of the option questions (Debian's fish package). */
const FISH_COMPLETIONS = '/usr/share/fish/completions';

const docOf = (path: string) => basename(path, '.txt');
/** Fewer selection queries than this fail the run (exit code 1). */
const MIN_SELECTION_QUERIES = 80;
/**
 * Pages are indexed whole, as a user adds them: an option documented past the crowding store's
 * 24,000-character cut (find's -iname, curl's proxy options) must be findable.
 */
const PAGE_CHARS = Number.POSITIVE_INFINITY;

function options() {
  const { values } = parseArgs({
    options: {
      'update-doc': { type: 'boolean', default: false },
      misses: { type: 'boolean', default: false },
      modes: { type: 'string' },
      set: { type: 'string' },
    },
  });
  const modes = values.modes?.split(',') ?? MODES;
  for (const m of modes) {
    if (!(MODES as string[]).includes(m))
      throw new Error(`--modes: unknown mode ${m} (known: ${MODES.join(', ')})`);
  }
  const sets = values.set?.split(',') ?? SETS;
  for (const x of sets)
    if (!SETS.includes(x)) throw new Error(`--set: unknown set ${x} (known: ${SETS.join(', ')})`);
  const extra = Number(process.env.KORTTY_EVAL_SELECTION_EXTRA ?? DEFAULT_EXTRA);
  if (!Number.isInteger(extra) || extra < 0) {
    throw new Error(
      `KORTTY_EVAL_SELECTION_EXTRA: ${process.env.KORTTY_EVAL_SELECTION_EXTRA} is not a page count`,
    );
  }
  const partial = modes.length < MODES.length || sets.length < SETS.length || extra !== DEFAULT_EXTRA;
  if (values['update-doc'] && partial) {
    throw new Error(
      `--update-doc: docs/EVAL.md gets the full run only (no --modes or --set, ${DEFAULT_EXTRA} extra pages)`,
    );
  }
  return {
    updateDoc: values['update-doc'],
    misses: values.misses,
    modes: modes as (SearchMode | 'default')[],
    sets,
    extra,
  };
}

async function main() {
  const opt = options();
  const updateDoc = opt.updateDoc;
  const t0 = performance.now();
  const home = await mkdtemp(join(tmpdir(), 'kortty-eval-sel-home-'));
  process.env.KORTTY_HOME = home;
  const root = await mkdtemp(join(tmpdir(), 'kortty-eval-sel-'));
  try {
    const { pages, missing, cached } = await renderPages(PAGES, undefined, PAGE_CHARS);
    const corpus = join(root, 'pages');
    await mkdir(corpus);
    for (const p of pages) await writeFile(join(corpus, `${p.name}.txt`), p.text);
    const names = new Set(pages.map((p) => p.name));
    const extra =
      opt.extra > 0
        ? (await loadManPages(opt.extra, undefined, PAGE_CHARS)).filter((p) => !names.has(p.name))
        : [];
    for (const p of extra) await writeFile(join(corpus, `${p.name}.txt`), p.text);
    const project = await buildProject(join(root, 'project'));
    const captured = await captureCases(project, RUN_CASES);
    const corpusNames = new Set([...names, ...extra.map((p) => p.name)]);
    const selection = assembleSelection(RUN_CASES, LINE_CASES, names, captured, corpusNames);
    const proxy = assembleProxy(pages);
    const options = await optionQuestions([...pages, ...extra]);
    const asked = assembleAsked(options.queries);
    const named = options.named;
    const buildMs = performance.now() - t0;
    // The set is only worth its figures with enough queries: fewer means this machine lacks the
    // programs or pages (see the notes), and the run says so by failing.
    if (selection.queries.length < MIN_SELECTION_QUERIES) process.exitCode = 1;
    for (const m of missing) console.log(`note: no man page for ${m}: left out of the corpus`);
    for (const n of [...selection.notes, ...proxy.notes, ...options.notes]) console.log(`note: ${n}`);
    const keep = process.env.KORTTY_EVAL_SELECTION_KEEP;
    if (keep) {
      await mkdir(join(keep, 'pages'), { recursive: true });
      for (const p of pages) await writeFile(join(keep, 'pages', `${p.name}.txt`), p.text);
      await writeFile(
        join(keep, 'queries.json'),
        `${JSON.stringify([...selection.queries, ...proxy.queries, ...options.queries, ...asked, ...named], null, 1)}\n`,
      );
    }

    const model = await resolveModel(MODEL_ID, home);
    await createStore({ name: 'selection-pages', modelId: MODEL_ID }, home);
    let t1 = performance.now();
    const res = await addSources(
      'selection-pages',
      [{ kind: 'folder', path: corpus }],
      { ports: createDefaultPorts(home) },
      home,
    );
    const indexMs = performance.now() - t1;
    if (res.summary.indexed !== pages.length + extra.length || res.summary.problems > 0) {
      throw new Error(
        `selection-pages: indexed ${res.summary.indexed} of ${pages.length + extra.length} pages, ${res.summary.problems} problems`,
      );
    }
    const cfg = await findStore('selection-pages', home);

    // The baseline ranks the very chunks of the store's snapshot, and goes through the same bounds.
    const snap = await openSnapshot(snapshotPath(cfg.id, home), { expectFingerprint: cfg.fingerprint });
    if (!snap) throw new Error('selection-pages: no snapshot after indexing');
    const chunks: Candidate[] = snap.data.docs.flatMap((doc) =>
      doc.chunks.map((c) => ({
        key: `${cfg.id}:${c.id}`,
        storeId: cfg.id,
        storeName: cfg.name,
        sourceId: doc.sourceId,
        path: doc.path,
        lineStart: c.lineStart,
        lineEnd: c.lineEnd,
        text: c.text,
        tokens: c.tokens,
        fusedScore: 0,
        chunkId: c.id,
        contentSha256: doc.sha256,
      })),
    );
    snap.close();
    const textbook = buildTextbookIndex(chunks.map((c) => c.text));

    const deps = createSearchDeps(home);
    t1 = performance.now();
    let searches = 0;
    const runSet = async (title: string, queries: EvalQuery[]): Promise<SetRun> => {
      const systems: SystemRun[] = [{ name: BASELINE, shape: null, ranked: [], bounded: [] }];
      for (const shape of [true, false])
        for (const m of opt.modes) systems.push({ name: m, shape, ranked: [], bounded: [] });
      for (const q of queries) {
        const top = rankTextbook(textbook, q.text, CANDIDATES_PER_LIST).map(
          (h, i): Candidate => ({
            ...chunks[h.chunk]!,
            fusedScore: h.score,
            lexicalScore: h.score,
            lexicalRank: i + 1,
          }),
        );
        systems[0]!.ranked.push(dedupe(top.map((c) => docOf(c.path))));
        systems[0]!.bounded.push(
          selectExcerpts(top, { contextWindow: 32768 }, countTokens).map((e) => docOf(e.path)),
        );
        for (const s of systems.slice(1)) {
          const r = await search(
            {
              stores: [cfg],
              query: q.text,
              shape: s.shape!,
              ...(s.name === 'default' ? {} : { mode: s.name as SearchMode }),
            },
            deps,
          );
          searches++;
          s.ranked.push(dedupe(r.candidates.map((c) => docOf(c.path))));
          s.bounded.push(r.excerpts.map((e) => docOf(e.path)));
        }
      }
      return { title, queries, systems };
    };
    const runs: SetRun[] = [];
    if (opt.sets.includes('selection')) {
      runs.push(
        await runSet(
          `Selection set: ${selection.queries.length} terminal selections of real programs, judged by the program's page`,
          selection.queries,
        ),
      );
    }
    if (opt.sets.includes('proxy')) {
      runs.push(
        await runSet(
          `Question proxy (derived): ${proxy.queries.length} questions made from each page's first DESCRIPTION sentence, names masked`,
          proxy.queries,
        ),
      );
    }
    if (opt.sets.includes('options')) {
      runs.push(
        await runSet(
          `Option questions: ${options.queries.length} option descriptions from fish's completions (at most ${PER_PAGE} per program, names masked), judged by the program's page`,
          options.queries,
        ),
      );
    }
    if (opt.sets.includes('asked')) {
      runs.push(
        await runSet(
          `Option questions asked: the same ${asked.length}, each put as a question in one of ${QUESTION_FORMS.length} forms in turn ("How do I …?", "Is there a way to …?")`,
          asked,
        ),
      );
    }
    if (opt.sets.includes('named')) {
      runs.push(
        await runSet(
          `Option questions named: the same ${named.length}, unmasked, each asked naming its program in one of ${NAMED_FORMS.length} forms in turn ("In tar, how can I …?", "How do I make tar …?")`,
          named,
        ),
      );
    }
    const searchMs = performance.now() - t1;
    await deps.close();

    const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const kinds = [...new Set(selection.queries.map((q) => q.kind))]
      .sort()
      .map((k) => `${selection.queries.filter((q) => q.kind === k).length} ${k}`)
      .join(', ');
    const report = [
      `Corpus: ${pages.length} man pages rendered by man-db (${cached} from the cache; ${missing.length ? `missing, left out: ${missing.join(', ')}` : 'none missing'})` +
        `${extra.length ? ` and ${extra.length} unrelated pages (never relevant)` : ''}, ` +
        `${chunks.length} chunks, indexed in ${sec(indexMs)}. Model: ${MODEL_ID} (${model.fingerprint.dimension} d, sha256 ${model.sha256.slice(0, 12)}).`,
      `Selection queries: ${selection.queries.length} (${kinds}); cases left out: ${selection.notes.length}. ` +
        `Pages, project and captures built in ${sec(buildMs)}; ${searches} search() calls in ${sec(searchMs)}.`,
      ...runs.flatMap((r) => ['', renderSetReport(r)]),
    ].join('\n');
    console.log(report);
    if (selection.queries.length < MIN_SELECTION_QUERIES) {
      console.log(
        `FAILED: ${selection.queries.length} selection queries, at least ${MIN_SELECTION_QUERIES} needed (see the notes)`,
      );
    }
    if (opt.misses) {
      for (const run of runs) {
        for (const s of run.systems.filter((x) => x.name === BASELINE || (x.name === 'default' && x.shape))) {
          console.log(`\nnot at rank 1, ${s.name}${s.shape ? ' (shaping on)' : ''}, ${run.title}:`);
          for (const m of misses(run, s)) console.log(`  ${m}`);
        }
      }
    }
    if (updateDoc) await updateEvalDoc(report, BEGIN, END);
  } finally {
    for (const d of [home, root]) await rm(d, { recursive: true, force: true });
  }
}

const BEGIN = '<!-- selection-eval:begin (generated by `node dist/bench/eval-selection.js --update-doc`) -->';
const END = '<!-- selection-eval:end -->';

/** The option questions of the corpus's programs that fish completes; a note when fish is missing. */
async function optionQuestions(pages: readonly { name: string; text: string }[]) {
  const byProgram = new Map<string, string[]>();
  for (const p of pages) {
    const file = await readFile(join(FISH_COMPLETIONS, `${p.name}.fish`), 'utf8').catch(() => undefined);
    if (file !== undefined) byProgram.set(p.name, completionDescriptions(p.name, file));
  }
  const notes =
    byProgram.size === 0
      ? [`no fish completions in ${FISH_COMPLETIONS} (install fish): no option questions`]
      : [];
  const picked = pickOptionQuestions(byProgram);
  return { queries: assembleOptionQuestions(pages, picked), named: assembleNamed(pages, picked), notes };
}

await main();
