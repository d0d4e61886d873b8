import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { createError } from '../errors.js';
import { pidAlive } from '../util/pid-alive.js';
import { type FsEnv, nodeFsEnv } from './fs-env.js';
import { TEMP_PREFIX, tempPathFor } from './paths.js';

export { pidAlive };

export interface AtomicWriteOptions {
  env?: FsEnv;
  mode?: number;
  /** Re-read the synced temp file and check it before it may replace the live file. */
  verify?: (bytes: Buffer) => void;
  /** Called between steps; throwing aborts before the rename (cancellation, kill-point labels). */
  checkpoint?: (step: 'written' | 'fsynced' | 'verified' | 'renamed' | 'dir-synced') => void | Promise<void>;
}

/**
 * Activation order (see src/index/STORAGE.md): write temp in the same directory, fsync it,
 * verify it, rename over the live name, fsync the directory. Any failure before the rename
 * deletes the candidate and leaves the live file byte-identical; nothing is renamed after a
 * failed fsync.
 */
export async function atomicWrite(
  livePath: string,
  data: Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const env = opts.env ?? nodeFsEnv;
  const dir = dirname(livePath);
  const tmp = tempPathFor(livePath, tempNonce());
  let renamed = false;
  try {
    const file = await env.create(tmp, opts.mode);
    try {
      await file.write(data);
      await opts.checkpoint?.('written');
      try {
        await file.sync();
      } catch (err) {
        throw createError('FSYNC_FAILED', { path: tmp, reason: errReason(err) }, err);
      }
    } finally {
      await file.close();
    }
    await opts.checkpoint?.('fsynced');
    if (opts.verify) {
      opts.verify(await env.readFile(tmp));
      await opts.checkpoint?.('verified');
    }
    await env.rename(tmp, livePath);
    renamed = true;
    await opts.checkpoint?.('renamed');
    try {
      await env.syncDir(dir);
    } catch (err) {
      // The rename is done and not undone (LevelDB: never clean up after an error); the caller
      // must not record progress, since the activation may not survive a power loss.
      throw createError('DIR_FSYNC_FAILED', { path: dir, reason: errReason(err) }, err);
    }
    await opts.checkpoint?.('dir-synced');
  } catch (err) {
    if (!renamed) await env.unlink(tmp).catch(() => {});
    throw err;
  }
}

/**
 * A temp-name nonce `<pid>-<random>`: the pid lets `removeStaleTemps` tell a crashed writer's
 * leftovers from a live writer's candidate (another process, or a job in this one, may be
 * writing a snapshot while a reader opens the store).
 */
export function tempNonce(pid: number = process.pid): string {
  return `${pid}-${randomBytes(6).toString('hex')}`;
}

/** The writer pid a temp name carries, or undefined for names without one. */
export function tempOwnerPid(name: string): number | undefined {
  const m = /\.(\d+)-[0-9a-f]+$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Remove temp files a crash left next to live files in `dir`. A temp whose writer pid is still
 * alive (this process included) may be a candidate being written right now and is kept; names
 * without a pid are left over from older writers and removed. Set `all` only when the caller
 * holds the store lock and knows no writer can exist.
 */
export async function removeStaleTemps(
  dir: string,
  env: FsEnv = nodeFsEnv,
  opts: { all?: boolean; isAlive?: (pid: number) => boolean } = {},
): Promise<string[]> {
  const isAlive = opts.isAlive ?? pidAlive;
  let names: string[];
  try {
    names = await env.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const pid = tempOwnerPid(name);
    if (!opts.all && pid !== undefined && isAlive(pid)) continue;
    await env.unlink(join(dir, name)).catch(() => {});
    removed.push(basename(name));
  }
  return removed;
}

export function errReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code
    ? `${e.code}${e.message ? `: ${e.message.replace(/^\w+: /, '')}` : ''}`
    : String(e?.message ?? err);
}
