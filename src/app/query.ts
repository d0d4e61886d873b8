import { countTokens } from '../chunk/tokenizer.js';
import type { BlockAnswer, BlockRequest } from '../retrieve/answer.js';
import { renderContextBlock } from '../retrieve/block.js';
import { selectExcerpts } from '../retrieve/bounds.js';
import { type SearchDeps, search, storeFailureWarning } from '../retrieve/search.js';
import type { StoreConfig } from '../store/store-types.js';
import type { Candidate, Excerpt } from '../types.js';

// The one function from a query (with its store set, mode, bounds and shaping option) to the block
// and its candidates. `search`, the query service, `ask` and the MCP server all call it (the
// service and the MCP server get it injected), so they hand out byte-identical blocks; stores a
// search had to leave out become warnings (retrieve/search.ts words them).

export type { BlockAnswer, BlockRequest } from '../retrieve/answer.js';

export async function answerQuery(
  req: BlockRequest<StoreConfig>,
  deps: SearchDeps<StoreConfig>,
): Promise<BlockAnswer> {
  const { warnings = [], ...request } = req;
  const res = await search(request, deps);
  return { ...res, warnings: [...warnings, ...res.failedStores.map(storeFailureWarning)] };
}

/** search() bounds the block to 25% of this when no context window is given; so does one excerpt. */
const DEFAULT_CONTEXT_WINDOW = 32768;

/** One excerpt (MCP's read_excerpt) through the same bounds and block as a search, numbered `marker`. */
export function excerptBlock(c: Candidate, marker: number): { excerpt: Excerpt; block: string } | null {
  const [e] = selectExcerpts(
    [c],
    { contextWindow: DEFAULT_CONTEXT_WINDOW, firstMarker: marker },
    countTokens,
  );
  return e ? { excerpt: e, block: renderContextBlock([e]) } : null;
}
