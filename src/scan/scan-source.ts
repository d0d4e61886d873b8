import { resolve } from 'node:path';
import { createError } from '../errors.js';
import type { PreviewBounds, Review, SourceOptions } from '../types.js';
import { createBoundTracker } from './bounds.js';
import { createScratch } from './read-file.js';
import { buildReview } from './review.js';
import { resolveBounds, resolveSourceOptions } from './rules.js';
import { type ScanProgress, type WalkContext, type WalkResult, walkFile, walkFolder } from './walk.js';

// Entry point of the scan stage: a dry run that reads (never writes) the source and returns the
// review table. Option errors are raised before any file is touched.

export type { ScanProgress } from './walk.js';
export { detectSourceKind } from './walk.js';

export interface SourceToScan {
  root: string;
  kind: 'file' | 'folder';
  options?: Partial<SourceOptions>;
  /** Complete-file sha256 by absolute path from the last indexing of this source. */
  previous?: ReadonlyMap<string, string>;
}

export interface ScanControls {
  bounds?: Partial<PreviewBounds>;
  signal?: AbortSignal;
  onProgress?: (p: ScanProgress) => void;
}

export type ScanSourceInput = SourceToScan & ScanControls;

export async function scanSource(input: ScanSourceInput): Promise<Review> {
  const { bounds, signal, onProgress, ...source } = input;
  const [review] = await scanSources([source], { bounds, signal, onProgress });
  return review!;
}

/**
 * One preview over several roots: the preview bounds apply to all of them together. Once a bound
 * stops the preview, later roots are not scanned; their reviews are empty and carry the stop.
 */
export async function scanSources(
  sources: readonly SourceToScan[],
  controls: ScanControls = {},
): Promise<Review[]> {
  const bounds = resolveBounds(controls.bounds);
  const prepared = sources.map((s) => {
    if (s.kind !== 'file' && s.kind !== 'folder') {
      throw createError('INVALID_ARGUMENT', {
        name: 'kind',
        reason: `expected file or folder, got ${String(s.kind)}`,
      });
    }
    return { ...s, root: resolve(s.root), options: resolveSourceOptions(s.options) };
  });
  const ctx: WalkContext = {
    tracker: createBoundTracker(bounds),
    scratch: createScratch(),
    signal: controls.signal,
    onProgress: controls.onProgress,
    lastYield: performance.now(),
  };
  if (ctx.signal?.aborted) throw createError('SCAN_CANCELLED');
  const reviews: Review[] = [];
  for (const s of prepared) {
    const stop = ctx.tracker.stop;
    if (stop) {
      const message = `not scanned: ${stop.message}`;
      reviews.push(
        buildReview({
          root: s.root,
          entries: [],
          previous: s.previous,
          stop: { ...stop, message },
          stoppedAt: [],
        }),
      );
      continue;
    }
    const walked: WalkResult =
      s.kind === 'folder' ? await walkFolder(s.root, s.options, ctx) : await walkFile(s.root, s.options, ctx);
    reviews.push(
      buildReview({
        root: s.root,
        entries: walked.entries,
        previous: s.previous,
        stop: ctx.tracker.stop,
        stoppedAt: ctx.tracker.stop ? (walked.stoppedAt ?? []) : null,
        dirIds: walked.dirIds,
      }),
    );
  }
  const t = ctx.tracker;
  ctx.onProgress?.({ visited: t.visited, accepted: t.accepted, bytes: t.acceptedBytes });
  return reviews;
}
