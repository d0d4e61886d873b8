import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { korttyHome, storeDir, storesDir } from '../storage/paths.js';
import type { JobProgress } from '../store/store-types.js';
import { pidAlive } from '../util/pid-alive.js';

// A running job publishes its progress in its store directory (job.json); `kortty-rag status`
// reads these without taking any lock, so it never blocks on a running job. Writes are
// throttled; a job.json whose pid is gone is ignored (a killed job leaves no "syncing" ghost).

export interface JobFile extends JobProgress {
  pid: number;
  storeName: string;
  updatedAt: number;
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
      // Plain write (not atomic): readers tolerate a torn file by ignoring it.
      pending = pending.then(() => writeFile(path, JSON.stringify(body)).catch(() => {}));
      return pending;
    },
    async clear() {
      await pending;
      await rm(path, { force: true });
    },
  };
}

export async function readJobFiles(home = korttyHome()): Promise<JobFile[]> {
  let ids: string[];
  try {
    ids = await readdir(storesDir(home));
  } catch {
    return [];
  }
  const out: JobFile[] = [];
  await Promise.all(
    ids.map(async (id) => {
      try {
        const j = JSON.parse(await readFile(join(storesDir(home), id, JOB_FILE), 'utf8')) as JobFile;
        if (pidAlive(j.pid)) out.push(j);
      } catch {}
    }),
  );
  return out.sort((a, b) => a.storeName.localeCompare(b.storeName));
}
