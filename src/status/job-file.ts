import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { isKorttyError } from '../errors.js';
import { readJsonFile } from '../storage/json-file.js';
import { korttyHome, storeDir, storesDir } from '../storage/paths.js';
import { PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { pidAlive } from '../util/pid-alive.js';

// A running job publishes its progress in its store directory (job.json); `kortty-rag status`
// reads these without taking any lock, so it never blocks on a running job. Writes are
// throttled; a job.json whose pid is gone is ignored (a killed job leaves no "syncing" ghost).
// It is replaced by rename, never written in place, so a reader never sees a torn one: a job.json
// that does not match its schema is damaged and reported, not skipped.

const count = z.number().int().nonnegative();

/** A running job's progress, as the engine reports it and job.json publishes it. */
export const jobProgressSchema = z.object({
  storeId: z.string(),
  sourceId: z.string().optional(),
  state: z.enum(['scanning', 'extracting', 'embedding', 'writing', 'activating', 'done']),
  documents: count,
  documentsTotal: count,
  chunks: count,
  problems: count,
  percent: z.number().min(0).max(100),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

export const jobFileSchema = jobProgressSchema.extend({
  pid: z.number().int().positive(),
  storeName: z.string(),
  updatedAt: z.number(),
});
export type JobFile = z.infer<typeof jobFileSchema>;

/** A persisted file that could not be used, with the error naming its path and field. */
export interface DamagedFile {
  /** The store it belongs to (its directory name). */
  storeId: string;
  path: string;
  message: string;
}

const JOB_FILE = 'job.json';

export function createJobPublisher(
  storeId: string,
  storeName: string,
  home = korttyHome(),
  minIntervalMs = 250,
) {
  const path = join(storeDir(storeId, home), JOB_FILE);
  let last = 0;
  let pending: Promise<void> = Promise.resolve();
  return {
    /** Resolves once this progress (or the last one written) is on disk. */
    publish(p: JobProgress, force = false): Promise<void> {
      const now = Date.now();
      if (!force && now - last < minIntervalMs && p.state !== 'done') return pending;
      last = now;
      const body: JobFile = { ...p, pid: process.pid, storeName, updatedAt: now };
      // temp + rename (no fsync: it is progress, not data), so readers see whole files only.
      const tmp = `${path}.${process.pid}.tmp`;
      pending = pending.then(() =>
        writeFile(tmp, JSON.stringify(body), { mode: PRIVATE_FILE_MODE })
          .then(() => rename(tmp, path))
          .catch(() => rm(tmp, { force: true }).catch(() => {})),
      );
      return pending;
    },
    async clear() {
      await pending;
      await rm(path, { force: true });
    },
  };
}

/** Live jobs' progress, plus the job.json files that are damaged (never silently skipped). */
export async function scanJobFiles(
  home = korttyHome(),
): Promise<{ jobs: JobFile[]; damaged: DamagedFile[] }> {
  let ids: string[];
  try {
    ids = await readdir(storesDir(home));
  } catch {
    return { jobs: [], damaged: [] };
  }
  const jobs: JobFile[] = [];
  const damaged: DamagedFile[] = [];
  await Promise.all(
    ids.map(async (id) => {
      const path = join(storesDir(home), id, JOB_FILE);
      try {
        const j = await readJsonFile(path, jobFileSchema, 'job progress file');
        if (j && pidAlive(j.pid)) jobs.push(j);
      } catch (err) {
        // A store being deleted (its directory renamed away) is not damage.
        if (isKorttyError(err, 'IO_FAILED') && (err.cause as NodeJS.ErrnoException)?.code === 'ENOTDIR')
          return;
        damaged.push({ storeId: id, path, message: (err as Error).message });
      }
    }),
  );
  jobs.sort((a, b) => a.storeName.localeCompare(b.storeName));
  damaged.sort((a, b) => a.storeId.localeCompare(b.storeId));
  return { jobs, damaged };
}

export async function readJobFiles(home = korttyHome()): Promise<JobFile[]> {
  return (await scanJobFiles(home)).jobs;
}
