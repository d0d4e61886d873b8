import { countTokens } from '../chunk/tokenizer.js';
import { createError } from '../errors.js';
import { openSnapshot } from '../index/snapshot-io.js';
import type { OpenSnapshot } from '../index/snapshot-search.js';
import { korttyHome, snapshotPath } from '../storage/paths.js';
import type { EmbedPort } from '../store/ports.js';
import type { StoreConfig } from '../store/store-types.js';
import type { Candidate, Excerpt } from '../types.js';
import { renderContextBlock } from './block.js';
import { selectExcerpts } from './bounds.js';
import { type FusionOptions, fuseRankings } from './fuse.js';
import { defaultFusionFor } from './fusion-defaults.js';

// Test search and the retrieval step of AI actions: each store's query embedded with its own
// model, vector (HNSW cosine) and lexical (BM25) rankings over enabled sources only, fused by
// reciprocal rank fusion, merged across stores, bounded, and rendered as the exact block a model
// gets.

export type SearchMode = 'hybrid' | 'vector' | 'lexical';

/** How many hits each retriever contributes before fusion. */
export const CANDIDATES_PER_LIST = 40;

export interface StoreBackend {
  /** Vector hits (cosine, best first) over the allowed sources. */
  vector(query: Float32Array, k: number, allowed: Set<string>): Promise<Candidate[]> | Candidate[];
  /** Lexical hits (BM25, best first); absent for backends without a lexical index (Qdrant). */
  lexical?(query: string, k: number, allowed: Set<string>): Candidate[];
  close(): void;
}

export interface SearchDeps {
  /** Query embedder for a store (its own model, its query prefix). */
  embedderFor(
    store: StoreConfig,
  ): Promise<Pick<EmbedPort, 'dimension'> & { embedQuery(text: string): Promise<Float32Array> }>;
  backendFor(store: StoreConfig): Promise<StoreBackend | null>;
}

export interface SearchRequest {
  stores: readonly StoreConfig[];
  query: string;
  mode?: SearchMode;
  /** Target model's context window; bounds the block to 25% of it. */
  contextWindow?: number;
  fusion?: FusionOptions;
  firstMarker?: number;
}

export interface SearchResult {
  excerpts: Excerpt[];
  /** The exact block a model would receive ('' when nothing was found). */
  block: string;
  /** Fused candidates before bounds, best first (for Test search diagnostics). */
  candidates: Candidate[];
  timings: { embedMs: number; searchMs: number; assembleMs: number };
}

export async function search(req: SearchRequest, deps: SearchDeps): Promise<SearchResult> {
  const mode = req.mode ?? 'hybrid';
  const query = req.query.trim();
  if (!query) throw createError('INVALID_ARGUMENT', { name: 'query', reason: 'the search query is empty' });
  const timings = { embedMs: 0, searchMs: 0, assembleMs: 0 };
  const merged: Candidate[] = [];
  for (const store of req.stores) {
    const allowed = new Set(store.sources.filter((s) => s.enabled).map((s) => s.id));
    if (allowed.size === 0) continue;
    const backend = await deps.backendFor(store);
    if (!backend) continue;
    let vectorHits: Candidate[] = [];
    let lexicalHits: Candidate[] = [];
    if (mode !== 'lexical' || !backend.lexical) {
      const t0 = performance.now();
      const embedder = await deps.embedderFor(store);
      const qv = await embedder.embedQuery(query);
      const t1 = performance.now();
      vectorHits = await backend.vector(qv, CANDIDATES_PER_LIST, allowed);
      timings.embedMs += t1 - t0;
      timings.searchMs += performance.now() - t1;
    }
    if (mode !== 'vector' && backend.lexical) {
      const t1 = performance.now();
      lexicalHits = backend.lexical(query, CANDIDATES_PER_LIST, allowed);
      timings.searchMs += performance.now() - t1;
    }
    const byKey = new Map<string, Candidate>();
    for (const c of [...vectorHits, ...lexicalHits]) {
      const prev = byKey.get(c.key);
      byKey.set(c.key, prev ? { ...prev, ...definedOnly(c) } : c);
    }
    const fusion = req.fusion ?? defaultFusionFor(store.modelId);
    const lists = { vector: vectorHits.map((c) => c.key), lexical: lexicalHits.map((c) => c.key) };
    const fused = fuseRankings(lists, fusion);
    // A backend that produced only one list (a Qdrant store, or a single-mode search) would
    // otherwise score at most half of a hybrid store's top hit in a multi-store merge: scale by
    // the weight of the lists that were actually produced.
    const wv = fusion.vectorWeight ?? 1;
    const wl = fusion.lexicalWeight ?? 1;
    const produced = (lists.vector.length > 0 ? wv : 0) + (lists.lexical.length > 0 ? wl : 0);
    const scale = produced > 0 ? (wv + wl) / produced : 1;
    for (const f of fused) {
      const c = byKey.get(f.key)!;
      merged.push({ ...c, vectorRank: f.vectorRank, lexicalRank: f.lexicalRank, fusedScore: f.fusedScore * scale });
    }
  }
  const t2 = performance.now();
  const excerpts = selectExcerpts(
    merged,
    { contextWindow: req.contextWindow ?? 32768, firstMarker: req.firstMarker },
    countTokens,
  );
  const block = renderContextBlock(excerpts);
  timings.assembleMs = performance.now() - t2;
  return { excerpts, block, candidates: merged, timings };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A local snapshot as a search backend. */
export function snapshotBackend(store: StoreConfig, snap: OpenSnapshot): StoreBackend {
  const toCandidate = (ordinal: number, score: number, kind: 'vector' | 'lexical'): Candidate => {
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
      fusedScore: 0,
      chunkId: chunk.id,
      contentSha256: doc.sha256,
    };
  };
  return {
    vector: (q, k, allowed) =>
      snap.searchVector(q, k, allowed).map((h) => toCandidate(h.chunkOrdinal, h.score, 'vector')),
    lexical: (q, k, allowed) =>
      snap.searchLexical(q, k, allowed).map((h) => toCandidate(h.chunkOrdinal, h.score, 'lexical')),
    close: () => snap.close(),
  };
}

/** Real dependencies with per-process caches (a TUI or a long `ask` reuses models and snapshots). */
export function createSearchDeps(home = korttyHome()): SearchDeps & { close(): Promise<void> } {
  const embedders = new Map<
    string,
    Promise<Awaited<ReturnType<SearchDeps['embedderFor']>> & { close(): Promise<void> }>
  >();
  // Keyed by the file's identity: activation renames a new file into place, so a new snapshot
  // always has a new inode even when size and mtime happen to match the old one.
  const snaps = new Map<string, { identity: string; snap: OpenSnapshot | null }>();
  return {
    embedderFor(store) {
      const key = store.fingerprint.fileSha256 + store.fingerprint.queryPrefix;
      let e = embedders.get(key);
      if (!e) {
        e = (async () => {
          const { resolveModel } = await import('../store/model-resolve.js');
          const { createEmbedder } = await import('../embed/provider.js');
          const m = await resolveModel(store.modelId, home);
          return createEmbedder({
            modelPath: m.path,
            modelId: store.modelId,
            sha256: m.sha256,
            fingerprint: store.fingerprint,
            storeName: store.name,
          });
        })();
        embedders.set(key, e);
        e.catch(() => embedders.delete(key));
      }
      return e;
    },
    async backendFor(store) {
      if (store.type === 'qdrant') {
        const { qdrantBackend } = await import('../store/qdrant-bridge.js');
        return qdrantBackend(store, home);
      }
      const path = snapshotPath(store.id, home);
      const { stat } = await import('node:fs/promises');
      const identity = await stat(path).then(
        (s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`,
        () => '',
      );
      const cached = snaps.get(store.id);
      let snap: OpenSnapshot | null;
      if (cached && cached.identity === identity) snap = cached.snap;
      else {
        cached?.snap?.close();
        snaps.delete(store.id);
        snap = identity === '' ? null : await openSnapshot(path, { expectFingerprint: store.fingerprint });
        snaps.set(store.id, { identity, snap });
      }
      if (!snap) return null;
      // The cache owns the snapshot; closing the backend is a no-op.
      return { ...snapshotBackend(store, snap), close: () => {} };
    },
    async close() {
      for (const e of embedders.values()) await e.then((x) => x.close()).catch(() => {});
      for (const s of snaps.values()) s.snap?.close();
      embedders.clear();
      snaps.clear();
    },
  };
}
