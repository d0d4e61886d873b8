import type { Chunk, ChunkParams, ExtractedDoc, ModelFingerprint, Review } from '../types.js';
import type { SourceRecord } from './store-types.js';

// The index job talks to the pipeline stages through these ports, so tests and the reliability
// suite can inject faults, and the job itself stays free of adapter imports.

export interface EmbedPort {
  readonly dimension: number;
  embedDocuments(texts: string[], opts?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface PipelinePorts {
  scan(source: SourceRecord, previous: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<Review>;
  /** `expectSha256`: the scanned hash; a file that changed since the scan is skipped (read-error). */
  extract(path: string, format: string, signal?: AbortSignal, expectSha256?: string): Promise<ExtractedDoc>;
  chunk(doc: ExtractedDoc, params: ChunkParams): Chunk[];
  /** Opens the store's embedding model; refuses a changed file or another dimension before embedding. */
  openEmbedder(fingerprint: ModelFingerprint, modelId: string): Promise<EmbedPort>;
}
