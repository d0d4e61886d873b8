import { dirname } from 'node:path';
import type { FsEnv, FsFile } from '../../src/storage/fs-env.js';
import { createNodeFsEnv } from '../../src/storage/fs-env.js';

// A recording, fault-injecting FsEnv (LevelDB's FaultInjectionTestEnv idea) for the reliability
// suite. It wraps the real node env, so every operation really happens on disk, and:
//   - logs every call in order (writes with their bytes), so a power-loss model can replay any
//     prefix of an activation (test/reliability/power-model.ts);
//   - can fail the n-th call with ENOSPC, EIO or EACCES, the way the kernel would report it;
//   - can turn chosen fsyncs into no-ops (the call "returns" but nothing was made durable, and the
//     log does not show it), which is what deleting that fsync from the code would do.

export type FsOpKind =
  | 'create'
  | 'write'
  | 'sync'
  | 'close'
  | 'readFile'
  | 'rename'
  | 'unlink'
  | 'syncDir'
  | 'readdir'
  | 'mkdir'
  | 'exists';

export interface FsOp {
  /** Index among all calls of this env (faults are addressed by it). */
  call: number;
  kind: FsOpKind;
  path: string;
  /** rename target. */
  to?: string;
  /** write: the bytes that reached the file (a partial write on ENOSPC). */
  data?: Buffer;
  /** Set when the call failed (injected or real); the effect then did not happen (or partly, for write). */
  error?: string;
  /** A fsync the wrapper turned into a no-op. */
  dropped?: boolean;
}

export type Errno = 'ENOSPC' | 'EIO' | 'EACCES';
export const ERRNOS: readonly Errno[] = ['ENOSPC', 'EIO', 'EACCES'];

const ERRNO_TEXT: Record<Errno, [number, string]> = {
  ENOSPC: [-28, 'no space left on device'],
  EIO: [-5, 'i/o error'],
  EACCES: [-13, 'permission denied'],
};

/** An error shaped like the one node's fs raises (code, errno, syscall, path). */
export function errnoError(code: Errno, syscall: string, path: string): NodeJS.ErrnoException {
  const [errno, text] = ERRNO_TEXT[code];
  const e = new Error(`${code}: ${text}, ${syscall} '${path}'`) as NodeJS.ErrnoException;
  e.code = code;
  e.errno = errno;
  e.syscall = syscall;
  e.path = path;
  return e;
}

export interface RecordingEnvOptions {
  base?: FsEnv;
  /** Fail this call (by index) with this errno. */
  fault?: { call: number; code: Errno };
  /** Turn the n-th fsync (file sync and directory sync counted together, from 0) into a no-op. */
  dropSync?: number;
}

export interface RecordingEnv extends FsEnv {
  readonly log: FsOp[];
  /** Calls made so far. */
  readonly calls: number;
  /** fsync calls (file and directory) made so far, including dropped ones. */
  readonly syncs: number;
  /** Append a marker to the log (e.g. "the job returned"), seen by the power-loss model. */
  mark(label: string): void;
  readonly marks: { label: string; at: number }[];
  /** Whether the injected fault was reached. */
  readonly faultHit: boolean;
}

export function createRecordingEnv(opts: RecordingEnvOptions = {}): RecordingEnv {
  const base = opts.base ?? createNodeFsEnv();
  const log: FsOp[] = [];
  const marks: { label: string; at: number }[] = [];
  let calls = 0;
  let syncs = 0;
  let faultHit = false;

  /** Reserve a call index; returns the injected errno for it, if any. */
  const begin = (): { call: number; fault?: Errno } => {
    const call = calls++;
    if (opts.fault && opts.fault.call === call) {
      faultHit = true;
      return { call, fault: opts.fault.code };
    }
    return { call };
  };
  const isDropped = (): boolean => syncs++ === opts.dropSync;

  const env: RecordingEnv = {
    get log() {
      return log;
    },
    get calls() {
      return calls;
    },
    get syncs() {
      return syncs;
    },
    get marks() {
      return marks;
    },
    get faultHit() {
      return faultHit;
    },
    mark(label) {
      marks.push({ label, at: log.length });
    },
    async create(path, mode) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'create', path, error: fault });
        throw errnoError(fault, 'open', path);
      }
      let file: FsFile;
      try {
        file = await base.create(path, mode);
      } catch (err) {
        log.push({ call, kind: 'create', path, error: (err as NodeJS.ErrnoException).code ?? String(err) });
        throw err;
      }
      log.push({ call, kind: 'create', path });
      return wrapFile(path, file);
    },
    async readFile(path) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'readFile', path, error: fault });
        throw errnoError(fault, 'read', path);
      }
      log.push({ call, kind: 'readFile', path });
      return base.readFile(path);
    },
    async rename(from, to) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'rename', path: from, to, error: fault });
        throw errnoError(fault, 'rename', from);
      }
      await base.rename(from, to);
      log.push({ call, kind: 'rename', path: from, to });
    },
    async unlink(path) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'unlink', path, error: fault });
        throw errnoError(fault, 'unlink', path);
      }
      try {
        await base.unlink(path);
      } catch (err) {
        log.push({ call, kind: 'unlink', path, error: (err as NodeJS.ErrnoException).code ?? String(err) });
        throw err;
      }
      log.push({ call, kind: 'unlink', path });
    },
    async syncDir(dir) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'syncDir', path: dir, error: fault });
        isDropped();
        throw errnoError(fault, 'fsync', dir);
      }
      if (isDropped()) {
        log.push({ call, kind: 'syncDir', path: dir, dropped: true });
        return;
      }
      await base.syncDir(dir);
      log.push({ call, kind: 'syncDir', path: dir });
    },
    async readdir(dir) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'readdir', path: dir, error: fault });
        throw errnoError(fault, 'scandir', dir);
      }
      log.push({ call, kind: 'readdir', path: dir });
      return base.readdir(dir);
    },
    async mkdir(dir) {
      const { call, fault } = begin();
      if (fault) {
        log.push({ call, kind: 'mkdir', path: dir, error: fault });
        throw errnoError(fault, 'mkdir', dir);
      }
      // Recursive, like the real env: log every directory it actually creates, top-down.
      const created: string[] = [];
      for (let d = dir; d !== dirname(d) && !(await base.exists(d)); d = dirname(d)) created.unshift(d);
      await base.mkdir(dir);
      for (const d of created) log.push({ call, kind: 'mkdir', path: d });
    },
    async exists(path) {
      const { call, fault } = begin();
      log.push({ call, kind: 'exists', path, ...(fault ? { error: fault } : {}) });
      // The real env answers from lstat and reports any lstat error as "does not exist".
      if (fault) return false;
      return base.exists(path);
    },
  };

  function wrapFile(path: string, file: FsFile): FsFile {
    return {
      async write(data) {
        const { call, fault } = begin();
        if (fault) {
          // A full disk typically accepts part of a write before refusing the rest.
          const part =
            fault === 'ENOSPC' ? Buffer.from(data.subarray(0, Math.floor(data.length / 2))) : Buffer.alloc(0);
          if (part.length > 0) await file.write(part);
          log.push({ call, kind: 'write', path, data: part, error: fault });
          throw errnoError(fault, 'write', path);
        }
        await file.write(data);
        log.push({ call, kind: 'write', path, data: Buffer.from(data) });
      },
      async sync() {
        const { call, fault } = begin();
        if (fault) {
          isDropped();
          log.push({ call, kind: 'sync', path, error: fault });
          throw errnoError(fault, 'fsync', path);
        }
        if (isDropped()) {
          log.push({ call, kind: 'sync', path, dropped: true });
          return;
        }
        await file.sync();
        log.push({ call, kind: 'sync', path });
      },
      async close() {
        const { call, fault } = begin();
        // close(2) releases the descriptor even when it reports an error.
        await file.close();
        if (fault) {
          log.push({ call, kind: 'close', path, error: fault });
          throw errnoError(fault, 'close', path);
        }
        log.push({ call, kind: 'close', path });
      },
    };
  }

  return env;
}

/** Operations that change what a power cut can leave on disk. */
export function isMutation(op: FsOp): boolean {
  return (
    op.kind === 'create' ||
    op.kind === 'write' ||
    op.kind === 'sync' ||
    op.kind === 'rename' ||
    op.kind === 'unlink' ||
    op.kind === 'syncDir'
  );
}
