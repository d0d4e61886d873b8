import type { StoreConfig } from '../store/store-types.js';
import type { JobFile } from './job-file.js';

// Pure: what one status-bar line says. Precedence: error > syncing > limited > problems > idle.
// Problems are files that should have been indexed and were not; files skipped by design
// (unsupported, binary, hidden, excluded) are counted apart and never colour the line.

export type StatusState = 'idle' | 'syncing' | 'problems' | 'limited' | 'error' | 'none';

export interface StatusInfo {
  state: StatusState;
  stores: number;
  problems: number;
  /** Files left out by design: reported, never a warning. */
  skipped: number;
  errors: { store: string; source: string; reason: string }[];
  limited: { store: string; source: string; reason: string }[];
  jobs: { store: string; state: string; percent: number }[];
  watcher?: { pid: number; alive: boolean };
  updatedAt: string;
}

export function computeStatus(
  stores: readonly StoreConfig[],
  jobs: readonly JobFile[],
  now = new Date(),
): StatusInfo {
  const errors: StatusInfo['errors'] = [];
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
    stores.length === 0
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
    stores: stores.length,
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
