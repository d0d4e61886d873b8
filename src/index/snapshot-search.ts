import { createError } from '../errors.js';
import {
  type Bm25Index,
  type Bm25Stats,
  bm25Stats,
  type InstalledNames,
  type NameMatch,
  nameTerm,
} from './bm25.js';
import { exactSearch, vectorNorms } from './exact-search.js';
import { documentNames } from './fields.js';
import type { HnswSearcher } from './hnsw.js';
import { type LexicalHit, searchLexical } from './lexical-search.js';
import type { HnswParams, SearchHit, SnapshotChunk, SnapshotData, SnapshotDoc } from './snapshot-types.js';

// Query side of an opened snapshot: vector search (HNSW, or exact when a source filter leaves
// few candidates), BM25, and ordinal → (document, chunk). Filters are precomputed masks, never
// logic inside hnswlib's callback.

export interface OpenSnapshot {
  readonly path: string;
  readonly data: SnapshotData;
  readonly chunkCount: number;
  readonly hnsw: HnswParams;
  /** The version this open found: 1 and 2 are rebuilt (and promoted on disk unless `promote: false`). */
  readonly openedVersion: 1 | 2 | 3;
  /** True when this open rewrote an older file in the current format. */
  readonly promoted: boolean;
  /** Why an older file could not be promoted (the rebuilt index is then served from memory). */
  readonly promotionError?: string;
  /** Temp files of dead writers removed from the directory by this open. */
  readonly removedTemps: string[];
  /** Cosine similarity, best first; only chunks of `allowedSourceIds` when given. */
  searchVector(query: Float32Array, k: number, allowedSourceIds?: Set<string>): SearchHit[];
  /**
   * Lexical score (BM25F, the name match of `programs` and proximity), best first, each hit
   * explained; only chunks of `allowedSourceIds` when given. `family`: the programs were named in
   * prose, and each one's other pages (`git-log` for git) share its name match. `installedAs`: the
   * names a program is installed as (awk → mawk), matched when no document bears its own name.
   */
  searchLexical(
    query: string,
    k: number,
    allowedSourceIds?: Set<string>,
    programs?: readonly string[],
    family?: boolean,
    installedAs?: InstalledNames,
  ): LexicalHit[];
  /** This snapshot's BM25 statistics for the query's terms and programs (see `bm25Ceiling`). */
  lexicalStats(query: string, programs?: readonly string[], installedAs?: InstalledNames): Bm25Stats;
  chunkAt(ordinal: number): { doc: SnapshotDoc; chunk: SnapshotChunk };
  close(): void;
}

/**
 * Below this many allowed chunks (or under 1/20 of the store) a filtered vector search is exact:
 * cheaper than a graph walk that mostly visits filtered-out nodes (~1 ms per 1,000 vectors at
 * 384 dimensions), and it cannot miss.
 */
export const EXACT_FILTER_LIMIT = 16384;

export interface SearchState {
  path: string;
  data: SnapshotData;
  vectors: Float32Array;
  hnsw: HnswParams;
  graph: HnswSearcher | null;
  bm25: Bm25Index;
  openedVersion: 1 | 2 | 3;
  promoted: boolean;
  promotionError?: string;
  removedTemps: string[];
  /** Override EXACT_FILTER_LIMIT (tests force the graph path with 0). */
  exactFilterLimit?: number;
}

export function createOpenSnapshot(s: SearchState): OpenSnapshot {
  const dim = s.data.dimension;
  const n = s.vectors.length / dim;
  const docOf = new Uint32Array(n);
  const firstOf: number[] = [];
  let ord = 0;
  s.data.docs.forEach((doc, di) => {
    firstOf.push(ord);
    for (let c = 0; c < doc.chunks.length; c++) docOf[ord++] = di;
  });
  const exactLimit = s.exactFilterLimit ?? EXACT_FILTER_LIMIT;
  let norms: Float32Array | null = null;
  let closed = false;
  const open = () => {
    if (closed) throw createError('INVALID_ARGUMENT', { name: 'snapshot', reason: `${s.path} was closed` });
  };
  // The mask of the last source filter is kept: a search runs a vector and a lexical query with
  // the same filter, and the next search usually has it too. A filter that allows every chunk
  // gives no mask at all (unfiltered search is cheaper, above all inside hnswlib).
  let lastMask: { key: string; mask: Uint8Array | undefined; count: number } | undefined;
  const mask = (allowed: Set<string>): { mask: Uint8Array | undefined; count: number } => {
    const key = [...allowed].sort().join('\u0000');
    if (lastMask?.key === key) return lastMask;
    const m = new Uint8Array(n);
    let count = 0;
    s.data.docs.forEach((doc, di) => {
      if (!allowed.has(doc.sourceId) || doc.chunks.length === 0) return;
      m.fill(1, firstOf[di]!, firstOf[di]! + doc.chunks.length);
      count += doc.chunks.length;
    });
    lastMask = { key, mask: count === n ? undefined : m, count };
    return lastMask;
  };
  // Document names → the ordinals of their chunks, of the documents filed under the name and of
  // those that only list it, built at the first search that names a program.
  let byName: Map<string, { filed: number[]; listed: number[] }> | undefined;
  const nameMatches = (
    programs: readonly string[] | undefined,
    family = false,
    installedAs?: InstalledNames,
  ): NameMatch[] => {
    if (!programs?.length) return [];
    if (!byName) {
      byName = new Map();
      for (const [di, doc] of s.data.docs.entries()) {
        if (doc.chunks.length === 0) continue;
        // documentNames lists the file stem first.
        for (const [i, name] of documentNames(doc.path, doc.chunks[0]!.text).entries()) {
          const entry = byName.get(name) ?? { filed: [], listed: [] };
          const list = i === 0 ? entry.filed : entry.listed;
          for (let c = 0; c < doc.chunks.length; c++) list.push(firstOf[di]! + c);
          byName.set(name, entry);
        }
      }
    }
    const out: NameMatch[] = [];
    // A program no document of this store bears takes no rank: `bash: cd: …` names cd first, and
    // where cd has no page of its own, bash weighs as if named alone.
    // A program installed under another name (Debian's awk is mawk) is matched by that name's
    // document when none bears its own.
    for (const p of programs) {
      const own = p.toLowerCase();
      const name = byName.has(own) ? own : installedAs?.(p).find((x) => byName!.has(x));
      if (name === undefined) continue;
      const entry = byName.get(name)!;
      const term = nameTerm(name);
      if (term !== undefined)
        out.push({
          term,
          ordinals: entry.filed,
          aliases: entry.listed,
          ...(family ? { family: familyOf(name) } : {}),
          rank: out.length,
        });
    }
    return out;
  };
  // The chunks of the documents filed under `name-…`: a program's other pages. One pass over the
  // name table per program, kept while the snapshot is open.
  const families = new Map<string, number[]>();
  const familyOf = (name: string): number[] => {
    let out = families.get(name);
    if (out) return out;
    out = [];
    for (const [other, entry] of byName!) if (other.startsWith(`${name}-`)) out.push(...entry.filed);
    families.set(name, out);
    return out;
  };
  const exact = (query: Float32Array, k: number, allowed?: Uint8Array) => {
    norms ??= vectorNorms(s.vectors, dim);
    return exactSearch(s.vectors, query, k, { allowed, norms });
  };

  return {
    path: s.path,
    data: s.data,
    chunkCount: n,
    hnsw: s.hnsw,
    openedVersion: s.openedVersion,
    promoted: s.promoted,
    promotionError: s.promotionError,
    removedTemps: s.removedTemps,
    searchVector(query, k, allowedSourceIds) {
      open();
      if (query.length !== dim) {
        throw createError('INVALID_ARGUMENT', {
          name: 'query',
          reason: `vector has ${query.length} dimensions, the store ${dim}`,
        });
      }
      if (k <= 0 || n === 0) return [];
      if (!allowedSourceIds) return s.graph ? s.graph.search(query, k, s.hnsw.efSearch) : exact(query, k);
      const { mask: m, count } = mask(allowedSourceIds);
      if (count === 0) return [];
      if (!s.graph || count <= exactLimit || count * 20 < n) return exact(query, k, m);
      if (!m) return s.graph.search(query, k, s.hnsw.efSearch);
      // The walk skips filtered nodes, so widen ef in proportion to what the filter removes.
      const ef = Math.min(n, Math.ceil((s.hnsw.efSearch * n) / count));
      const hits = s.graph.search(query, k, ef, m).filter((h) => m[h.chunkOrdinal] === 1);
      return hits.length >= Math.min(k, count) ? hits : exact(query, k, m);
    },
    searchLexical(query, k, allowedSourceIds, programs, family, installedAs) {
      open();
      const textOf = (ordinal: number) =>
        s.data.docs[docOf[ordinal]!]!.chunks[ordinal - firstOf[docOf[ordinal]!]!]!.text;
      return searchLexical(
        s.bm25,
        query,
        k,
        textOf,
        allowedSourceIds ? mask(allowedSourceIds).mask : undefined,
        undefined,
        nameMatches(programs, family, installedAs),
        docOf,
      );
    },
    lexicalStats(query, programs, installedAs) {
      open();
      return bm25Stats(s.bm25, query, nameMatches(programs, false, installedAs));
    },
    chunkAt(ordinal) {
      if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= n) {
        throw createError('INVALID_ARGUMENT', {
          name: 'ordinal',
          reason: `${ordinal} is not in 0..${n - 1}`,
        });
      }
      const doc = s.data.docs[docOf[ordinal]!]!;
      return { doc, chunk: doc.chunks[ordinal - firstOf[docOf[ordinal]!]!]! };
    },
    close() {
      closed = true;
      s.graph?.close();
    },
  };
}
