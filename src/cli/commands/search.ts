import { formatLocation } from '../../retrieve/block.js';
import { createSearchDeps, type SearchMode, search } from '../../retrieve/search.js';
import { findStore, listStores } from '../../store/engine.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { wholeNumber } from '../args.js';
import { type CommandContext, defineCommand, usageError } from '../command.js';

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
} as const;

export const definition = defineCommand({
  name: 'search',
  summary: 'Test search: the exact block a model would get',
  positionals: [{ name: 'QUERY', variadic: true }],
  options,
  notes: `Retrieval only, no chat model. Prints the block a model would get, then each excerpt's vector
rank, lexical rank and fused score.`,
  run: runSearch,
});

async function runSearch({ values, positionals, io, json }: CommandContext<typeof options>): Promise<number> {
  const query = positionals.join(' ');
  if (!query.trim()) throw usageError('the QUERY is blank');
  const mode = values.mode as SearchMode;
  const stores = values.store ? await Promise.all(values.store.map((s) => findStore(s))) : await listStores();
  const deps = createSearchDeps();
  try {
    const res = await search(
      {
        stores,
        query,
        mode,
        ...(values['context-window'] ? { contextWindow: Number(values['context-window']) } : {}),
      },
      deps,
    );
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
  } finally {
    await deps.close();
  }
}
