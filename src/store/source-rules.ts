import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { createError } from '../errors.js';
import type { SourceRecord } from './store-types.js';

// Pure rules for the source table: ids and overlap. Paths are compared after resolve();
// symbolic-link roots are refused by the scanner, so lexical comparison is sound here.

/** Deterministic: the same path in the same store always gets the same id (and so the same chunk ids). */
export function sourceIdFor(kind: 'file' | 'folder', absPath: string): string {
  return `src-${createHash('sha256').update(`${kind}\0${absPath}`).digest('hex').slice(0, 10)}`;
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const p = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(p);
}

/**
 * A file already covered by a folder source (or an identical file source) is refused; a folder
 * identical to, inside, or containing an existing source is refused naming that source.
 */
export function checkNewSource(
  kind: 'file' | 'folder',
  path: string,
  existing: readonly SourceRecord[],
): string {
  const abs = resolve(path);
  for (const s of existing) {
    if (kind === 'file') {
      if ((s.kind === 'file' && s.path === abs) || (s.kind === 'folder' && isInside(abs, s.path))) {
        throw createError('SOURCE_EXISTS', { path: abs, existing: s.path });
      }
    } else if (s.kind === 'folder') {
      if (s.path === abs) throw createError('SOURCE_EXISTS', { path: abs, existing: s.path });
      if (isInside(abs, s.path) || isInside(s.path, abs))
        throw createError('SOURCE_OVERLAP', { path: abs, existing: s.path });
    } else if (isInside(s.path, abs)) {
      throw createError('SOURCE_OVERLAP', { path: abs, existing: s.path });
    }
  }
  return abs;
}

export function findSource(sources: readonly SourceRecord[], ref: string): SourceRecord | undefined {
  const abs = resolve(ref);
  return sources.find((s) => s.id === ref) ?? sources.find((s) => s.path === abs);
}
