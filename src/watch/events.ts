import type { JobSummary, SourceRecord } from '../store/store-types.js';

/** What the watcher reports (the CLI prints these as lines or JSON). */
export type WatchEvent =
  | { type: 'start'; pid: number; sources: number }
  | {
      type: 'watching' | 'unwatched' | 'root-missing' | 'root-back' | 'rules-changed';
      store: string;
      source: string;
      path: string;
    }
  | { type: 'limited' | 'refused'; store: string; source: string; path: string; reason: string }
  | { type: 'limited-cleared'; store: string; source: string; path: string }
  | { type: 'sync-start'; store: string; sources: string[] }
  | {
      type: 'sync-done';
      store: string;
      summary: JobSummary;
      statuses: Record<string, SourceRecord['status']>;
    }
  | { type: 'sync-busy' | 'sync-failed' | 'sync-cancelled'; store: string; reason: string }
  | { type: 'reconcile'; sources: number }
  | { type: 'stop' };
