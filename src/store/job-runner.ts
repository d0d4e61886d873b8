import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createError, type ErrorCode, KorttyError } from '../errors.js';
import { korttyHome } from '../storage/paths.js';
import type { Review } from '../types.js';
import type { SyncResult } from './index-job.js';
import type { FromChild, JobSpec, ToChild } from './job-protocol.js';
import type { JobProgress } from './store-types.js';

// UI-side handle of a job running in a child process (src/store/job-child.ts).

export interface JobHandle {
  /** Cancels before activation; after activation the job completes. */
  cancel(): void;
  /** Answers the review step. */
  confirm(ok: boolean): void;
  readonly done: Promise<SyncResult>;
  readonly pid: number | undefined;
}

export interface JobHandlers {
  onProgress?: (p: JobProgress) => void;
  /** Called with the scan previews; answer with handle.confirm(). Absent = auto-confirm. */
  onReview?: (reviews: Map<string, Review>) => void;
}

const CHILD = fileURLToPath(new URL('./job-child.js', import.meta.url));

export function startJob(spec: JobSpec, handlers: JobHandlers = {}, home = korttyHome()): JobHandle {
  const child = fork(CHILD, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, KORTTY_HOME: home },
  });
  const send = (m: ToChild) => {
    if (child.connected) child.send(m);
  };
  let settled = false;
  const done = new Promise<SyncResult>((resolve, reject) => {
    child.on('message', (m: FromChild) => {
      if (m.type === 'progress') handlers.onProgress?.(m.progress);
      else if (m.type === 'review') handlers.onReview?.(new Map(m.reviews));
      else if (m.type === 'done') {
        settled = true;
        resolve({ ...m.result, reviews: new Map(m.result.reviews) });
      } else if (m.type === 'error') {
        settled = true;
        reject(
          m.code ? new KorttyError(m.code as ErrorCode, {}, undefined, m.message) : new Error(m.message),
        );
      }
    });
    child.on('exit', (code, signal) => {
      if (!settled)
        reject(
          createError('IO_FAILED', { path: 'job', op: 'job process', reason: `exited (${signal ?? code})` }),
        );
    });
  });
  send({ type: 'start', spec, home, review: Boolean(handlers.onReview) });
  return {
    cancel: () => send({ type: 'cancel' }),
    confirm: (ok) => send({ type: 'confirm', ok }),
    done,
    pid: child.pid,
  };
}
