import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { readJsonFile } from '../storage/json-file.js';
import { korttyHome, ragDir, statusPath } from '../storage/paths.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { type DamagedFile, scanJobFiles } from './job-file.js';
import { writeStatusLines } from './status-lines.js';
import {
  computeStatus,
  type DamagedNote,
  type StatusInfo,
  type StatusStore,
  statusInfoSchema,
} from './status-model.js';

// status.json is a cache for the status bar, rewritten after every job and watcher event.
// It is not a durability boundary, so a plain temp+rename (no fsync) is enough.

/**
 * Where the stores come from: the usable ones and those whose store.json is damaged. status/ does
 * not import store/ (store/ writes status): the caller passes store-config's scanStores, or (the
 * app layer) a loader that imports it only when needed, since `kortty-rag status` only reads
 * status.json and store-config's imports (atomic writes, crypto) cost several ms of the status
 * bar's < 50 ms budget.
 */
export type StoreLister = (home: string) => Promise<{
  stores: readonly StatusStore[];
  damaged: readonly { id: string; name?: string; path: string; error: { message: string } }[];
  /** Usable stores the last search could not use (damaged snapshot, unreachable server). */
  unhealthy?: readonly { id: string; name: string; kind: string; reason: string; fix: string }[];
}>;

export async function refreshStatusFile(scanStores: StoreLister, home = korttyHome()): Promise<StatusInfo> {
  const { stores, damaged, unhealthy = [] } = await scanStores(home);
  const jobFiles = await scanJobFiles(home);
  const notes: DamagedNote[] = [
    ...damaged.map((d) => ({
      store: d.name ?? d.id,
      path: d.path,
      message: d.error.message,
      storeFile: true,
    })),
    ...jobFiles.damaged.map(jobNote),
    ...unhealthy.map((u) => ({
      store: u.name,
      path: u.kind === 'damaged' ? 'snapshot' : 'Qdrant server',
      message: `${u.kind === 'damaged' ? 'DAMAGED' : 'UNREACHABLE'}: ${u.reason} (fix: ${u.fix})`,
    })),
  ];
  const info = computeStatus(stores, jobFiles.jobs, new Date(), notes);
  await mkdir(ragDir(home), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = `${statusPath(home)}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(info), { mode: PRIVATE_FILE_MODE });
    await rename(tmp, statusPath(home));
  } catch (err) {
    // A cache that could not be written leaves no temp behind (the next refresh writes it again).
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await writeStatusLines(info, home);
  return info;
}

/** Fast path for the status bar: status.json plus live job files, no store scanning. */
export async function readStatus(scanStores: StoreLister, home = korttyHome()): Promise<StatusInfo> {
  let info: StatusInfo | undefined;
  try {
    info = await readJsonFile(statusPath(home), statusInfoSchema, 'status cache');
  } catch (err) {
    // status.json is a cache: rebuilt from the stores, and this once the damage is shown as an error.
    const damage = { store: '-', source: statusPath(home), reason: (err as Error).message };
    const fresh = await refreshStatusFile(scanStores, home).catch(() => computeStatus([], []));
    return { ...fresh, state: 'error', errors: [damage, ...fresh.errors] };
  }
  if (!info) return refreshStatusFile(scanStores, home).catch(() => computeStatus([], []));
  const { jobs, damaged } = await scanJobFiles(home);
  info.jobs = jobs.map((j) => ({ store: j.storeName, state: j.state, percent: j.percent }));
  // A job.json damaged since status.json was written is an error too (the cache cannot know it).
  for (const d of damaged.map(jobNote))
    if (!info.errors.some((e) => e.source === d.path))
      info.errors.push({ store: d.store, source: d.path, reason: d.message });
  if (info.errors.length > 0) info.state = 'error';
  if (jobs.length > 0 && info.state !== 'error') info.state = 'syncing';
  else if (jobs.length === 0 && info.state === 'syncing')
    info.state = info.limited.length ? 'limited' : info.problems ? 'problems' : 'idle';
  return info;
}

function jobNote(d: DamagedFile): DamagedNote {
  return { store: d.storeId, path: d.path, message: d.message };
}

/** Re-renders the pre-rendered status lines from status.json and the live job files. */
export async function refreshStatusLines(
  scanStores: StoreLister,
  home = korttyHome(),
  opts: { onlyIfChanged?: boolean } = {},
): Promise<StatusInfo> {
  const info = await readStatus(scanStores, home);
  await writeStatusLines(info, home, opts);
  return info;
}

/**
 * For a running job: re-renders the status lines at most every `minIntervalMs`, after the job's
 * progress file is written, so a status bar that only `cat`s the line still shows live percent.
 */
export function createStatusLineRenderer(scanStores: StoreLister, home = korttyHome(), minIntervalMs = 1000) {
  let last = 0;
  let pending: Promise<void> = Promise.resolve();
  return {
    poke(after: Promise<unknown> = Promise.resolve()) {
      const now = Date.now();
      if (now - last < minIntervalMs) return;
      last = now;
      pending = pending
        .then(() => after)
        .then(() => refreshStatusLines(scanStores, home))
        .then(
          () => {},
          () => {},
        );
    },
    /** Resolves once no render is pending (call before the final refresh). */
    settle(): Promise<void> {
      return pending;
    },
  };
}

/**
 * For long-lived processes (the watcher, the query service): every `everyMs`, re-render the lines
 * if they changed, so a job that was killed (and so never cleared its progress) stops showing as
 * syncing within one period.
 */
export function startStatusLineKeeper(
  scanStores: StoreLister,
  home = korttyHome(),
  everyMs = 2000,
  /** Called after each completed pass (lets a caller wait for the keeper instead of a clock). */
  onPass?: () => void,
): { stop(): void } {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    // Only keeps existing lines current: never recreates a home that was removed under it.
    stat(statusPath(home))
      .then(() => refreshStatusLines(scanStores, home, { onlyIfChanged: true }))
      .catch(() => {})
      .finally(() => {
        busy = false;
        onPass?.();
      });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
