import { formatLocation } from '../../retrieve/block.js';
import type { SearchMode } from '../../retrieve/search.js';
import { searchViaService } from '../../service/warm-path.js';
import { korttyHome } from '../../storage/paths.js';
import type { Excerpt } from '../../types.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { wholeNumber } from '../args.js';
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
    check: wholeNumber(1),
  },
  verbose: { type: 'boolean', help: 'say whether the query service or this process answered' },
  'no-service': { type: 'boolean', help: 'search in this process, not through the query service' },
} as const;

export const definition = defineCommand({
  name: 'search',
  summary: 'Test search: the exact block a model would get',
  positionals: [{ name: 'QUERY', variadic: true }],
  options,
  notes: `Retrieval only, no chat model. Prints the block a model would get, then each excerpt's vector
rank, lexical rank and fused score. The query service answers when it runs (search starts it).`,
  run: runSearch,
});

async function runSearch({ values, positionals, io, json }: CommandContext<typeof options>): Promise<number> {
  const query = positionals.join(' ');
  if (!query.trim()) throw usageError('the QUERY is blank');
  const mode = values.mode as SearchMode;
  const home = korttyHome(io.env);
  const contextWindow = values['context-window'] ? Number(values['context-window']) : undefined;
  const say = (m: string) => io.stderr.write(`kortty-rag search: ${m}\n`);
  const verbose = values.verbose ? say : undefined;
  let res: { block: string; excerpts: Excerpt[]; timings: unknown } | undefined;
  if (!values['no-service']) {
    const warm = await searchViaService(
      {
        query,
        mode,
        ...(values.store ? { stores: values.store } : {}),
        ...(contextWindow !== undefined ? { contextWindow } : {}),
      },
      { home, verbose, warn: say },
    );
    if (warm.ok) res = warm.value as unknown as typeof res;
    else verbose?.(`query service not used (${warm.reason}); searching in-process`);
  }
  res ??= await searchInProcess(query, mode, values.store, contextWindow);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ block: res.block, excerpts: res.excerpts, timings: res.timings }, null, 2)}\n`,
    );
    return 0;
  }
  if (res.excerpts.length === 0) {
    io.stdout.write('no excerpts found (check that sources are enabled and indexed)\n');
    return 0;
  }
  io.stdout.write(`${res.block}\n\n`);
  for (const e of res.excerpts) {
    const loc = formatLocation(e);
    io.stdout.write(
      `[${e.marker}] ${sanitizeLine(e.path)}${loc ? ` (${loc})` : ''}  vector #${e.vectorRank ?? '-'}${e.vectorScore !== undefined ? ` ${e.vectorScore.toFixed(3)}` : ''}  lexical #${e.lexicalRank ?? '-'}${e.lexicalScore !== undefined ? ` ${e.lexicalScore.toFixed(2)}` : ''}  fused ${e.fusedScore.toFixed(4)}\n`,
    );
  }
  return 0;
}

async function searchInProcess(
  query: string,
  mode: SearchMode,
  storeRefs: string[] | undefined,
  contextWindow: number | undefined,
) {
  const [{ createSearchDeps, search }, { findStore, listStores }] = await Promise.all([
    import('../../retrieve/search.js'),
    import('../../store/engine.js'),
  ]);
  const stores = storeRefs ? await Promise.all(storeRefs.map((s) => findStore(s))) : await listStores();
  const deps = createSearchDeps();
  try {
    return await search(
      { stores, query, mode, ...(contextWindow !== undefined ? { contextWindow } : {}) },
      deps,
    );
  } finally {
    await deps.close();
  }
}
