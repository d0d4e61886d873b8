import type { PreviewBound, PreviewBounds } from '../types.js';
import { describeBytes, formatCount } from './units.js';

// The three limits of one preview (spec: 5,000 visited files, 500 MiB of accepted source data,
// 100 MiB of extracted characters). One tracker is shared by every root of a preview. Hitting a
// limit stops the preview and says where and why; nothing is dropped silently.

export interface BoundTracker {
  readonly bounds: PreviewBounds;
  /** Rows produced (every visited entry that is not a directory we entered). */
  visited: number;
  accepted: number;
  acceptedBytes: number;
  chars: number;
  stop: { bound: PreviewBound; message: string } | null;
}

export function createBoundTracker(bounds: PreviewBounds): BoundTracker {
  return { bounds, visited: 0, accepted: 0, acceptedBytes: 0, chars: 0, stop: null };
}

/** Count one visited entry; false (and `stop` set) when the file limit is already used up. */
export function admitVisit(t: BoundTracker, displayPath: string): boolean {
  if (t.stop) return false;
  if (t.visited >= t.bounds.maxFiles) {
    t.stop = {
      bound: 'files',
      message:
        `preview stopped before ${displayPath}: ${formatCount(t.bounds.maxFiles)} files visited, ` +
        'the limit for one preview; narrow the source (exclude globs, subfolders) to review the rest',
    };
    return false;
  }
  t.visited++;
  return true;
}

/** May a file of `size` bytes be accepted? False (and `stop` set) when it would pass the limit. */
export function admitBytes(t: BoundTracker, size: number, displayPath: string): boolean {
  if (t.acceptedBytes + size <= t.bounds.maxAcceptedBytes) return true;
  t.stop = {
    bound: 'bytes',
    message:
      `preview stopped at ${displayPath} (${describeBytes(size)}): accepting it would pass ` +
      `${describeBytes(t.bounds.maxAcceptedBytes)} of accepted source data, the limit for one preview`,
  };
  return false;
}

export function admitChars(t: BoundTracker, chars: number, displayPath: string): boolean {
  if (t.chars + chars <= t.bounds.maxExtractedChars) return true;
  t.stop = {
    bound: 'chars',
    message:
      `preview stopped at ${displayPath} (${formatCount(chars)} characters): accepting it would pass ` +
      `${formatCount(t.bounds.maxExtractedChars)} extracted characters, the limit for one preview`,
  };
  return false;
}

export function recordAccepted(t: BoundTracker, bytes: number, chars: number): void {
  t.accepted++;
  t.acceptedBytes += bytes;
  t.chars += chars;
}
