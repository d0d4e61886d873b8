import type { SearchMode } from '../retrieve/search.js';
import { korttyHome } from '../storage/paths.js';
import type { StoreConfig } from '../store/store-types.js';
import { answerQuery, type BlockAnswer, type BlockRequest } from './query.js';
import { createSearchDeps } from './search-deps.js';

// Search for the faces: one in-process answer over the wired dependencies (the query service, when
// it runs, is tried first through warm.ts and answers with the same function).

export type { SearchMode, SearchResult } from '../retrieve/search.js';
export type { BlockAnswer } from './query.js';
export { answerQuery, createSearchDeps };

/** One search in this process: opens the models and snapshots it needs, answers, closes them. */
export async function searchOnce(
  req: BlockRequest<StoreConfig> & { mode?: SearchMode },
  home = korttyHome(),
): Promise<BlockAnswer> {
  const deps = createSearchDeps(home);
  try {
    return await answerQuery(req, deps);
  } finally {
    await deps.close();
  }
}
