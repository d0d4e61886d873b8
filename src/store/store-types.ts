import type { ChunkParams, ModelFingerprint, Role, SourceOptions, SourceStatus, SyncMode } from '../types.js';

export type StoreType = 'local' | 'qdrant';

export interface QdrantSettings {
  url: string;
  collection: string;
  /** Name of the vault entry holding the API key; the key itself never lives in store.json. */
  apiKeyRef?: string;
}

export interface SourceProblem {
  path: string;
  reason: string;
  explanation?: string;
}

/** An extraction failure remembered for a file while its content hash is unchanged. */
export interface FailedDoc {
  /** Complete-file sha256 of the content that failed. */
  sha256: string;
  /** The skip reason (a SkipReason such as pdf-timeout). */
  reason: string;
  explanation?: string;
  /** When it failed (ISO 8601). */
  failedAt: string;
}

export interface SourceRecord {
  id: string;
  path: string;
  kind: 'file' | 'folder';
  sync: SyncMode;
  enabled: boolean;
  options: SourceOptions;
  status: SourceStatus;
  statusReason?: string;
  /** Set by the watcher when a source cannot be watched reliably. */
  limitedMonitoring?: string;
  files: number;
  chunks: number;
  /** Files that should have been indexed and could not be (see scan/skip-kinds.ts). */
  problems: number;
  /** First problems of the last scan (bounded), for the UI. */
  problemList: SourceProblem[];
  /** Files left out by design (unsupported format, binary, hidden, excluded…). */
  skipped: number;
  /** First of them (bounded), for the UI. */
  skippedList: SourceProblem[];
  lastIndexedAt?: string;
  /** Content hashes (abs path → sha256) of the documents indexed for this source. */
  hashes: Record<string, string>;
  /** Files whose extraction failed (abs path → record); not parsed again while unchanged. */
  failed?: Record<string, FailedDoc>;
  /** Chunks the last update of this source embedded, and chunks that kept their vector. */
  lastChunksEmbedded?: number;
  lastChunksReused?: number;
  /** Qdrant stores: the point generation search may see for this source. */
  qdrantGeneration?: string;
  /** Qdrant stores: the last push failed; the next update pushes this source again. */
  qdrantDirty?: boolean;
}

export interface StoreConfig {
  version: 1;
  id: string;
  name: string;
  type: StoreType;
  modelId: string;
  /** Fixed once the store is created; another model's vectors are refused. */
  fingerprint: ModelFingerprint;
  roles: Role[];
  autonomous: boolean;
  chunk: ChunkParams;
  qdrant?: QdrantSettings;
  sources: SourceRecord[];
  createdAt: string;
}

export interface JobSummary {
  indexed: number;
  unchanged: number;
  removed: number;
  skipped: number;
  chunksEmbedded: number;
  /** Chunks of this job's sources kept from the previous snapshot (unchanged documents). */
  chunksReused: number;
  problems: number;
}

export interface JobProgress {
  storeId: string;
  sourceId?: string;
  state: 'scanning' | 'extracting' | 'embedding' | 'writing' | 'activating' | 'done';
  documents: number;
  documentsTotal: number;
  chunks: number;
  problems: number;
  percent: number;
}
