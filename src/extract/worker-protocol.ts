import type { SkipReason } from '../types.js';

// Messages between the extraction process pool (worker-pool.ts) and its child (extract-child.ts).
// The child gets the bytes (or decoded text) the parent read and verified, never a path.

export type WorkerTask =
  | { kind: 'html'; text: string }
  | { kind: 'docx'; bytes: Uint8Array; maxUncompressedBytes: number }
  | { kind: 'pdf'; bytes: Uint8Array };

export type WorkerValue = { kind: 'text'; text: string } | { kind: 'pages'; pages: string[] };

/** What the child concluded about a document it could not convert (the file's fault). */
export interface WorkerFailure {
  skipReason: SkipReason;
  reason: string;
}

export interface ToWorker {
  id: number;
  task: WorkerTask;
}

export type FromWorker =
  | { id: number; ok: true; value: WorkerValue; maxRssKb: number }
  | { id: number; ok: false; failure: WorkerFailure; maxRssKb: number };
