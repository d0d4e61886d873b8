import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { createError } from '../errors.js';
import { type FsEnv, nodeFsEnv } from './fs-env.js';
import { TEMP_PREFIX, tempPathFor } from './paths.js';

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
export async function atomicWrite(livePath: string, data: Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const env = opts.env ?? nodeFsEnv;
  const dir = dirname(livePath);
  const tmp = tempPathFor(livePath, randomBytes(6).toString('hex'));
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
      throw createError('FSYNC_FAILED', { path: dir, reason: errReason(err) }, err);
    }
    await opts.checkpoint?.('dir-synced');
  } catch (err) {
    if (!renamed) await env.unlink(tmp).catch(() => {});
    throw err;
  }
}

/** Remove temp files a crash left next to live files in `dir`. */
export async function removeStaleTemps(dir: string, env: FsEnv = nodeFsEnv): Promise<string[]> {
  let names: string[];
  try {
    names = await env.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    await env.unlink(join(dir, name)).catch(() => {});
    removed.push(basename(name));
  }
  return removed;
}

export function errReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}${e.message ? `: ${e.message.replace(/^\w+: /, '')}` : ''}` : String(e?.message ?? err);
}
