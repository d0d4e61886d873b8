import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FromWorker, WorkerFailure, WorkerTask, WorkerValue } from './worker-protocol.js';

// Extraction child processes (adapter). HTML and .docx conversions share one reused child, so
// indexing a thousand small HTML files costs one process start, not a thousand; a PDF gets a
// fresh child of its own (pdf2json keeps state between documents and is the slowest parser).
// Every conversion runs under three caps: wall-clock time, the V8 heap (--max-old-space-size)
// and resident memory (polled from /proc, which also covers buffers outside the heap). A child
// that exceeds one is killed, as is one that failed a document; the next conversion starts a
// fresh child. An idle child holds no reference on this process's event loop and exits after a
// few idle seconds or when this process goes away (its IPC channel closes).

// dist/src/extract/worker-pool.js and dist/src/extract/extract-child.js sit side by side after tsc.
const CHILD = fileURLToPath(new URL('./extract-child.js', import.meta.url));
const STDERR_TAIL = 8192;
const POLL_MS = 50;
const IDLE_MS = 5_000;
/** A reused child that has grown this large (fragmented heap, caches) is replaced. */
const RECYCLE_RSS_MB = 384;
const RECYCLE_JOBS = 2_000;

export interface WorkerCaps {
  timeoutMs: number;
  heapMb: number;
  rssMb: number;
}

/** How a child that gave no answer ended. */
export interface WorkerDeath {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Tail of the child's stderr (V8 prints its out-of-memory report there). */
  stderr: string;
  timedOut: boolean;
  rssExceeded: boolean;
}

export type WorkerOutcome = { peakRssMb: number; pid: number | undefined } & (
  | { t: 'ok'; value: WorkerValue }
  | { t: 'failed'; failure: WorkerFailure }
  | { t: 'died'; death: WorkerDeath }
);

export class WorkerCancelled extends Error {}
export class WorkerStartFailed extends Error {}

class Worker {
  readonly child: ChildProcess;
  readonly closed: Promise<void>;
  stderr = '';
  alive = true;
  jobs = 0;

  constructor(readonly heapMb: number) {
    this.child = fork(CHILD, [], {
      execArgv: [`--max-old-space-size=${heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, PDF2JSON_DISABLE_LOGS: '1' },
      // Structured clone: a document's bytes cross as one binary copy, not a JSON array of numbers.
      serialization: 'advanced',
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-STDERR_TAIL);
    });
    this.closed = new Promise((resolve) => {
      this.child.once('close', () => {
        this.alive = false;
        resolve();
      });
    });
    // A spawn failure also ends in 'close'; runOn reports it.
    this.child.on('error', () => {});
  }

  hold(on: boolean): void {
    const handles = [this.child, this.child.channel, this.child.stderr] as (
      | { ref?: () => void; unref?: () => void }
      | null
      | undefined
    )[];
    for (const h of handles) (on ? h?.ref : h?.unref)?.call(h);
  }

  kill(): void {
    if (this.alive && this.child.exitCode === null && this.child.signalCode === null)
      this.child.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    this.hold(true); // an idle child's handles are unref'd: waiting for its exit must keep us alive
    this.kill();
    await this.closed;
  }
}

let seq = 0;

/** Resident and peak resident memory of a process in KiB (Linux; null elsewhere or when gone). */
function memoryKb(pid: number | undefined): { rss: number; hwm: number } | null {
  if (pid === undefined) return null;
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+)/m.exec(s);
    const hwm = /^VmHWM:\s+(\d+)/m.exec(s);
    return rss ? { rss: Number(rss[1]), hwm: hwm ? Number(hwm[1]) : Number(rss[1]) } : null;
  } catch {
    return null;
  }
}

function runOn(w: Worker, task: WorkerTask, caps: WorkerCaps, signal?: AbortSignal): Promise<WorkerOutcome> {
  return new Promise<WorkerOutcome>((resolve, reject) => {
    const id = ++seq;
    const pid = w.child.pid;
    let peakKb = 0;
    let timedOut = false;
    let rssExceeded = false;
    let cancelled = false;
    let startError: Error | undefined;
    let settled = false;
    const peak = () => Math.round(peakKb / 1024);
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      signal?.removeEventListener('abort', onAbort);
      w.child.off('message', onMessage);
      w.child.off('error', onError);
      w.child.off('close', onClose);
      fn();
    };
    const onMessage = (m: FromWorker) => {
      if (m.id !== id) return;
      peakKb = Math.max(peakKb, m.maxRssKb);
      done(() =>
        resolve(
          m.ok
            ? { t: 'ok', value: m.value, peakRssMb: peak(), pid }
            : { t: 'failed', failure: m.failure, peakRssMb: peak(), pid },
        ),
      );
    };
    const onError = (err: Error) => {
      startError = err;
      w.kill();
    };
    const onAbort = () => {
      cancelled = true;
      w.kill();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      w.kill();
    }, caps.timeoutMs);
    const poll = setInterval(() => {
      const m = memoryKb(pid);
      if (!m) return;
      peakKb = Math.max(peakKb, m.hwm);
      if (m.rss > caps.rssMb * 1024) {
        rssExceeded = true;
        w.kill();
      }
    }, POLL_MS);
    w.child.on('message', onMessage);
    w.child.on('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    // The outcome of a child that dies is known once it is gone (and its stderr is complete).
    const onClose = () =>
      done(() => {
        if (cancelled) reject(new WorkerCancelled());
        else if (startError) reject(new WorkerStartFailed(startError.message));
        else
          resolve({
            t: 'died',
            death: {
              code: w.child.exitCode,
              signal: w.child.signalCode,
              stderr: w.stderr,
              timedOut,
              rssExceeded,
            },
            peakRssMb: peak(),
            pid,
          });
      });
    w.child.on('close', onClose);
    if (signal?.aborted) return onAbort();
    if (!w.child.connected) return; // spawn failed: 'error' and 'close' follow
    w.child.send({ id, task }, (err) => {
      if (err && !settled) w.kill();
    });
  });
}

// ---- the reused child for HTML and .docx: one conversion at a time, in arrival order ----------

let pooled: Worker | null = null;
let busy = false;
const waiting: { go: () => void; signal?: AbortSignal; cancel: () => void }[] = [];
let idleTimer: NodeJS.Timeout | undefined;

function acquire(signal?: AbortSignal): Promise<void> {
  if (!busy) {
    busy = true;
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const entry = {
      signal,
      go: () => {
        signal?.removeEventListener('abort', entry.cancel);
        resolve();
      },
      cancel: () => {
        const i = waiting.indexOf(entry);
        if (i >= 0) waiting.splice(i, 1);
        reject(new WorkerCancelled());
      },
    };
    signal?.addEventListener('abort', entry.cancel, { once: true });
    waiting.push(entry);
  });
}

function release(): void {
  const next = waiting.shift();
  if (next) {
    next.go();
    return;
  }
  busy = false;
  if (pooled) {
    const w = pooled;
    w.hold(false);
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (pooled === w && !busy) {
        pooled = null;
        w.kill();
      }
    }, IDLE_MS);
    idleTimer.unref();
  }
}

export interface RunOptions {
  caps: WorkerCaps;
  signal?: AbortSignal;
  /** A fresh child for this one conversion, stopped afterwards (PDFs). */
  dedicated?: boolean;
  /** Called with the child's pid when the conversion is handed to it. */
  onStart?: (pid: number | undefined) => void;
}

/** Runs one conversion; rejects only with WorkerCancelled or WorkerStartFailed. */
export async function runInWorker(task: WorkerTask, opts: RunOptions): Promise<WorkerOutcome> {
  if (opts.signal?.aborted) throw new WorkerCancelled();
  if (opts.dedicated) {
    const w = start(opts.caps.heapMb);
    opts.onStart?.(w.child.pid);
    try {
      return await runOn(w, task, opts.caps, opts.signal);
    } finally {
      await w.stop(); // no parser process outlives the call
    }
  }
  await acquire(opts.signal);
  try {
    clearTimeout(idleTimer);
    if (!pooled?.alive || pooled.heapMb !== opts.caps.heapMb) {
      await pooled?.stop();
      pooled = start(opts.caps.heapMb);
    }
    const w = pooled;
    w.hold(true);
    opts.onStart?.(w.child.pid);
    let out: WorkerOutcome;
    try {
      out = await runOn(w, task, opts.caps, opts.signal);
    } catch (err) {
      if (pooled === w) pooled = null;
      await w.stop();
      throw err;
    }
    w.jobs++;
    // A child that failed a document may be in any state; one that grew large is replaced.
    if (out.t !== 'ok' || out.peakRssMb > RECYCLE_RSS_MB || w.jobs >= RECYCLE_JOBS) {
      if (pooled === w) pooled = null;
      await w.stop();
    }
    return out;
  } finally {
    release();
  }
}

function start(heapMb: number): Worker {
  try {
    return new Worker(heapMb);
  } catch (err) {
    throw new WorkerStartFailed((err as Error).message);
  }
}

/** Stops the reused child (tests and benchmarks; it also stops by itself when idle). */
export async function stopExtractWorkers(): Promise<void> {
  clearTimeout(idleTimer);
  const w = pooled;
  pooled = null;
  await w?.stop();
}

/** Pid of the reused child, if one is running (tests). */
export function pooledWorkerPid(): number | undefined {
  return pooled?.alive ? pooled.child.pid : undefined;
}
