// Citation enforcement. Pure.
//
// A citation is `[R<n>]`, or a list in one pair of brackets: `[R1, R3]`, `[R1; R3]`. Adjacent
// markers `[R1][R3]` are simply two citations. Nothing else counts: no ranges (`[R1-R3]`), no
// lowercase, no spaces inside the brackets' ends — the contract asks for the exact marker.
// Before matching, the answer is NFKC-folded with invisible characters removed (for matching
// only), so a full-width `［Ｒ７］` or `[R\u200B7]` still counts as citing R7 and is rejected when
// R7 was not retrieved, instead of slipping past the check while looking like a marker.
//
// With requireCitations:
//   - any cited marker that was not retrieved → CITATION_UNKNOWN (markers listed)
//   - no retrieved marker cited → CITATION_MISSING
//   - when nothing was retrieved at all there is nothing to cite, so only unknown markers fail.
// Without it, the result reports cited and unknown markers and nothing throws.

import { createError } from '../errors.js';

const CITATION = /\[(R[0-9]+(?:\s*[,;]\s*R[0-9]+)*)\]/g;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Markers cited in `answer` (`R1`...), unique, in order of first appearance. */
export function extractCitations(answer: string): string[] {
  const text = answer.normalize('NFKC').replace(INVISIBLE, '');
  const out: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    for (const marker of m[1]!.split(/\s*[,;]\s*/)) if (!out.includes(marker)) out.push(marker);
  }
  return out;
}

export interface CitationResult {
  /** Retrieved markers the answer cites, in order of first appearance. */
  cited: string[];
  /** Markers the answer cites that were not retrieved. */
  unknown: string[];
}

export function checkCitations(
  answer: string,
  retrieved: readonly string[],
  opts: { requireCitations: boolean },
): CitationResult {
  const all = extractCitations(answer);
  const known = new Set(retrieved);
  const cited = all.filter((m) => known.has(m));
  const unknown = all.filter((m) => !known.has(m));
  if (opts.requireCitations) {
    if (unknown.length > 0) {
      throw createError('CITATION_UNKNOWN', {
        markers: unknown.map((m) => `[${m}]`).join(', '),
        unknown,
        plural: unknown.length > 1,
      });
    }
    if (cited.length === 0 && retrieved.length > 0)
      throw createError('CITATION_MISSING', { retrieved: [...retrieved] });
  }
  return { cited, unknown };
}

/** `path:line` for line-based sources, `path#page` for PDFs, plain path otherwise. */
export function formatSourceRef(e: { path: string; lineStart?: number; pageStart?: number }): string {
  if (e.pageStart !== undefined) return `${e.path}#${e.pageStart}`;
  if (e.lineStart !== undefined) return `${e.path}:${e.lineStart}`;
  return e.path;
}
