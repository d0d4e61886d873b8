import type { Chunk, ChunkParams, ExtractedDoc, ModelFingerprint, Review, ScannedFile } from '../types.js';
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
  /**
   * `expectSha256`: the scanned hash; a file that changed since the scan is skipped (read-error).
   * `scanned`: the scan's record of the file; extraction opens that very file or skips it.
   */
  extract(
    path: string,
    format: string,
    signal?: AbortSignal,
    expectSha256?: string,
    scanned?: ScannedFile,
  ): Promise<ExtractedDoc>;
  chunk(doc: ExtractedDoc, params: ChunkParams): Chunk[];
  /** Opens the store's embedding model; refuses a changed file or another dimension before embedding. */
  openEmbedder(fingerprint: ModelFingerprint, modelId: string): Promise<EmbedPort>;
}
