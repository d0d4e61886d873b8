import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InstallProgress } from '../app/models.js';

// UI-side handle of a model task running in model-task-child.ts.

export type ModelTaskSpec = { op: 'starter' } | { op: 'install'; id: string } | { op: 'local'; path: string };

export type ModelTaskFromChild =
  | { type: 'progress'; progress: InstallProgress }
  | { type: 'done'; id: string }
  | { type: 'error'; code?: string; message: string; cancelled: boolean };

export interface ModelTaskHandle {
  cancel(): void;
  /** Resolves with the installed model id; rejects with { message, cancelled }. */
  readonly done: Promise<string>;
  readonly pid: number | undefined;
}

export class ModelTaskError extends Error {
  constructor(
    message: string,
    readonly cancelled: boolean,
  ) {
    super(message);
  }
}

const CHILD = fileURLToPath(new URL('./model-task-child.js', import.meta.url));

export function startModelTask(
  spec: ModelTaskSpec,
  home: string,
  onProgress: (p: InstallProgress) => void,
): ModelTaskHandle {
  const child = fork(CHILD, [], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, KORTTY_HOME: home },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  let settled = false;
  let cancelled = false;
  const done = new Promise<string>((resolve, reject) => {
    child.on('message', (m: ModelTaskFromChild) => {
      if (m.type === 'progress') onProgress(m.progress);
      else if (m.type === 'done') {
        settled = true;
        resolve(m.id);
      } else {
        settled = true;
        reject(new ModelTaskError(m.message, m.cancelled));
      }
    });
    child.on('exit', (code, sig) => {
      if (!settled)
        reject(
          new ModelTaskError(
            cancelled ? 'cancelled' : `model task exited (${sig ?? code}) ${stderr.trim()}`,
            cancelled,
          ),
        );
    });
  });
  child.send({ type: 'start', spec, home });
  return {
    cancel() {
      cancelled = true;
      if (child.connected) child.send({ type: 'cancel' });
    },
    done,
    pid: child.pid,
  };
}
