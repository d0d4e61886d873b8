import type { SkipReason } from '../types.js';

// Which skipped entries are problems. Most skips are the rules doing their job — a format that is
// not indexed, a binary, a hidden or excluded path, a link never followed, the size limit the user
// set, a PDF with no text or a password — and are counted as skipped. A problem is a file that
// should have been indexed and could not be: unreadable, not valid UTF-8, a damaged PDF or .docx,
// an extraction that failed or timed out, a name that cannot be shown, a preview bound. Pure.

const BY_DESIGN: ReadonlySet<string> = new Set<SkipReason>([
  'unsupported-format',
  'binary',
  'control-bytes',
  'too-large',
  'symlink',
  'special-file',
  'hard-link',
  'hidden',
  'excluded-dir',
  'gitignored',
  'excluded-by-glob',
  'not-included',
  'already-covered',
  'pdf-encrypted',
  'pdf-no-text',
  'empty-text',
]);

/** True for a skip that needs the user's attention; false for one the rules intend. */
export function isProblem(reason: string | undefined): boolean {
  return !BY_DESIGN.has(reason ?? '');
}
