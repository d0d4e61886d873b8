import { z } from 'zod';
import type { ChunkParams, ModelFingerprint, Role, SourceOptions, SourceStatus, SyncMode } from '../types.js';

// job.json's progress record is defined where it is published (status/ must not import store/).
export type { JobProgress } from '../status/job-file.js';

// store.json's schema. The TS types below are inferred from it, so the file format and the code
// cannot drift: a field added to the type is a field the reader checks.

const roleSchema = z.enum(['text', 'coding']) satisfies z.ZodType<Role>;
const syncModeSchema = z.enum(['automatic', 'manual']) satisfies z.ZodType<SyncMode>;
const sourceStatusSchema = z.enum([
  'NEW',
  'SCANNING',
  'INDEXING',
  'READY',
  'MISSING',
  'ERROR',
  'DISABLED',
]) satisfies z.ZodType<SourceStatus>;

const count = z.number().int().nonnegative();

export const modelFingerprintSchema = z.object({
  modelId: z.string(),
  fileName: z.string(),
  fileSize: count,
  fileSha256: z.string(),
  dimension: z.number().int().positive(),
  pooling: z.enum(['mean', 'cls', 'last', 'none', 'rank']),
  documentPrefix: z.string(),
  queryPrefix: z.string(),
}) satisfies z.ZodType<ModelFingerprint>;

export const chunkParamsSchema = z.object({
  chunkTokens: z.number().int().positive(),
  overlapTokens: count,
}) satisfies z.ZodType<ChunkParams>;

export const sourceOptionsSchema = z.object({
  maxFileBytes: z.number().int().positive(),
  include: z.array(z.string()),
  exclude: z.array(z.string()),
  gitignore: z.boolean(),
  hardLinks: z.boolean().optional(),
}) satisfies z.ZodType<SourceOptions>;

export const storeTypeSchema = z.enum(['local', 'qdrant']);
export type StoreType = z.infer<typeof storeTypeSchema>;

export const qdrantSettingsSchema = z.object({
  url: z.string(),
  collection: z.string(),
  /** Name of the vault entry holding the API key; the key itself never lives in store.json. */
  apiKeyRef: z.string().optional(),
});
export type QdrantSettings = z.infer<typeof qdrantSettingsSchema>;

export const sourceProblemSchema = z.object({
  path: z.string(),
  reason: z.string(),
  explanation: z.string().optional(),
});
export type SourceProblem = z.infer<typeof sourceProblemSchema>;

/** An extraction failure remembered for a file while its content hash is unchanged. */
export const failedDocSchema = z.object({
  /** Complete-file sha256 of the content that failed. */
  sha256: z.string(),
  /** The skip reason (a SkipReason such as pdf-timeout). */
  reason: z.string(),
  explanation: z.string().optional(),
  /** When it failed (ISO 8601). */
  failedAt: z.string(),
});
export type FailedDoc = z.infer<typeof failedDocSchema>;

export const sourceRecordSchema = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  kind: z.enum(['file', 'folder']),
  sync: syncModeSchema,
  enabled: z.boolean(),
  options: sourceOptionsSchema,
  status: sourceStatusSchema,
  statusReason: z.string().optional(),
  /** Set by the watcher when a source cannot be watched reliably. */
  limitedMonitoring: z.string().optional(),
  files: count,
  chunks: count,
  /** Files that should have been indexed and could not be (see scan/skip-kinds.ts). */
  problems: count,
  /** First problems of the last scan (bounded), for the UI. */
  problemList: z.array(sourceProblemSchema),
  /** Files left out by design (unsupported format, binary, hidden, excluded…); absent in older
   * files, which loadStore migrates (source-counts.ts). */
  skipped: count.optional(),
  /** First of them (bounded), for the UI. */
  skippedList: z.array(sourceProblemSchema).optional(),
  lastIndexedAt: z.string().optional(),
  /** Content hashes (abs path → sha256) of the documents indexed for this source. */
  hashes: z.record(z.string(), z.string()),
  /** Files whose extraction failed (abs path → record); not parsed again while unchanged. */
  failed: z.record(z.string(), failedDocSchema).optional(),
  /** Chunks the last update of this source embedded, and chunks that kept their vector. */
  lastChunksEmbedded: count.optional(),
  lastChunksReused: count.optional(),
  /** Qdrant stores: the point generation search may see for this source. */
  qdrantGeneration: z.string().optional(),
  /** Qdrant stores: the last push failed; the next update pushes this source again. */
  qdrantDirty: z.boolean().optional(),
});
/** A source as store.json may hold it (older files lack the skipped counts). */
export type StoredSourceRecord = z.infer<typeof sourceRecordSchema>;
export type SourceRecord = StoredSourceRecord & { skipped: number; skippedList: SourceProblem[] };

export const storeConfigSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  name: z.string().min(1),
  type: storeTypeSchema,
  modelId: z.string(),
  /** Fixed once the store is created; another model's vectors are refused. */
  fingerprint: modelFingerprintSchema,
  roles: z.array(roleSchema),
  autonomous: z.boolean(),
  chunk: chunkParamsSchema,
  qdrant: qdrantSettingsSchema.optional(),
  sources: z.array(sourceRecordSchema),
  createdAt: z.string(),
});
export type StoreConfig = Omit<z.infer<typeof storeConfigSchema>, 'sources'> & { sources: SourceRecord[] };

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
