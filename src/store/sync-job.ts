import { createError } from '../errors.js';
import type { SnapshotDoc } from '../index/snapshot-types.js';
import type { FsEnv } from '../storage/fs-env.js';
import type { Review } from '../types.js';
import type { StoreLock } from './lock.js';
import type { EmbedPort, PipelinePorts } from './ports.js';
import type {
  FailedDoc,
  JobProgress,
  JobSummary,
  SourceProblem,
  SourceRecord,
  StoreConfig,
} from './store-types.js';
import type { SourcePlan } from './sync-plan.js';
import type { OldSnapshot } from './vector-reuse.js';

// What the phases of one sync (index-job.ts) share: the request, the store as read under its
// lock, the old snapshot's documents, and per-source outcomes.

export interface SyncRequest {
  storeId: string;
  home?: string;
  /** Existing sources to update (default: none unless addSources/removeSourceIds given). */
  sourceIds?: string[];
  /** New sources: written to store.json only after their first successful activation. */
  addSources?: SourceRecord[];
  removeSourceIds?: string[];
  /** Review step; returning false cancels before any work. Absent = confirmed (watcher, --yes). */
  confirm?: (reviews: ReadonlyMap<string, Review>) => Promise<boolean>;
  signal?: AbortSignal;
  onProgress?: (p: JobProgress) => void;
  ports: PipelinePorts;
  lockStaleMs?: number;
  /** Explicit rebuild: ignore the old snapshot, embed everything with this configuration. */
  rebuild?: { modelId: string; fingerprint: StoreConfig['fingerprint'] };
  /** Extract again the files whose extraction failed before, even if they are unchanged. */
  retryFailed?: boolean;
  /**
   * Reuse the vector of every chunk whose text is already in the snapshot (default). `false`
   * keeps only whole unchanged documents, as syncs did before chunk-level reuse (benchmarks).
   */
  reuseChunks?: boolean;
  /** Durable I/O of the snapshot and store.json (default: the real file system; tests inject faults). */
  env?: FsEnv;
}

export interface SyncResult {
  summary: JobSummary;
  reviews: Map<string, Review>;
  /** Per-source outcome status. */
  statuses: Record<string, SourceRecord['status']>;
  wroteSnapshot: boolean;
}

export interface SyncJob {
  req: SyncRequest;
  home: string;
  /** store.json as read under the lock (with the rebuild's model when rebuilding). */
  cfg: StoreConfig;
  lock: StoreLock;
  snapFile: string;
  /** The active snapshot's fingerprint and documents (none when rebuilding or when there is none). */
  old?: OldSnapshot;
  /** `old`'s documents, or none. */
  oldDocs: readonly SnapshotDoc[];
  hadSnapshot: boolean;
  removeIds: Set<string>;
  progress: { set(patch: Partial<JobProgress>): void };
  /** Throws JOB_CANCELLED once the request's signal has fired. */
  check(): void;
  embedder?: EmbedPort;
}

/** A document problem of this sync; the hash lets a failure be remembered for that content. */
export type DocProblem = SourceProblem & { sha256?: string };

export interface SourceOutcome {
  source: SourceRecord;
  review?: Review;
  plan?: SourcePlan;
  fatal?: { status: 'MISSING' | 'ERROR'; reason: string };
  /** Remembered failures that made rows of this review skipped. */
  remembered: Map<string, FailedDoc>;
}

export function docKey(sourceId: string, path: string): string {
  return `${sourceId}\0${path}`;
}

export function createProgress(storeId: string, cb?: (p: JobProgress) => void): SyncJob['progress'] {
  const p: JobProgress = {
    storeId,
    state: 'scanning',
    documents: 0,
    documentsTotal: 0,
    chunks: 0,
    problems: 0,
    percent: 0,
  };
  return {
    set(patch) {
      Object.assign(p, patch);
      cb?.({ ...p });
    },
  };
}

export function cancelCheck(signal: AbortSignal | undefined): () => void {
  return () => {
    if (signal?.aborted) throw createError('JOB_CANCELLED');
  };
}
