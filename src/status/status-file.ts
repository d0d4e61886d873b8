import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { korttyHome, ragDir, statusPath } from '../storage/paths.js';
import { readJobFiles } from './job-file.js';
import { computeStatus, type StatusInfo } from './status-model.js';

// status.json is a cache for the status bar, rewritten after every job and watcher event.
// It is not a durability boundary, so a plain temp+rename (no fsync) is enough.

export async function refreshStatusFile(home = korttyHome()): Promise<StatusInfo> {
  // Loaded here, not at the top: `kortty-rag status` only reads status.json, and store-config's
  // imports (atomic writes, crypto) cost several ms of the status bar's < 50 ms budget.
  const { listStores } = await import('../store/store-config.js');
  const info = computeStatus(await listStores(home), await readJobFiles(home));
  await mkdir(ragDir(home), { recursive: true });
  const tmp = `${statusPath(home)}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(info));
  await rename(tmp, statusPath(home));
  return info;
}

/** Fast path for the status bar: status.json plus live job files, no store scanning. */
export async function readStatus(home = korttyHome()): Promise<StatusInfo> {
  let info: StatusInfo;
  try {
    info = JSON.parse(await readFile(statusPath(home), 'utf8')) as StatusInfo;
  } catch {
    return refreshStatusFile(home).catch(() => computeStatus([], []));
  }
  const jobs = await readJobFiles(home);
  info.jobs = jobs.map((j) => ({ store: j.storeName, state: j.state, percent: j.percent }));
  if (jobs.length > 0 && info.state !== 'error') info.state = 'syncing';
  else if (jobs.length === 0 && info.state === 'syncing')
    info.state = info.limited.length ? 'limited' : info.problems ? 'problems' : 'idle';
  return info;
}
