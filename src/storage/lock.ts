import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { createError } from '../errors.js';
import { readJsonFile } from '../storage/json-file.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { pidAlive } from '../util/pid-alive.js';

// One job per store across processes. The lock is a directory holding owner.json, built under a
// private name and renamed into place (rename onto an existing lock fails), so a lock never
// exists without its owner: a crash at any instant leaves no lock or one whose owner can be
// checked. The holder touches the directory every heartbeat. A lock whose owner process is
// gone (same host) or whose heartbeat is older than `staleMs` may be taken over. Takeover itself
// is serialised by a second mkdir (`<lock>.takeover`) so two contenders never both break a lock.
// Before activating, a holder calls `assertHeld()`: a stalled holder whose lock was taken over
// finds someone else's nonce and must not activate.
//
// A heartbeat in the future (more than FUTURE_SLACK_MS ahead of this clock: a clock that was set
// back, a copied or restored directory, a holder on another host with a skewed clock) proves
// nothing about the holder's age, and waiting for it to age could take years. Such a lock is
// watched instead: if its heartbeat does not move for `staleMs` (a live holder touches it every
// heartbeatMs, a quarter of that) it is stale, whoever its owner record names (damaged, another
// host, or this host). A holder that is alive keeps touching it and keeps its lock.

const lockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  nonce: z.string(),
  job: z.string(),
  startedAt: z.string(),
});
export type LockOwner = z.infer<typeof lockOwnerSchema>;

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

/** Timestamps this far ahead of our clock are a clock or copy artefact, not a fresh heartbeat. */
export const FUTURE_SLACK_MS = 2_000;

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
    if (await tryCreate(lockPath, owner)) {
      await sweepLeftovers(lockPath);
      return held(lockPath, label, owner, { heartbeatMs, staleMs });
    }
    const current = await readOwner(lockPath);
    const judged = await judgeLock(lockPath, current, staleMs);
    if (!judged.stale) {
      throw createError('STORE_BUSY', { store: label, job: current?.job, pid: current?.pid });
    }
    await takeOver(lockPath, current, staleMs, judged.silentMtime);
  }
  const current = await readOwner(lockPath);
  throw createError('STORE_BUSY', { store: label, job: current?.job, pid: current?.pid });
}

export async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    return await readJsonFile(join(lockPath, 'owner.json'), lockOwnerSchema, 'lock owner file');
  } catch {
    // Unreadable or damaged: an owner we cannot name; the lock's age alone decides if it is stale.
    return undefined;
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  const prepared = `${lockPath}.new-${owner.pid}-${owner.nonce}`;
  await mkdir(prepared, { mode: PRIVATE_DIR_MODE });
  try {
    await writeFile(join(prepared, 'owner.json'), JSON.stringify(owner), { mode: PRIVATE_FILE_MODE });
    await rename(prepared, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false; // held by someone else
    throw err;
  } finally {
    await rm(prepared, { recursive: true, force: true }); // gone already after the rename
  }
}

/** Remove what crashed processes left next to the lock: prepared locks and takeover graves. */
async function sweepLeftovers(lockPath: string): Promise<void> {
  const base = basename(lockPath);
  const names = await readdir(dirname(lockPath)).catch(() => [] as string[]);
  for (const name of names) {
    const prepared = name.startsWith(`${base}.new-`) ? /^\.new-(\d+)-/.exec(name.slice(base.length)) : null;
    const grave = name.startsWith(`${base}.stale-`);
    // A prepared lock of a live process is about to be renamed into place (or removed).
    if (grave || (prepared && !pidAlive(Number(prepared[1])))) {
      await rm(join(dirname(lockPath), name), { recursive: true, force: true });
    }
  }
}

/**
 * Whether a lock may be taken over. `silentMtime`: a future heartbeat that was watched for
 * `staleMs` without moving (takeOver breaks the lock only if it is still that one).
 */
async function judgeLock(
  lockPath: string,
  owner: LockOwner | undefined,
  staleMs: number,
): Promise<{ stale: boolean; silentMtime?: number }> {
  let mtime: number;
  try {
    mtime = (await stat(lockPath)).mtimeMs;
  } catch {
    return { stale: true }; // vanished: retry creation
  }
  if (owner && owner.host === hostname() && !pidAlive(owner.pid)) return { stale: true };
  if (mtime - Date.now() > FUTURE_SLACK_MS) {
    return (await heartbeatMoves(lockPath, mtime, staleMs))
      ? { stale: false }
      : { stale: true, silentMtime: mtime };
  }
  // A lock without owner.json (left by an older version, or damaged) or of another host is judged
  // by its heartbeat age alone.
  return { stale: Date.now() - mtime > staleMs };
}

/** Watches a lock's heartbeat for `staleMs`: true as soon as it moves (or the lock goes away). */
async function heartbeatMoves(lockPath: string, mtime: number, staleMs: number): Promise<boolean> {
  const until = Date.now() + staleMs;
  const step = Math.max(20, Math.min(250, Math.floor(staleMs / 8)));
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, step));
    const now = await stat(lockPath).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (now === undefined) return false; // gone: released; creation is retried
    if (now !== mtime) return true;
  }
  return false;
}

async function takeOver(
  lockPath: string,
  seen: LockOwner | undefined,
  staleMs: number,
  silentMtime?: number,
): Promise<void> {
  const guard = `${lockPath}.takeover`;
  try {
    await mkdir(guard, { mode: PRIVATE_DIR_MODE });
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
    // Re-check under the guard: only break the lock we judged stale, and only if it still exists
    // (a lock that vanished was released: breaking "it" would break whoever created the next one).
    const now = await readOwner(lockPath);
    if (now?.nonce !== seen?.nonce) return;
    let mtime: number;
    try {
      mtime = (await stat(lockPath)).mtimeMs;
    } catch {
      return;
    }
    const dead = now !== undefined && now.host === hostname() && !pidAlive(now.pid);
    const silent = silentMtime !== undefined && mtime === silentMtime;
    if (!dead && !silent && Date.now() - mtime <= staleMs) return;
    // The directory just judged must still be `now`'s: if it was released and re-created
    // meanwhile, the new lock is not ours to break.
    if ((await readOwner(lockPath))?.nonce !== now?.nonce) return;
    const grave = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
    await rename(lockPath, grave).catch(() => {});
    await rm(grave, { recursive: true, force: true });
  } finally {
    await rm(guard, { recursive: true, force: true });
  }
}

function held(
  lockPath: string,
  label: string,
  owner: LockOwner,
  { heartbeatMs, staleMs }: { heartbeatMs: number; staleMs: number },
): StoreLock {
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
        // Still STORE_BUSY (callers such as the watcher retry on it), but saying what happened.
        throw createError('STORE_BUSY', { store: label, pid: now?.pid, lost: true, staleMs });
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      const now = await readOwner(lockPath);
      if (now?.nonce !== owner.nonce) return;
      // Out of the way in one step: removed in place, the directory would be empty for a moment,
      // and a contender's rename onto an empty directory succeeds (its lock would then be deleted).
      const grave = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
      try {
        await rename(lockPath, grave);
      } catch {
        return; // broken meanwhile (we had stalled): nothing of ours to remove
      }
      await rm(grave, { recursive: true, force: true });
    },
  };
}
