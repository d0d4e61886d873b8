import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createError } from '../errors.js';

// One job per store across processes. The lock is a directory (mkdir is atomic) holding
// owner.json; the holder touches the directory every heartbeat. A lock whose owner process is
// gone (same host) or whose heartbeat is older than `staleMs` may be taken over. Takeover itself
// is serialised by a second mkdir (`<lock>.takeover`) so two contenders never both break a lock.
// Before activating, a holder calls `assertHeld()`: a stalled holder whose lock was taken over
// finds someone else's nonce and must not activate.

export interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  job: string;
  startedAt: string;
}

export interface LockOptions {
  staleMs?: number;
  heartbeatMs?: number;
  job?: string;
}

export interface StoreLock {
  readonly owner: LockOwner;
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

export const DEFAULT_STALE_MS = 10_000;

export async function acquireLock(
  lockPath: string,
  label: string,
  opts: LockOptions = {},
): Promise<StoreLock> {
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(50, Math.floor(staleMs / 4));
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    nonce: randomBytes(8).toString('hex'),
    job: opts.job ?? 'job',
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(lockPath, owner)) return held(lockPath, owner, heartbeatMs);
    const current = await readOwner(lockPath);
    if (!(await isStale(lockPath, current, staleMs))) {
      throw createError('STORE_BUSY', { store: label, job: current?.job, pid: current?.pid });
    }
    await takeOver(lockPath, current, staleMs);
  }
  const current = await readOwner(lockPath);
  throw createError('STORE_BUSY', { store: label, job: current?.job, pid: current?.pid });
}

export async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(join(lockPath, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  try {
    await mkdir(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  await writeFile(join(lockPath, 'owner.json'), JSON.stringify(owner));
  return true;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(lockPath: string, owner: LockOwner | undefined, staleMs: number): Promise<boolean> {
  let mtime: number;
  try {
    mtime = (await stat(lockPath)).mtimeMs;
  } catch {
    return true; // vanished: retry creation
  }
  if (owner && owner.host === hostname() && !processAlive(owner.pid)) return true;
  // owner.json may be missing for a moment right after mkdir; only the heartbeat age decides then.
  return Date.now() - mtime > staleMs;
}

async function takeOver(lockPath: string, seen: LockOwner | undefined, staleMs: number): Promise<void> {
  const guard = `${lockPath}.takeover`;
  try {
    await mkdir(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another contender is taking over; a guard left by a crashed contender expires too.
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > staleMs) await rm(guard, { recursive: true, force: true });
    return;
  }
  try {
    const now = await readOwner(lockPath);
    // Re-check under the guard: only break the lock we judged stale.
    if (now?.nonce === seen?.nonce && (await isStale(lockPath, now, staleMs))) {
      const grave = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
      await rename(lockPath, grave).catch(() => {});
      await rm(grave, { recursive: true, force: true });
    }
  } finally {
    await rm(guard, { recursive: true, force: true });
  }
}

function held(lockPath: string, owner: LockOwner, heartbeatMs: number): StoreLock {
  let released = false;
  const timer = setInterval(() => {
    const t = new Date();
    utimes(lockPath, t, t).catch(() => {});
  }, heartbeatMs);
  timer.unref();
  return {
    owner,
    async assertHeld() {
      const now = await readOwner(lockPath);
      if (released || now?.nonce !== owner.nonce) {
        throw createError('STORE_BUSY', {
          store: lockPath,
          job: 'lost lock: another job took over',
          pid: now?.pid,
        });
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      const now = await readOwner(lockPath);
      if (now?.nonce === owner.nonce) await rm(lockPath, { recursive: true, force: true });
    },
  };
}
