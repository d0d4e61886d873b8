import { countTokens } from '../chunk/tokenizer.js';
import { createError } from '../errors.js';
import { type Bm25Stats, bm25Ceiling, type InstalledNames } from '../index/bm25.js';
import type { OpenSnapshot } from '../index/snapshot-search.js';
import type { Candidate, Excerpt, LexicalExplain, ModelFingerprint } from '../types.js';
import { renderContextBlock } from './block.js';
import { selectExcerpts } from './bounds.js';
import type { FusionOptions } from './fuse.js';
import { defaultFusionFor } from './fusion-defaults.js';
import { mergeStores, type StoreHits } from './merge.js';
import { shapeQuery } from './query-shape.js';

// Test search and the retrieval step of AI actions: the query embedded once per embedding model
// (each store's own), vector (HNSW cosine) and lexical (BM25) rankings over enabled sources only,
// merged across stores into global lists and fused by reciprocal rank fusion (merge.ts says how
// a small store's hits have to earn their place), bounded, and rendered as the exact block a
// model gets.

export type SearchMode = 'hybrid' | 'vector' | 'lexical';

/** How many hits each retriever contributes before fusion. */
export const CANDIDATES_PER_LIST = 40;

export interface StoreBackend {
  /** Vector hits (cosine, best first) over the allowed sources. */
  vector(query: Float32Array, k: number, allowed: Set<string>): Promise<Candidate[]> | Candidate[];
  /**
   * Lexical hits (BM25F, best first), documents named after one of `programs` raised, and with
   * `family` (programs named in prose) each program's other pages too; absent for backends
   * without a lexical index (Qdrant). `installedAs`: other names the programs are installed as.
   */
  lexical?(
    query: string,
    k: number,
    allowed: Set<string>,
    programs?: readonly string[],
    family?: boolean,
    installedAs?: InstalledNames,
  ): Candidate[];
  /** The store's BM25 statistics for the query's terms, from which its hits' `lexicalMatch` is set. */
  lexicalStats?(query: string, programs?: readonly string[], installedAs?: InstalledNames): Bm25Stats;
  close(): void;
}

/**
 * What retrieval reads of a store. Retrieval knows no store module: store.json's StoreConfig
 * satisfies this, and the deps that open a store's model and snapshot take the full record.
 */
export interface SearchableStore {
  id: string;
  name: string;
  type: 'local' | 'qdrant';
  modelId: string;
  fingerprint: ModelFingerprint;
  sources: readonly { id: string; enabled: boolean; chunks: number }[];
}

export interface QueryEmbedder {
  readonly dimension: number;
  embedQuery(text: string): Promise<Float32Array>;
}

export interface SearchDeps<S extends SearchableStore = SearchableStore> {
  /** Query embedder for a store (its own model, its query prefix). */
  embedderFor(store: S): Promise<QueryEmbedder>;
  backendFor(store: S): Promise<StoreBackend | null>;
  /**
   * The other names a program is installed as on this machine (a store files awk's page under
   * mawk). Absent: programs match documents by their own names only.
   */
  installedNames?: InstalledNames;
  /** How long one store may take to open and answer before it is left out (default STORE_DEADLINE_MS). */
  storeDeadlineMs?: number;
  /** Told after each search which stores were left out and which answered (to remember their health). */
  onSearched?(outcome: {
    failed: readonly StoreFailure[];
    answered: readonly string[];
  }): Promise<void> | void;
}

/**
 * A store that has not opened and answered within this is left out as unreachable: a slow Qdrant
 * server must not hold up the answer from the healthy stores. Generous for a local snapshot of
 * hundreds of MB, short enough that a popup does not feel hung.
 */
export const STORE_DEADLINE_MS = 2000;

export interface SearchRequest<S extends SearchableStore = SearchableStore> {
  stores: readonly S[];
  query: string;
  mode?: SearchMode;
  /** Target model's context window; bounds the block to 25% of it. */
  contextWindow?: number;
  fusion?: FusionOptions;
  firstMarker?: number;
  /** Shape the query for retrieval (drop prompts, escapes, timestamps, …); default true. */
  shape?: boolean;
}

/** A store left out of a search because it could not be searched; the others still answer. */
export interface StoreFailure {
  storeId: string;
  storeName: string;
  /** `damaged`: its snapshot cannot be read; `unreachable`: its Qdrant server did not answer in time. */
  kind: 'damaged' | 'unreachable';
  /** One line: what failed (file or server and why). */
  reason: string;
  /** What the user can do, e.g. `kortty-rag store rebuild NAME`. */
  fix: string;
}

export interface SearchResult {
  /** The query retrieval actually used (the user's text shaped for search; see query shaping). */
  shapedQuery: string;
  /** Stores left out of this search, each with its reason and fix. */
  failedStores: StoreFailure[];
  excerpts: Excerpt[];
  /** The exact block a model would receive ('' when nothing was found). */
  block: string;
  /** Fused candidates of all stores before bounds, best first (for Test search diagnostics). */
  candidates: Candidate[];
  timings: { embedMs: number; searchMs: number; assembleMs: number };
}

interface Searched<S extends SearchableStore> {
  store: S;
  backend: StoreBackend;
  allowed: Set<string>;
  space: string;
  vector: boolean;
  lexical: boolean;
}

export async function search<S extends SearchableStore>(
  req: SearchRequest<S>,
  deps: SearchDeps<S>,
): Promise<SearchResult> {
  const mode = req.mode ?? 'hybrid';
  const original = req.query.trim();
  if (!original)
    throw createError('INVALID_ARGUMENT', { name: 'query', reason: 'the search query is empty' });
  // Retrieval searches the selection shaped (query-shape.ts); a selection that was only noise
  // (a lone timestamp, a prompt) is searched as it was rather than not at all.
  const shaped = req.shape !== false ? shapeQuery(original) : undefined;
  const query = shaped?.query || original;
  // The programs the selection shows: documents named after them are raised (bm25.ts, name).
  const programs = shaped?.query ? shaped.programs : [];
  // A question that names git is mostly answered by one of git's other pages (git-log, git-stash).
  const family = shaped?.query ? shaped.prose : false;
  const timings = { embedMs: 0, searchMs: 0, assembleMs: 0 };

  // Stores by id, each once: the result never depends on the order they were listed in.
  const stores = [...new Map(req.stores.map((s) => [s.id, s])).values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const deadlineMs = deps.storeDeadlineMs ?? STORE_DEADLINE_MS;
  const failedStores: StoreFailure[] = [];
  const failed = new Set<string>();
  // Each store on its own: one that cannot be opened or searched in time is left out and reported;
  // the others answer as if it were absent.
  const isolate = async <T>(store: S, work: () => Promise<T> | T): Promise<T | undefined> => {
    if (failed.has(store.id)) return undefined;
    try {
      return await withDeadline(Promise.resolve().then(work), deadlineMs, store);
    } catch (err) {
      failed.add(store.id);
      failedStores.push(storeFailure(store, err, deadlineMs));
      return undefined;
    }
  };
  const searched: Searched<S>[] = [];
  for (const store of stores) {
    const allowed = new Set(store.sources.filter((s) => s.enabled).map((s) => s.id));
    if (allowed.size === 0) continue;
    const backend = await isolate(store, () => deps.backendFor(store));
    if (!backend) continue;
    const lexical = mode !== 'vector' && backend.lexical !== undefined;
    searched.push({
      store,
      backend,
      allowed,
      space: spaceOf(store.fingerprint),
      lexical,
      vector: mode !== 'lexical' || !lexical,
    });
  }

  const hits = new Map<string, { vector: Candidate[]; lexical: Candidate[] }>(
    searched.map((s) => [s.store.id, { vector: [], lexical: [] }]),
  );
  // One query embedding per embedding space: stores of the same model share it.
  const bySpace = new Map<string, Searched<S>[]>();
  for (const s of searched.filter((x) => x.vector))
    bySpace.set(s.space, [...(bySpace.get(s.space) ?? []), s]);
  for (const group of bySpace.values()) {
    const t0 = performance.now();
    const embedder = await deps.embedderFor(group[0]!.store);
    const qv = await embedder.embedQuery(query);
    const t1 = performance.now();
    timings.embedMs += t1 - t0;
    // The stores of a space are asked at once: each has its own deadline, not a share of one.
    await Promise.all(
      group.map(async (s) => {
        const found = await isolate(s.store, () => s.backend.vector(qv, CANDIDATES_PER_LIST, s.allowed));
        if (found) hits.get(s.store.id)!.vector = found;
      }),
    );
    timings.searchMs += performance.now() - t1;
  }
  const lexical = searched.filter((x) => x.lexical && !failed.has(x.store.id));
  if (lexical.length > 0) {
    const t1 = performance.now();
    // Each store scores with its own statistics (its ranking is what it would be alone); a hit's
    // share of its store's ceiling is what compares across stores (merge.ts). Terms no store
    // holds are left out of every ceiling: no store can match them.
    const stats = lexical.map((s) => s.backend.lexicalStats?.(query, programs, deps.installedNames));
    const held = new Set(stats.flatMap((st) => (st ? [...st.df.keys()] : [])));
    const named = new Map<string, number>();
    // A store ranks only the names it bears (snapshot-search.ts), so one name may rank differently
    // in two stores: the ceiling takes its best rank, which no store's hit can exceed.
    for (const st of stats)
      for (const [term, { rank }] of st?.names ?? [])
        named.set(term, Math.min(rank, named.get(term) ?? rank));
    for (const [i, s] of lexical.entries()) {
      const ceiling = stats[i] ? bm25Ceiling(stats[i], held, undefined, named) : 0;
      const found = await isolate(s.store, () =>
        s.backend.lexical!(query, CANDIDATES_PER_LIST, s.allowed, programs, family, deps.installedNames),
      );
      if (!found) continue;
      hits.get(s.store.id)!.lexical = found.map((c) =>
        ceiling > 0 && c.lexicalScore !== undefined ? { ...c, lexicalMatch: c.lexicalScore / ceiling } : c,
      );
    }
    timings.searchMs += performance.now() - t1;
  }
  const answered = searched.filter((s) => !failed.has(s.store.id));

  const t2 = performance.now();
  const candidates = mergeStores(
    answered.map(
      (s): StoreHits => ({
        storeId: s.store.id,
        fusion: req.fusion ?? defaultFusionFor(s.store.modelId),
        searchedVector: s.vector,
        searchedLexical: s.lexical,
        space: s.space,
        chunks: s.store.sources.reduce((n, src) => n + (s.allowed.has(src.id) ? src.chunks : 0), 0),
        ...hits.get(s.store.id)!,
      }),
    ),
    CANDIDATES_PER_LIST,
  );
  const excerpts = selectExcerpts(
    candidates,
    { contextWindow: req.contextWindow ?? 32768, firstMarker: req.firstMarker },
    countTokens,
  );
  const block = renderContextBlock(excerpts);
  timings.assembleMs = performance.now() - t2;
  await deps.onSearched?.({ failed: failedStores, answered: answered.map((s) => s.store.id) });
  return { shapedQuery: query, failedStores, excerpts, block, candidates, timings };
}

/** `work`, or a rejection once `ms` have passed (the late work's outcome is dropped). */
function withDeadline<T>(work: Promise<T>, ms: number, store: SearchableStore): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(store, ms)), ms);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

class StoreTimeout extends Error {
  constructor(store: SearchableStore, ms: number) {
    super(`store "${store.name}" did not answer within ${ms} ms`);
  }
}

/** Why a store was left out, and what the user can do about it. */
export function storeFailure(store: SearchableStore, err: unknown, deadlineMs: number): StoreFailure {
  const reason = firstLine(err instanceof Error ? err.message : String(err));
  const base = { storeId: store.id, storeName: store.name, reason };
  if (store.type === 'qdrant' || err instanceof StoreTimeout) {
    return {
      ...base,
      kind: 'unreachable',
      fix:
        store.type === 'qdrant'
          ? `check that its Qdrant server answers (within ${deadlineMs} ms), then search again`
          : `search again; if it stays slow: kortty-rag store rebuild ${store.name}`,
    };
  }
  return { ...base, kind: 'damaged', fix: `kortty-rag store rebuild ${store.name}` };
}

/** The one-line warning a face shows for a store left out of a search. */
export function storeFailureWarning(f: StoreFailure): string {
  const what = f.kind === 'damaged' ? 'is damaged' : 'is unreachable';
  return `store "${f.storeName}" ${what} and was left out of this search: ${f.reason} (fix: ${f.fix})`;
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0]!.trim();
}

/** Stores whose fingerprints are equal embed into the same space: their cosines compare. */
function spaceOf(fp: ModelFingerprint): string {
  return JSON.stringify(Object.entries(fp).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A local snapshot as a search backend. */
export function snapshotBackend(
  store: Pick<SearchableStore, 'id' | 'name'>,
  snap: OpenSnapshot,
): StoreBackend {
  const toCandidate = (
    ordinal: number,
    score: number,
    kind: 'vector' | 'lexical',
    explain?: LexicalExplain,
  ): Candidate => {
    const { doc, chunk } = snap.chunkAt(ordinal);
    return {
      key: `${store.id}:${chunk.id}`,
      storeId: store.id,
      storeName: store.name,
      sourceId: doc.sourceId,
      path: doc.path,
      lineStart: chunk.lineStart,
      lineEnd: chunk.lineEnd,
      pageStart: chunk.pageStart,
      pageEnd: chunk.pageEnd,
      text: chunk.text,
      tokens: chunk.tokens,
      ...(kind === 'vector' ? { vectorScore: score } : { lexicalScore: score }),
      ...(explain ? { explain } : {}),
      fusedScore: 0,
      chunkId: chunk.id,
      contentSha256: doc.sha256,
    };
  };
  return {
    vector: (q, k, allowed) =>
      snap.searchVector(q, k, allowed).map((h) => toCandidate(h.chunkOrdinal, h.score, 'vector')),
    lexical: (q, k, allowed, programs, family, installedAs) =>
      snap
        .searchLexical(q, k, allowed, programs, family, installedAs)
        .map((h) => toCandidate(h.chunkOrdinal, h.score, 'lexical', h.explain)),
    lexicalStats: (q, programs, installedAs) => snap.lexicalStats(q, programs, installedAs),
    close: () => snap.close(),
  };
}
