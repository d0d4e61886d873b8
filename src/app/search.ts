import { type SearchMode, type SearchResult, search } from '../retrieve/search.js';
import { korttyHome } from '../storage/paths.js';
import type { StoreConfig } from '../store/store-types.js';
import { createSearchDeps } from './search-deps.js';

// Search for the faces: one in-process search over the wired dependencies (the query service, when
// it runs, is tried first through warm.ts).

export type { SearchMode, SearchResult } from '../retrieve/search.js';
export { createSearchDeps, search };

/** One search in this process: opens the models and snapshots it needs, searches, closes them. */
export async function searchOnce(
  req: {
    stores: readonly StoreConfig[];
    query: string;
    mode?: SearchMode;
    contextWindow?: number;
    shape?: boolean;
  },
  home = korttyHome(),
): Promise<SearchResult> {
  const deps = createSearchDeps(home);
  try {
    return await search(req, deps);
  } finally {
    await deps.close();
  }
}
