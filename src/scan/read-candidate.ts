import type * as fs from 'node:fs';
import { createError } from '../errors.js';
import type { FormatInfo } from '../types.js';
import { admitBytes, admitChars, type BoundTracker, recordAccepted } from './bounds.js';
import type { ContentKind } from './content-check.js';
import { fileIdOf } from './dir-handle.js';
import { closeQuiet, type Opened, type ReadOutcome, type ReadScratch, readChecked } from './read-file.js';
import { describeBytes } from './units.js';
import { acceptedEntry, fsErrorEntry, skippedEntry, type WalkEntry } from './walk-entry.js';

// One allowlisted regular file: open (no links, no blocking), size limit, accepted-bytes bound,
// one read pass that checks and hashes, extracted-characters bound. The visit is already counted.

export interface Candidate {
  abs: string;
  /** Opens the file without following a link or blocking (relative to its verified directory). */
  open: () => Opened;
  rel: string;
  format: FormatInfo;
  maxFileBytes: number;
  /** Read files with more than one name (SourceOptions.hardLinks). */
  hardLinks: boolean;
  /** The source root itself: an unreadable root is fatal (spec), not a row. */
  isRoot: boolean;
}

export type CandidateResult = { entry: WalkEntry; stopped: boolean };

/** A generator: it yields between chunks of large files so the walker can yield to the event loop. */
export function* readCandidate(
  c: Candidate,
  tracker: BoundTracker,
  scratch: ReadScratch,
): Generator<void, CandidateResult, void> {
  const { abs, rel } = c;
  const fid = c.format.id;
  let opened: { fd: number; stat: fs.Stats };
  try {
    opened = c.open();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (c.isRoot && (code === 'EACCES' || code === 'EPERM')) {
      throw createError('SOURCE_PERMISSION_DENIED', { path: abs }, err);
    }
    return { entry: fsErrorEntry(abs, rel, fid, 0, err, 'file'), stopped: false };
  }
  const { fd, stat } = opened;
  const skip = (
    reason: Parameters<typeof skippedEntry>[4],
    why: string,
    stopped = false,
    size = stat.size,
  ) => ({
    entry: skippedEntry(abs, rel, fid, size, reason, why),
    stopped,
  });
  try {
    const limit = c.maxFileBytes;
    if (!stat.isFile()) return skip('special-file', 'changed into a special file during the scan; not read');
    // The other names of a hard link cannot be found, so one may lie outside the source: such a
    // file is read only when the user said the source's hard links are theirs to index.
    if (stat.nlink > 1 && !c.hardLinks) {
      return skip(
        'hard-link',
        `a hard link (${stat.nlink} names; the others may lie outside this source); not read (add the source with --hard-links to index it)`,
      );
    }
    if (stat.size > limit) {
      return skip(
        'too-large',
        `${describeBytes(stat.size)} is over this source's per-file limit of ${describeBytes(limit)}`,
      );
    }
    if (!admitBytes(tracker, stat.size, abs)) return skip('bound-reached', tracker.stop!.message, true);
    let out: ReadOutcome;
    try {
      out = yield* readChecked(fd, stat.size, contentKind(c.format), limit, scratch);
    } catch (err) {
      return { entry: fsErrorEntry(abs, rel, fid, stat.size, err, 'file'), stopped: false };
    }
    if (!out.ok) {
      if (out.tooLarge)
        return skip(
          'too-large',
          `grew past this source's per-file limit of ${describeBytes(limit)} while being read`,
        );
      return skip(out.problem.reason, out.problem.explanation);
    }
    if (!admitChars(tracker, out.chars, abs))
      return skip('bound-reached', tracker.stop!.message, true, out.bytes);
    recordAccepted(tracker, out.bytes, out.chars);
    const chars = c.format.extract === 'pdf' || c.format.extract === 'docx' ? undefined : out.chars;
    return {
      entry: acceptedEntry(abs, rel, fid, out.bytes, stat.mtimeMs, out.sha256, chars, fileIdOf(stat)),
      stopped: false,
    };
  } finally {
    closeQuiet(fd);
  }
}

function contentKind(format: FormatInfo): ContentKind {
  return format.extract === 'pdf' ? 'pdf' : format.extract === 'docx' ? 'docx' : 'utf8';
}
