import type { Candidate, Excerpt } from '../types.js';
import type { SearchableStore, SearchDeps, SearchRequest, SearchResult } from './search.js';

// The shape of the one function from a query to a block (the app layer's answerQuery): the CLI's
// `search`, the query service, `ask` and the MCP server all get their block from it, so a change of
// ranking, bounds or shaping lands in every entry point at once. The processes get it injected.

export interface BlockRequest<S extends SearchableStore = SearchableStore> extends SearchRequest<S> {
  /** What is already known to be left out of the store set (damaged store.json files), one line each. */
  warnings?: readonly string[];
}

export interface BlockAnswer extends SearchResult {
  /** One line per store left out: the request's warnings, then the stores this search failed on. */
  warnings: string[];
}

export type AnswerQuery<S extends SearchableStore = SearchableStore> = (
  req: BlockRequest<S>,
  deps: SearchDeps<S>,
) => Promise<BlockAnswer>;

/** One excerpt (MCP's read_excerpt) bounded, numbered and wrapped like a search's; null when nothing fits. */
export type ExcerptBlock = (
  candidate: Candidate,
  marker: number,
) => { excerpt: Excerpt; block: string } | null;
