import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createError } from '../errors.js';
import type { BoundTracker } from './bounds.js';
import type { ReadScratch } from './read-file.js';

// Cooperative scheduling of a scan: the walk runs synchronous fs calls (see read-file.ts) and gives
// the event loop a turn every few milliseconds, which is also where progress is reported and
// cancellation is noticed. Checking is cheap enough to do per entry; awaiting is not.

export interface ScanProgress {
  visited: number;
  accepted: number;
  bytes: number;
}

/** Shared by every root of one preview. */
export interface WalkContext {
  tracker: BoundTracker;
  scratch: ReadScratch;
  signal?: AbortSignal;
  onProgress?: (p: ScanProgress) => void;
  /** performance.now() of the last yield to the event loop. */
  lastYield: number;
}

/** Yield at least this often so timers, progress and cancellation stay live. */
const YIELD_MS = 8;

/** Throws SCAN_CANCELLED when aborted; true when it is time to `await pause(ctx)`. */
export function due(ctx: WalkContext): boolean {
  if (ctx.signal?.aborted) throw createError('SCAN_CANCELLED');
  return performance.now() - ctx.lastYield >= YIELD_MS;
}

export async function pause(ctx: WalkContext): Promise<void> {
  reportProgress(ctx);
  await yieldToLoop();
  ctx.lastYield = performance.now();
  if (ctx.signal?.aborted) throw createError('SCAN_CANCELLED');
}

export function reportProgress(ctx: WalkContext): void {
  const t = ctx.tracker;
  ctx.onProgress?.({ visited: t.visited, accepted: t.accepted, bytes: t.acceptedBytes });
}

/** Run a reading generator to its end, yielding to the event loop when due; always closes it. */
export async function finish<T>(
  it: Generator<void, T, void>,
  ctx: WalkContext,
  from?: IteratorResult<void, T>,
): Promise<T> {
  try {
    for (let r = from ?? it.next(); ; r = it.next()) {
      if (r.done) return r.value;
      if (due(ctx)) await pause(ctx);
    }
  } finally {
    it.return(undefined as never); // runs the reader's `finally` (closes the file) when cancelled
  }
}
