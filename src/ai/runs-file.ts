// Appends and reads run records (format and retention: src/ai/runs.ts).
//
// Concurrency and durability: each record is ONE write(2) of a complete line on a file opened
// with O_APPEND, then fsync. On Linux local filesystems a write to a regular file holds the
// inode lock, so concurrent appenders (several `kortty-rag ask` processes, the MCP server) never
// interleave bytes, whatever the line length (PIPE_BUF only concerns pipes); no lock file is needed.
// NFS does not honour O_APPEND atomically: keep KORTTY_HOME local. A crash mid-write can leave
// a torn last line; the reader skips it and resynchronises on the next record. A new file also
// gets its directory fsynced so the file itself survives a power cut.
//
// Rotation never renames: a full file simply stops being chosen and the next part is created with
// O_APPEND|O_CREAT, so a writer that chose the old part a moment earlier still lands its line
// whole, and a crash at any point leaves every file readable. Retention deletes only files older
// than the newest ones (runs.ts, expiredRunFiles), when a new file is created.
//
// Reading streams each file line by line and keeps only the newest N lines, so a log of any
// size is listed in flat memory; a line over RUN_LINE_MAX_BYTES is reported, never held.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { createError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import { runsDir } from '../storage/paths.js';
import {
  type DamagedLine,
  expiredRunFiles,
  parseRunLine,
  pickRunFile,
  RUN_LINE_MAX_BYTES,
  type RunRecord,
  runDay,
  runFiles,
  serializeRun,
} from './runs.js';

export function newRunId(time: Date = new Date()): string {
  return `${time.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** Append one record; returns the log file's path. */
export async function appendRun(record: RunRecord, dir: string = runsDir()): Promise<string> {
  let path = dir;
  const line = Buffer.from(serializeRun(record), 'utf8');
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    path = join(dir, chooseFile(dir, record));
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
    if (created) {
      await syncDir(dir);
      pruneRunFiles(dir);
    }
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
  let path = dir;
  const line = Buffer.from(serializeRun(record), 'utf8');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    path = join(dir, chooseFile(dir, record));
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
      pruneRunFiles(dir);
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
  const files = runFiles(names).reverse();
  const chunks: RunRecord[][] = [];
  const damaged: DamagedLine[] = [];
  let count = 0;
  for (const f of files) {
    if (count >= last) break;
    const path = join(dir, f.name);
    const records: RunRecord[] = [];
    let lines: LogLine[];
    try {
      lines = Number.isFinite(last) ? await newestLines(path, last - count) : await allLines(path);
    } catch (err) {
      // Removed by retention between the listing and the read.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw createError('IO_FAILED', { path, op: 'read run log', reason: errReason(err) }, err);
    }
    for (const l of lines) {
      if (l.text === undefined)
        damaged.push({ file: path, ...l.at, reason: `line longer than ${RUN_LINE_MAX_BYTES} bytes` });
      else parseRunLine(l.text, path, l.at, records, damaged);
    }
    chunks.unshift(records);
    count += records.length;
  }
  const all = chunks.flat();
  return { records: Number.isFinite(last) ? all.slice(Math.max(0, all.length - last)) : all, damaged };
}

interface LogLine {
  at: { line: number } | { offset: number };
  /** undefined: the line was longer than RUN_LINE_MAX_BYTES and was not kept. */
  text?: string;
}

/** Gathers one line from pieces, dropping it (but remembering it was there) past the cap. */
function lineBuilder() {
  let parts: Buffer[] = [];
  let bytes = 0;
  let tooLong = false;
  return {
    add(b: Buffer): void {
      if (tooLong || b.length === 0) return;
      bytes += b.length;
      if (bytes > RUN_LINE_MAX_BYTES) {
        tooLong = true;
        parts = [];
      } else parts.push(Buffer.from(b)); // a copy: a kept line never pins a whole read buffer
    },
    /** The finished line (pieces in reverse order when read backwards), or undefined when blank. */
    take(at: LogLine['at'], reversed: boolean): LogLine | undefined {
      let out: LogLine | undefined;
      if (tooLong) out = { at };
      else if (bytes > 0) {
        const text = Buffer.concat(reversed ? parts.reverse() : parts).toString('utf8');
        if (text.trim() !== '') out = { at, text };
      }
      parts = [];
      bytes = 0;
      tooLong = false;
      return out;
    },
    get pending(): boolean {
      return bytes > 0 || tooLong;
    },
  };
}

/** Every non-empty line of a file with its number, read as a stream. */
async function allLines(path: string): Promise<LogLine[]> {
  const out: LogLine[] = [];
  const line = lineBuilder();
  let no = 0;
  const end = () => {
    const l = line.take({ line: ++no }, false);
    if (l) out.push(l);
  };
  for await (const chunk of fs.createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    const buf = chunk as Buffer;
    let pos = 0;
    for (let nl = buf.indexOf(10, pos); nl >= 0; nl = buf.indexOf(10, pos)) {
      line.add(buf.subarray(pos, nl));
      end();
      pos = nl + 1;
    }
    line.add(buf.subarray(pos));
  }
  if (line.pending) end();
  return out;
}

/**
 * The newest `keep` non-empty lines of a file with their byte offsets, read backwards from its end
 * in blocks: time and memory depend on those lines, not on the file's size.
 */
async function newestLines(path: string, keep: number): Promise<LogLine[]> {
  const out: LogLine[] = [];
  const line = lineBuilder();
  const fh = await fsp.open(path, 'r');
  try {
    let pos = (await fh.stat()).size;
    const block = Buffer.alloc(256 * 1024);
    const end = (offset: number) => {
      const l = line.take({ offset }, true);
      if (l) out.push(l);
    };
    while (pos > 0 && out.length < keep) {
      const n = Math.min(block.length, pos);
      pos -= n;
      const { bytesRead } = await fh.read(block, 0, n, pos);
      const buf = block.subarray(0, bytesRead);
      let stop = buf.length;
      while (stop > 0 && out.length < keep) {
        const nl = buf.lastIndexOf(10, stop - 1);
        if (nl < 0) break;
        line.add(buf.subarray(nl + 1, stop));
        end(pos + nl + 1);
        stop = nl;
      }
      if (out.length >= keep) break;
      line.add(buf.subarray(0, stop));
    }
    if (pos === 0 && out.length < keep && line.pending) end(0);
  } finally {
    await fh.close();
  }
  return out.reverse();
}

/** The file a record goes to now (runs.ts, pickRunFile). */
function chooseFile(dir: string, record: RunRecord): string {
  const files = runFiles(fs.readdirSync(dir));
  return pickRunFile(files, runDay(new Date(record.time)), (name) => {
    try {
      return fs.statSync(join(dir, name)).size;
    } catch {
      return 0; // removed meanwhile: recreated by the append
    }
  });
}

/** Retention, after a new file was created: best effort (another writer may prune the same files). */
function pruneRunFiles(dir: string): void {
  try {
    for (const name of expiredRunFiles(runFiles(fs.readdirSync(dir))))
      fs.rmSync(join(dir, name), { force: true });
  } catch {
    // Retention is housekeeping: the record is written; the next new file tries again.
  }
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
