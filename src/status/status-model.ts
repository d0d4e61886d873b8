import { z } from 'zod';
import type { StoreConfig } from '../store/store-types.js';
import type { JobFile } from './job-file.js';

// Pure: what one status-bar line says. Precedence: error > syncing > limited > problems > idle.
// Problems are files that should have been indexed and were not; files skipped by design
// (unsupported, binary, hidden, excluded) are counted apart and never colour the line.

const statusStateSchema = z.enum(['idle', 'syncing', 'problems', 'limited', 'error', 'none']);
export type StatusState = z.infer<typeof statusStateSchema>;

const noteSchema = z.object({ store: z.string(), source: z.string(), reason: z.string() });

/** status.json: the status bar's cache, rewritten after every job and watcher event. */
export const statusInfoSchema = z.object({
  state: statusStateSchema,
  stores: z.number().int().nonnegative(),
  problems: z.number().int().nonnegative(),
  /** Files left out by design: reported, never a warning. Absent in caches written before it. */
  skipped: z.number().int().nonnegative().default(0),
  errors: z.array(noteSchema),
  limited: z.array(noteSchema),
  jobs: z.array(z.object({ store: z.string(), state: z.string(), percent: z.number() })),
  watcher: z.object({ pid: z.number().int(), alive: z.boolean() }).optional(),
  updatedAt: z.string(),
});
export type StatusInfo = z.infer<typeof statusInfoSchema>;

/** A file the status could not use (a damaged store.json or job.json), shown as an error. */
export interface DamagedNote {
  /** Store id (directory name) or name. */
  store: string;
  path: string;
  message: string;
  /** The store's own store.json: the store counts as a store, a damaged one. */
  storeFile?: boolean;
}

export function computeStatus(
  stores: readonly StoreConfig[],
  jobs: readonly JobFile[],
  now = new Date(),
  damaged: readonly DamagedNote[] = [],
): StatusInfo {
  const errors: StatusInfo['errors'] = damaged.map((d) => ({
    store: d.store,
    source: d.path,
    reason: d.message,
  }));
  const limited: StatusInfo['limited'] = [];
  let problems = 0;
  let skipped = 0;
  for (const s of stores) {
    for (const src of s.sources) {
      if (src.status === 'ERROR' || src.status === 'MISSING') {
        errors.push({ store: s.name, source: src.path, reason: src.statusReason ?? src.status });
      }
      if (src.limitedMonitoring)
        limited.push({ store: s.name, source: src.path, reason: src.limitedMonitoring });
      problems += src.problems;
      skipped += src.skipped ?? 0;
    }
  }
  const jobList = jobs.map((j) => ({ store: j.storeName, state: j.state, percent: j.percent }));
  const state: StatusState =
    stores.length === 0 && errors.length === 0
      ? 'none'
      : errors.length > 0
        ? 'error'
        : jobList.length > 0
          ? 'syncing'
          : limited.length > 0
            ? 'limited'
            : problems > 0
              ? 'problems'
              : 'idle';
  return {
    state,
    stores: stores.length + damaged.filter((d) => d.storeFile).length,
    problems,
    skipped,
    errors,
    limited,
    jobs: jobList,
    updatedAt: now.toISOString(),
  };
}

/** Running jobs always show, even next to an error, so the user sees progress. */
export function formatStatus(info: StatusInfo, format: 'plain' | 'tmux' | 'json'): string {
  if (format === 'json') return JSON.stringify(info);
  const parts: string[] = [];
  for (const j of info.jobs) parts.push(`syncing ${j.store} ${j.percent}%`);
  if (info.errors.length > 0) parts.push(`error ${info.errors.length}`);
  if (info.limited.length > 0) parts.push('limited monitoring');
  if (info.problems > 0) parts.push(`${info.problems} problem${info.problems === 1 ? '' : 's'}`);
  if (parts.length === 0) parts.push(info.state === 'none' ? 'no stores' : 'idle');
  const text = `RAG ${parts.join(' · ')}`;
  if (format === 'plain') return text;
  const colour =
    info.errors.length > 0
      ? 'red'
      : info.jobs.length > 0
        ? 'yellow'
        : info.limited.length > 0 || info.problems > 0
          ? 'colour208'
          : 'green';
  // tmux interprets #[...] and #(...): the text above contains only store names, which we sanitise.
  return `#[fg=${colour}]${text.replace(/#/g, '##')}#[default]`;
}
