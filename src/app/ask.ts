import { type ActionInput, type ActionResult, runAction } from '../ai/ask.js';
import type { SearchRequest } from '../retrieve/search.js';
import { searchViaService } from '../service/warm-path.js';
import { korttyHome } from '../storage/paths.js';
import type { StoreConfig } from '../store/store-types.js';
import type { Excerpt } from '../types.js';
import { createSearchDeps } from './search-deps.js';

// An AI action wired: retrieval through the query service while it answers, else in-process with
// the app's search dependencies (opened on first use, closed when the action ends).

export { parseActionKind } from '../ai/policy.js';

export interface AskOptions extends Omit<ActionInput, 'searchDeps' | 'retrieve'> {
  home?: string;
  /** false: never try the query service. */
  useService?: boolean;
  verbose?: (msg: string) => void;
  /** Problems the user must fix on the way to the query service (always shown). */
  warn: (msg: string) => void;
}

export async function ask(opts: AskOptions): Promise<ActionResult> {
  const { home = korttyHome(), useService = true, verbose, warn, ...action } = opts;
  const deps = createSearchDeps(home);
  let viaService = useService;
  const retrieve = async (req: SearchRequest<StoreConfig>) => {
    if (viaService) {
      const warm = await searchViaService(
        {
          query: req.query,
          stores: req.stores.map((s) => s.id),
          ...(req.mode ? { mode: req.mode } : {}),
          ...(req.contextWindow !== undefined ? { contextWindow: req.contextWindow } : {}),
          ...(req.firstMarker !== undefined ? { firstMarker: req.firstMarker } : {}),
          ...(req.shape === false ? { shape: false } : {}),
        },
        { home, verbose, warn },
      );
      if (warm.ok)
        return warm.value as unknown as { excerpts: Excerpt[]; block: string; warnings?: string[] };
      viaService = false;
      verbose?.(`query service not used (${warm.reason}); retrieving in-process`);
    }
    // Loaded on first use: when the service answers, this process never loads the search path.
    // Left-out stores come back as warnings; runAction says each once per action.
    const { answerQuery } = await import('./query.js');
    return answerQuery(req, deps);
  };
  try {
    return await runAction({ ...action, searchDeps: deps, retrieve });
  } finally {
    await deps.close();
  }
}
