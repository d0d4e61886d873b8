import { dirname } from 'node:path';
import { createError, isKorttyError } from '../errors.js';
import { atomicWrite, errReason, removeStaleTemps } from '../storage/atomic-write.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import type { ModelFingerprint } from '../types.js';
import { loadHnswGraph } from './hnsw.js';
import {
  type BuildSnapshotOptions,
  buildLexicalIndex,
  buildSnapshot,
  collectVectors,
  throwIfCancelled,
} from './snapshot-build.js';
import { decodeSnapshot, verifySnapshotV2 } from './snapshot-decode.js';
import { encodeSnapshot, type SnapshotParts } from './snapshot-format.js';
import { createOpenSnapshot, type OpenSnapshot } from './snapshot-search.js';
import {
  canonicalFingerprint,
  describeFingerprint,
  type HnswParams,
  type SnapshotData,
  sortDocs,
} from './snapshot-types.js';

// Activation and opening of a snapshot file. The order of steps and why a crash at any of them
// leaves the old or the new snapshot: STORAGE.md.

/** Labels of a write, in order; `checkpoint` sees each (kill-point tests hook in here). */
export type SnapshotStep =
  | 'built'
  | 'encoded'
  | 'written'
  | 'fsynced'
  | 'verified'
  | 'renamed'
  | 'dir-synced';
const BEFORE_RENAME = new Set<SnapshotStep>(['built', 'encoded', 'written', 'fsynced', 'verified']);

export interface WriteSnapshotOptions {
  env?: FsEnv;
  /** Honoured until the rename; afterwards the new snapshot is live and the write completes. */
  signal?: AbortSignal;
  /** Called after each step; throwing before 'renamed' abandons the candidate (old file untouched). */
  checkpoint?: (step: SnapshotStep) => void | Promise<void>;
  hnsw?: Partial<HnswParams>;
  /** hnswlib scratch files; default: the snapshot's directory. */
  scratchDir?: string;
  onProgress?: BuildSnapshotOptions['onProgress'];
}

export function isSnapshotParts(x: SnapshotData | SnapshotParts): x is SnapshotParts {
  return (x as SnapshotParts).graph !== undefined && (x as SnapshotParts).bm25 !== undefined;
}

/**
 * Build (unless given built parts), encode, and activate `path`: temp file in the same directory
 * → fsync → re-read and verify (bytes equal, checksums hold) → rename → fsync the directory.
 * Any failure or cancellation before the rename deletes the temp file and leaves `path`
 * byte-identical. Returns the file's size.
 */
export async function writeSnapshot(
  path: string,
  input: SnapshotData | SnapshotParts,
  opts: WriteSnapshotOptions = {},
): Promise<{ bytes: number }> {
  const env = opts.env ?? nodeFsEnv;
  const dir = dirname(path);
  let dirExists: boolean;
  try {
    dirExists = await env.exists(dir);
  } catch (err) {
    throw createError('IO_FAILED', { path: dir, op: 'write snapshot', reason: errReason(err) }, err);
  }
  if (!dirExists) {
    throw createError('IO_FAILED', {
      path: dir,
      op: 'write snapshot',
      reason: 'the directory does not exist',
    });
  }
  let checkpointError: unknown;
  const step = async (s: SnapshotStep) => {
    if (BEFORE_RENAME.has(s)) throwIfCancelled(opts.signal);
    try {
      await opts.checkpoint?.(s);
    } catch (err) {
      checkpointError = err; // the caller's own error (a kill point) passes through unwrapped
      throw err;
    }
  };
  const parts = isSnapshotParts(input)
    ? input
    : await buildSnapshot(input, {
        scratchDir: opts.scratchDir ?? dir,
        hnsw: opts.hnsw,
        signal: opts.signal,
        onProgress: opts.onProgress,
      });
  await step('built');
  const bytes = encodeSnapshot(parts);
  await step('encoded');
  try {
    await atomicWrite(path, bytes, {
      env,
      // Byte equality with the encoded buffer (whose digests were computed from these very bytes)
      // proves every checksum holds without hashing hundreds of MB again; the structure and header
      // digest are still checked on the re-read bytes.
      verify: (reread) => {
        if (!reread.equals(bytes)) {
          throw createError('SNAPSHOT_CORRUPT', {
            path,
            reason: 'the re-read candidate differs from what was written',
          });
        }
        verifySnapshotV2(reread, path, { sectionDigests: false });
      },
      checkpoint: step,
    });
  } catch (err) {
    if (isKorttyError(err) || err === checkpointError) throw err;
    throw createError('IO_FAILED', { path, op: 'write snapshot', reason: errReason(err) }, err);
  }
  return { bytes: bytes.length };
}

export interface OpenSnapshotOptions {
  env?: FsEnv;
  /** The store's model fingerprint: a snapshot built with another is refused. */
  expectFingerprint?: ModelFingerprint;
  /** Rewrite an older file (v1, v2) in the current format (default true; false serves the rebuilt index from memory). */
  promote?: boolean;
  scratchDir?: string;
  /** Query-time ef (default: the value stored in the snapshot). */
  efSearch?: number;
  /** Filtered vector searches over at most this many chunks are exact (default EXACT_FILTER_LIMIT). */
  exactFilterLimit?: number;
}

class PromotionRaced extends Error {}

/**
 * Open the snapshot at `path`, or null when there is none. Removes temp files of dead writers,
 * verifies every checksum (SNAPSHOT_CORRUPT), refuses another model's index
 * (FINGERPRINT_MISMATCH), and rebuilds an older file (v1, v2) into the current format, promoting
 * it atomically.
 */
export async function openSnapshot(
  path: string,
  opts: OpenSnapshotOptions = {},
): Promise<OpenSnapshot | null> {
  return openAttempt(path, opts, 3);
}

async function openAttempt(
  path: string,
  opts: OpenSnapshotOptions,
  attempts: number,
): Promise<OpenSnapshot | null> {
  const env = opts.env ?? nodeFsEnv;
  const dir = dirname(path);
  const scratchDir = opts.scratchDir ?? dir;
  const removedTemps = await removeStaleTemps(dir, env);
  let bytes: Buffer;
  try {
    bytes = await env.readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw createError('IO_FAILED', { path, op: 'read snapshot', reason: errReason(err) }, err);
  }
  const decoded = decodeSnapshot(bytes, path);
  const want = opts.expectFingerprint;
  if (want && canonicalFingerprint(decoded.data.fingerprint) !== canonicalFingerprint(want)) {
    const found = decoded.data.fingerprint as unknown as Record<string, unknown>;
    const fields = Object.keys({ ...found, ...want }).filter(
      (k) => JSON.stringify(found[k]) !== JSON.stringify((want as unknown as Record<string, unknown>)[k]),
    );
    throw createError('FINGERPRINT_MISMATCH', {
      path,
      found: `${describeFingerprint(decoded.data.fingerprint)}; differs in ${fields.join(', ')}`,
      want: describeFingerprint(want),
      fields,
    });
  }
  let parts: SnapshotParts;
  let promoted = false;
  let promotionError: string | undefined;
  if (decoded.version === 3) {
    parts = { data: decoded.data, hnsw: decoded.hnsw!, graph: decoded.graph!, bm25: decoded.bm25! };
  } else {
    if (decoded.version === 1) {
      const data: SnapshotData = { ...decoded.data, docs: sortDocs(decoded.data.docs) };
      try {
        parts = await buildSnapshot(data, { scratchDir });
      } catch (err) {
        if (!isKorttyError(err, 'INVALID_ARGUMENT')) throw err;
        throw createError(
          'SNAPSHOT_CORRUPT',
          { path, reason: `v1 content cannot be rebuilt: ${err.message}` },
          err,
        );
      }
    } else {
      // v2: graph and data are current; the lexical index is rebuilt from the stored texts.
      parts = {
        data: decoded.data,
        hnsw: decoded.hnsw!,
        graph: decoded.graph!,
        bm25: await buildLexicalIndex(decoded.data),
      };
    }
    if (opts.promote !== false) {
      try {
        await writeSnapshot(path, parts, {
          env,
          // Another process may have replaced the file since we read it: never overwrite newer data.
          checkpoint: async (s) => {
            if (s === 'verified' && !(await env.readFile(path)).equals(bytes)) throw new PromotionRaced();
          },
        });
        promoted = true;
      } catch (err) {
        // Reopen what the other writer activated. After repeated races, or when the directory
        // cannot be written (a read-only store), the rebuilt index is served from memory and
        // the reason is reported: the store stays searchable.
        if (err instanceof PromotionRaced && attempts > 1) return openAttempt(path, opts, attempts - 1);
        promotionError =
          err instanceof PromotionRaced ? 'the file changed during promotion' : (err as Error).message;
      }
    }
  }
  // v1 documents may have been re-sorted: the rows must follow the rebuilt ordinals
  const vectors = decoded.version === 1 ? collectVectors(parts.data) : decoded.vectors;
  const dim = parts.data.dimension;
  const graph = parts.graph.length > 0 ? await loadHnswGraph(parts.graph, vectors, dim, scratchDir) : null;
  return createOpenSnapshot({
    path,
    data: parts.data,
    vectors,
    hnsw: { ...parts.hnsw, ...(opts.efSearch ? { efSearch: opts.efSearch } : {}) },
    graph,
    bm25: parts.bm25,
    openedVersion: decoded.version,
    promoted,
    promotionError,
    removedTemps,
    exactFilterLimit: opts.exactFilterLimit,
  });
}
