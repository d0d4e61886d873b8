import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import { formatLocation } from '../../retrieve/block.js';
import type { SearchMode } from '../../retrieve/search.js';
import { searchViaService } from '../../service/warm-path.js';
import { korttyHome } from '../../storage/paths.js';
import type { Excerpt } from '../../types.js';
import type { CliIO } from '../io.js';

// Only what the warm path needs is imported up front: when the query service answers, this process
// never loads the engine, the tokenizer or a model. The in-process search is imported on fallback.

const USAGE = `usage: kortty-rag search [--store S]... [--mode hybrid|vector|lexical] [--context-window N] [--json] [--verbose] [--no-service] QUERY
Test search: retrieval only, no chat model. Prints the exact <retrieved_context> block a model would get,
then each excerpt's vector rank, lexical rank and fused score. The query service answers when it runs
(search starts it); --no-service searches in this process; --verbose says which one answered.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: 'string', multiple: true },
      mode: { type: 'string', default: 'hybrid' },
      'context-window': { type: 'string' },
      json: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'no-service': { type: 'boolean' },
    },
  });
  const query = positionals.join(' ');
  if (!query.trim()) {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const mode = values.mode as SearchMode;
  if (!['hybrid', 'vector', 'lexical'].includes(mode)) {
    throw createError('INVALID_ARGUMENT', {
      name: '--mode',
      reason: `"${values.mode}" is not hybrid, vector or lexical`,
    });
  }
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
  if (values.json) {
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
      `[${e.marker}] ${e.path}${loc ? ` (${loc})` : ''}  vector #${e.vectorRank ?? '-'}${e.vectorScore !== undefined ? ` ${e.vectorScore.toFixed(3)}` : ''}  lexical #${e.lexicalRank ?? '-'}${e.lexicalScore !== undefined ? ` ${e.lexicalScore.toFixed(2)}` : ''}  fused ${e.fusedScore.toFixed(4)}\n`,
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
