import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import { formatLocation } from '../../retrieve/block.js';
import { sanitizeInline } from '../../retrieve/sanitize.js';
import { createSearchDeps, type SearchMode, type SearchResult, search } from '../../retrieve/search.js';
import { findStore, listStores } from '../../store/engine.js';
import type { CliIO } from '../io.js';

const USAGE = `usage: kortty-rag search [--store S]... [--mode hybrid|vector|lexical] [--context-window N] [--candidates N] [--json] QUERY
Test search: retrieval only, no chat model. Prints the exact <retrieved_context> block a model would get,
then each excerpt's vector rank, lexical rank and fused score. --candidates N adds the first N of the
fused ranking the excerpts were chosen from (with --json: a "candidates" array).`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: 'string', multiple: true },
      mode: { type: 'string', default: 'hybrid' },
      'context-window': { type: 'string' },
      candidates: { type: 'string' },
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
  const shown = values.candidates === undefined ? 0 : Number(values.candidates);
  if (!Number.isInteger(shown) || shown < 0) {
    throw createError('INVALID_ARGUMENT', {
      name: '--candidates',
      reason: `"${values.candidates}" is not a whole number of candidates`,
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
    const ranking = candidateRows(res, shown);
    if (values.json) {
      const out = { block: res.block, excerpts: res.excerpts, timings: res.timings };
      io.stdout.write(
        `${JSON.stringify(values.candidates === undefined ? out : { ...out, candidates: ranking }, null, 2)}\n`,
      );
      return 0;
    }
    if (res.excerpts.length === 0) {
      io.stdout.write('no excerpts found (check that sources are enabled and indexed)\n');
    } else {
      io.stdout.write(`${res.block}\n\n`);
      for (const e of res.excerpts) io.stdout.write(`[${e.marker}] ${scoreLine(e)}\n`);
    }
    if (ranking.length > 0) {
      io.stdout.write(`\nfused ranking (first ${ranking.length} of ${res.candidates.length} candidates):\n`);
      res.candidates.slice(0, shown).forEach((c, i) => {
        const marker = ranking[i]!.marker;
        const line = `${String(i + 1).padStart(3)} ${marker ? `[${marker}]` : '    '} ${scoreLine(c)}`;
        io.stdout.write(`${line}  store ${sanitizeInline(c.storeName)}\n`);
      });
    }
    return 0;
  } finally {
    await deps.close();
  }
}

type Ranked = SearchResult['candidates'][number];

function scoreLine(c: Ranked): string {
  const loc = formatLocation(c);
  return `${sanitizeInline(c.path)}${loc ? ` (${loc})` : ''}  vector #${c.vectorRank ?? '-'}${c.vectorScore !== undefined ? ` ${c.vectorScore.toFixed(3)}` : ''}  lexical #${c.lexicalRank ?? '-'}${c.lexicalScore !== undefined ? ` ${c.lexicalScore.toFixed(2)}` : ''}  fused ${c.fusedScore.toFixed(4)}`;
}

/** The first `n` fused candidates for diagnostics: rank, the excerpt marker if one was made of it,
 * where it is, and its ranks and scores in each list (null where it was not in a list). */
function candidateRows(res: SearchResult, n: number) {
  const markers = new Map(res.excerpts.map((e) => [e.key, e.marker]));
  return res.candidates.slice(0, n).map((c, i) => ({
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
  }));
}
