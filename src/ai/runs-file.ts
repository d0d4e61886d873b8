// Appends and reads run records (format: src/ai/runs.ts).
//
// Concurrency and durability: each record is ONE write(2) of a complete line on a file opened
// with O_APPEND, then fsync. On Linux local filesystems a write to a regular file holds the
// inode lock, so concurrent appenders (several `kortty-rag ask` processes) never interleave
// bytes, whatever the line length (PIPE_BUF only concerns pipes); no lock file is needed.
// NFS does not honour O_APPEND atomically: keep KORTTY_HOME local. A crash mid-write can leave
// a torn last line; the reader skips it and resynchronises on the next record. A new day's
// file also gets its directory fsynced so the file itself survives a power cut.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { createError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import { runsDir } from '../storage/paths.js';
import {
  type DamagedLine,
  parseRunLines,
  RUN_FILE_RE,
  type RunRecord,
  runFileName,
  serializeRun,
} from './runs.js';

export function newRunId(time: Date = new Date()): string {
  return `${time.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** Append one record; returns the log file's path. */
export async function appendRun(record: RunRecord, dir: string = runsDir()): Promise<string> {
  const path = join(dir, runFileName(new Date(record.time)));
  const line = Buffer.from(serializeRun(record), 'utf8');
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const created = !(await exists(path));
    // Runs hold queries and answers: private to the user.
    const fh = await fsp.open(path, 'a', 0o600);
    try {
      const { bytesWritten } = await fh.write(line, 0, line.length);
      if (bytesWritten !== line.length) {
        throw Object.assign(new Error(`short write (${bytesWritten} of ${line.length} bytes)`), {
          code: 'EIO',
        });
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (created) await syncDir(dir);
  } catch (err) {
    throw createError('IO_FAILED', { path, op: 'append run record', reason: errReason(err) }, err);
  }
  return path;
}

/**
 * Append one record with synchronous calls and no fsync; the caller fsyncs later (syncRunLog).
 * For a warm server answering right after an embedding: there, each thread-pool round trip of
 * the async calls costs about a millisecond while the model's threads wind down. Once this
 * returns the line is in the kernel: a killed process loses nothing, only a power cut before
 * the caller's fsync could.
 */
export function appendRunUnsynced(record: RunRecord, dir: string = runsDir()): string {
  const path = join(dir, runFileName(new Date(record.time)));
  const line = Buffer.from(serializeRun(record), 'utf8');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const created = !fs.existsSync(path);
    const fd = fs.openSync(path, 'a', 0o600);
    try {
      const n = fs.writeSync(fd, line, 0, line.length);
      if (n !== line.length)
        throw Object.assign(new Error(`short write (${n} of ${line.length} bytes)`), { code: 'EIO' });
    } finally {
      fs.closeSync(fd);
    }
    if (created) {
      const dfd = fs.openSync(dir, 'r');
      try {
        fs.fsyncSync(dfd);
      } finally {
        fs.closeSync(dfd);
      }
    }
  } catch (err) {
    throw createError('IO_FAILED', { path, op: 'append run record', reason: errReason(err) }, err);
  }
  return path;
}

/** fsync a run log written by appendRunUnsynced. */
export async function syncRunLog(path: string): Promise<void> {
  try {
    const fh = await fsp.open(path, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw createError('IO_FAILED', { path, op: 'fsync run log', reason: errReason(err) }, err);
  }
}

export interface ReadRunsResult {
  /** Oldest first; with `last`, the newest `last` records. */
  records: RunRecord[];
  damaged: DamagedLine[];
}

export async function readRuns(opts: { last?: number; dir?: string } = {}): Promise<ReadRunsResult> {
  const dir = opts.dir ?? runsDir();
  const last = opts.last ?? Number.POSITIVE_INFINITY;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], damaged: [] };
    throw createError('IO_FAILED', { path: dir, op: 'readdir', reason: errReason(err) }, err);
  }
  const files = names
    .filter((n) => RUN_FILE_RE.test(n))
    .sort()
    .reverse();
  const chunks: RunRecord[][] = [];
  const damaged: DamagedLine[] = [];
  let count = 0;
  for (const name of files) {
    if (count >= last) break;
    const path = join(dir, name);
    const parsed = parseRunLines(await fsp.readFile(path, 'utf8'), path);
    chunks.unshift(parsed.records);
    damaged.push(...parsed.damaged);
    count += parsed.records.length;
  }
  const all = chunks.flat();
  return { records: Number.isFinite(last) ? all.slice(Math.max(0, all.length - last)) : all, damaged };
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fsp.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
