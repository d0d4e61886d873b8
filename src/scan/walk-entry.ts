import type { ReviewRow, SkipReason } from '../types.js';

// What the walk records per visited entry: a review row before the previous-hash comparison
// (status is decided in review.ts). Built by these two constructors only, so every entry has one
// of two fixed shapes (the scanner makes thousands of them).

export type WalkEntry = Omit<ReviewRow, 'status'> & { accepted: boolean };

export function skippedEntry(
  path: string,
  relPath: string,
  format: string | null,
  size: number,
  reason: SkipReason,
  explanation: string,
): WalkEntry {
  return { path, relPath, format, size, accepted: false, reason, explanation };
}

export function acceptedEntry(
  path: string,
  relPath: string,
  format: string,
  size: number,
  mtimeMs: number,
  sha256: string,
  chars: number | undefined,
  fileId: string,
): WalkEntry {
  return { path, relPath, format, size, accepted: true, sha256, mtimeMs, chars, fileId };
}

/** The row for a failed open/read/readdir: permission-denied for EACCES/EPERM, else read-error. */
export function fsErrorEntry(
  path: string,
  relPath: string,
  format: string | null,
  size: number,
  err: unknown,
  what: 'file' | 'directory',
): WalkEntry {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'EACCES' || code === 'EPERM') {
    return skippedEntry(
      path,
      relPath,
      format,
      size,
      'permission-denied',
      `permission denied (${code}) reading this ${what}`,
    );
  }
  if (code === 'ENOENT')
    return skippedEntry(path, relPath, format, size, 'read-error', 'removed during the scan');
  if (code === 'ELOOP') {
    return skippedEntry(
      path,
      relPath,
      format,
      size,
      'symlink',
      'replaced by a symbolic link during the scan; not followed',
    );
  }
  if (code === 'ENOTDIR')
    return skippedEntry(path, relPath, format, size, 'read-error', 'changed into a file during the scan');
  return skippedEntry(path, relPath, format, size, 'read-error', `this ${what} could not be read (${code})`);
}
