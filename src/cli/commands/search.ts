import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import { formatLocation } from '../../retrieve/block.js';
import { createSearchDeps, type SearchMode, search } from '../../retrieve/search.js';
import { findStore, listStores } from '../../store/engine.js';
import type { CliIO } from '../io.js';

const USAGE = `usage: kortty-rag search [--store S]... [--mode hybrid|vector|lexical] [--context-window N] [--json] QUERY
Test search: retrieval only, no chat model. Prints the exact <retrieved_context> block a model would get,
then each excerpt's vector rank, lexical rank and fused score.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: 'string', multiple: true },
      mode: { type: 'string', default: 'hybrid' },
      'context-window': { type: 'string' },
      json: { type: 'boolean' },
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
  } finally {
    await deps.close();
  }
}
