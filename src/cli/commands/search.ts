import { formatLocation, type ShapedQuery, shapeQuery } from '../../app/present.js';
import type { SearchMode } from '../../app/search.js';
import { searchViaService } from '../../app/warm.js';
import { korttyHome } from '../../storage/paths.js';
import { type Candidate, EXPLAIN_SHARES, type Excerpt } from '../../types.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { CONTEXT_WINDOW_RANGE, wholeRange } from '../args.js';
import { type CommandContext, defineCommand, usageError } from '../command.js';

// Only what the warm path needs is imported up front: when the query service answers, this process
// never loads the engine, the tokenizer or a model. The in-process search is imported on fallback.

const options = {
  store: { type: 'string', multiple: true, value: 'NAME', help: 'search this store (default: every store)' },
  mode: {
    type: 'string',
    value: 'MODE',
    help: 'ranking',
    choices: ['hybrid', 'vector', 'lexical'],
    default: 'hybrid',
  },
  'context-window': {
    type: 'string',
    value: 'N',
    help: "the target model's context window in tokens (bounds the excerpts)",
    range: CONTEXT_WINDOW_RANGE,
  },
  candidates: {
    type: 'string',
    value: 'N',
    help: 'also show the first N of the fused ranking the excerpts were chosen from',
    range: wholeRange(0, 1000, 'candidates'),
  },
  explain: {
    type: 'boolean',
    help: "show the shaped query, and per excerpt the terms it matched and each field's share of its lexical score",
  },
  'no-shape': { type: 'boolean', help: 'search the text as given, without shaping it into a query' },
  verbose: { type: 'boolean', help: 'say whether the query service or this process answered' },
  'no-service': { type: 'boolean', help: 'search in this process, not through the query service' },
} as const;

export const definition = defineCommand({
  name: 'search',
  summary: 'Test search: the exact block a model would get',
  positionals: [{ name: 'QUERY', variadic: true }],
  options,
  notes: `Retrieval only, no chat model. Prints the block a model would get, then each excerpt's vector
rank, lexical rank and fused score. --candidates N adds the first N of the fused ranking the excerpts
were chosen from (with --json: a "candidates" array). The query service answers when it runs (search
starts it).

The text is shaped into a query first, as a terminal selection is: prompts, escape sequences,
timestamps, hex addresses, UUIDs, long numbers, line-number gutters and repeated lines are dropped,
so are a question's own words ("how do I", "is there a way to"), and a long selection keeps its
command, error and warning lines within a word budget. --explain shows the shaped query, what was
dropped and the programs the text names (a document named after one, such as tar.md for "tar: Cannot
open", ranks higher), and per excerpt the matched terms and the title, headings, body, proximity,
passage (best paragraph) and name shares of its lexical score (with --json: "shapedQuery",
"shaping" and "explain").
--no-shape searches the text as given.`,
  run: runSearch,
});

async function runSearch({ values, positionals, io, json }: CommandContext<typeof options>): Promise<number> {
  const query = positionals.join(' ');
  if (!query.trim()) throw usageError('the QUERY is blank');
  const mode = values.mode as SearchMode;
  const shown = values.candidates === undefined ? 0 : Number(values.candidates);
  const home = korttyHome(io.env);
  const contextWindow = values['context-window'] ? Number(values['context-window']) : undefined;
  const say = (m: string) => io.stderr.write(`kortty-rag search: ${m}\n`);
  const verbose = values.verbose ? say : undefined;
  const shape = !values['no-shape'];
  let res:
    | {
        shapedQuery: string;
        block: string;
        excerpts: Excerpt[];
        candidates?: Candidate[];
        timings: unknown;
        failedStores?: unknown[];
        warnings?: string[];
      }
    | undefined;
  if (!values['no-service']) {
    const warm = await searchViaService(
      {
        query,
        mode,
        ...(values.store ? { stores: values.store } : {}),
        ...(contextWindow !== undefined ? { contextWindow } : {}),
        ...(shown > 0 ? { candidates: shown } : {}),
        ...(shape ? {} : { shape: false }),
      },
      { home, verbose, warn: say },
    );
    if (warm.ok) res = warm.value as unknown as typeof res;
    else verbose?.(`query service not used (${warm.reason}); searching in-process`);
  }
  res ??= await searchInProcess(query, mode, values.store, contextWindow, shape);
  // On stderr even with --json: stdout keeps its shape for scripts, and a damaged store is the
  // user's to fix, shown where every other diagnostic of ours goes.
  for (const w of res.warnings ?? []) say(sanitizeLine(w));
  const explain = values.explain === true;
  const shaping = explain && shape ? shapeQuery(query) : undefined;
  const ranking = candidateRows(res, shown, explain);
  if (json) {
    const warnings = res.warnings ?? [];
    // Stores left out are also in the JSON, so a script can tell a partial answer from a full one.
    const out = {
      block: res.block,
      excerpts: res.excerpts,
      timings: res.timings,
      shapedQuery: res.shapedQuery,
      failedStores: res.failedStores ?? [],
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(explain
        ? {
            shaping: shaping ? shapingJson(shaping) : null,
            explain: res.excerpts.map((e) => ({ marker: e.marker, ...explainJson(e) })),
          }
        : {}),
    };
    io.stdout.write(
      `${JSON.stringify(values.candidates === undefined ? out : { ...out, candidates: ranking }, null, 2)}\n`,
    );
    return 0;
  }
  if (explain) io.stdout.write(queryLines(res.shapedQuery, shaping));
  if (res.excerpts.length === 0) {
    io.stdout.write('no excerpts found (check that sources are enabled and indexed)\n');
  } else {
    io.stdout.write(`${res.block}\n\n`);
    for (const e of res.excerpts) {
      io.stdout.write(`[${e.marker}] ${scoreLine(e)}\n`);
      if (explain) io.stdout.write(`     ${explainLine(e)}\n`);
    }
  }
  if (ranking.length > 0) {
    io.stdout.write(`\nfused ranking (first ${ranking.length}):\n`);
    (res.candidates ?? []).slice(0, shown).forEach((c, i) => {
      const marker = ranking[i]!.marker;
      const line = `${String(i + 1).padStart(3)} ${marker ? `[${marker}]` : '    '} ${scoreLine(c)}`;
      io.stdout.write(`${line}  store ${sanitizeLine(c.storeName)}\n`);
      if (explain) io.stdout.write(`             ${explainLine(c)}\n`);
    });
  }
  return 0;
}

function scoreLine(c: Candidate): string {
  const loc = formatLocation(c);
  return `${sanitizeLine(c.path)}${loc ? ` (${loc})` : ''}  vector #${c.vectorRank ?? '-'}${c.vectorScore !== undefined ? ` ${c.vectorScore.toFixed(3)}` : ''}  lexical #${c.lexicalRank ?? '-'}${c.lexicalScore !== undefined ? ` ${c.lexicalScore.toFixed(2)}` : ''}  fused ${c.fusedScore.toFixed(4)}`;
}

/** The query retrieval used, one selected line per line, and what shaping dropped to get it. */
function queryLines(shaped: string, shaping: ShapedQuery | undefined): string {
  const head = !shaping
    ? 'query (not shaped):'
    : !shaping.query
      ? `query (shaping left nothing${droppedText(shaping)}; searched as given):`
      : `shaped query (${shaping.words} words, ${shaping.keptLines} of ${shaping.lines} lines kept${droppedText(shaping)}):`;
  const programs =
    shaping?.query && shaping.programs.length > 0
      ? `programs ${shaping.prose ? 'named in prose (documents named after them rank higher, and so do their other pages: git-log for git)' : '(documents named after them rank higher)'}: ${shaping.programs.map(sanitizeLine).join(', ')}\n`
      : '';
  return `${head}\n${shaped
    .split('\n')
    .map((l) => `  ${sanitizeLine(l)}\n`)
    .join('')}${programs}\n`;
}

const DROPPED: Record<keyof ShapedQuery['dropped'], [string, string]> = {
  escapes: ['escape', 'escapes'],
  prompts: ['prompt', 'prompts'],
  timestamps: ['timestamp', 'timestamps'],
  hex: ['hex number', 'hex numbers'],
  uuids: ['UUID', 'UUIDs'],
  numbers: ['long number', 'long numbers'],
  gutters: ['line-number gutter', 'line-number gutters'],
  listings: ["long-listing line's columns", "long-listing lines' columns"],
  repeats: ['repeated line', 'repeated lines'],
  question: ['question word', 'question words'],
  budget: ['line over the word budget', 'lines over the word budget'],
};

function droppedText(s: ShapedQuery): string {
  const parts = Object.entries(DROPPED)
    .map(([kind, [one, many]]) => [s.dropped[kind as keyof ShapedQuery['dropped']], one, many] as const)
    .filter(([n]) => n > 0)
    .map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  return parts.length ? `; dropped ${parts.join(', ')}` : '';
}

/** Terms matched and each signal's share of the lexical score; absent for a vector-only hit. */
function explainLine(c: Candidate): string {
  const x = c.explain;
  if (!x) return c.lexicalRank === undefined ? 'lexical: not matched' : 'lexical: no explanation';
  const pct = (v: number) => `${Math.round(v * 100)}%`;
  const shares = EXPLAIN_SHARES.map((field) => `${field} ${pct(x.shares[field])}`).join(' ');
  return `matched ${x.matched.length ? x.matched.map(sanitizeLine).join(' ') : '-'}  ·  ${shares}`;
}

function explainJson(c: Candidate) {
  return { matched: c.explain?.matched ?? null, shares: c.explain?.shares ?? null };
}

function shapingJson(s: ShapedQuery) {
  return {
    lines: s.lines,
    keptLines: s.keptLines,
    words: s.words,
    commands: s.commands,
    programs: s.programs,
    prose: s.prose,
    dropped: s.dropped,
  };
}

/** The first `n` fused candidates for diagnostics: rank, the excerpt marker if one was made of it,
 * where it is, and its ranks and scores in each list (null where it was not in a list). */
function candidateRows(res: { excerpts: Excerpt[]; candidates?: Candidate[] }, n: number, explain: boolean) {
  const markers = new Map(res.excerpts.map((e) => [e.key, e.marker]));
  return (res.candidates ?? []).slice(0, n).map((c, i) => ({
    rank: i + 1,
    marker: markers.get(c.key) ?? null,
    store: c.storeName,
    storeId: c.storeId,
    sourceId: c.sourceId,
    path: c.path,
    location: formatLocation(c) || null,
    chunkId: c.chunkId,
    vectorRank: c.vectorRank ?? null,
    vectorScore: c.vectorScore ?? null,
    lexicalRank: c.lexicalRank ?? null,
    lexicalScore: c.lexicalScore ?? null,
    lexicalMatch: c.lexicalMatch ?? null,
    fusedScore: c.fusedScore,
    ...(explain ? explainJson(c) : {}),
  }));
}

async function searchInProcess(
  query: string,
  mode: SearchMode,
  storeRefs: string[] | undefined,
  contextWindow: number | undefined,
  shape: boolean,
) {
  const [{ searchOnce }, { findStore }, { damagedStoreWarning, scanStores }] = await Promise.all([
    import('../../app/search.js'),
    import('../../store/engine.js'),
    import('../../store/store-config.js'),
  ]);
  const scan = storeRefs
    ? { stores: await Promise.all(storeRefs.map((s) => findStore(s))), damaged: [] }
    : await scanStores();
  return searchOnce({
    stores: scan.stores,
    query,
    mode,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    warnings: scan.damaged.map(damagedStoreWarning),
    shape,
  });
}
