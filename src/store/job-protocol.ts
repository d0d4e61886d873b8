import type { Review } from '../types.js';
import type { AddSourceInput } from './engine.js';
import type { SyncResult } from './index-job.js';
import type { JobProgress } from './store-types.js';

// Messages between the UI process and a job child. Plain JSON: Maps travel as entry lists.

export type JobSpec =
  | { op: 'add'; store: string; inputs: AddSourceInput[] }
  | { op: 'update'; store: string; sources: string[] | 'all'; retryFailed?: boolean }
  | { op: 'remove'; store: string; source: string }
  | { op: 'rebuild'; store: string; model?: string };

export type ToChild =
  | { type: 'start'; spec: JobSpec; home: string; review: boolean }
  | { type: 'confirm'; ok: boolean }
  | { type: 'cancel' };

export type FromChild =
  | { type: 'progress'; progress: JobProgress }
  | { type: 'review'; reviews: [string, Review][] }
  | { type: 'done'; result: Omit<SyncResult, 'reviews'> & { reviews: [string, Review][] } }
  | { type: 'error'; code?: string; message: string };
