// Chooses which fused candidates enter the <retrieved_context> block and assigns markers. Pure.
//
// Bounds (spec "Use a store with an AI profile"; callers may only tighten them):
//   - at most 6 excerpts, at most 2 per source (store id + source id);
//   - token budget = min(4000, floor(0.25 × contextWindow)), and the budget covers the WHOLE
//     rendered block: countTokens(renderContextBlock(selected)) ≤ budget, i.e. wrapper tags,
//     preamble, header lines, excerpt tags and the escaped excerpt text (escaping `<` as `&lt;`
//     costs tokens too). Counting the exact string is the only exact way: BPE token counts are
//     not additive across concatenation. The blank lines the prompt puts around the block are
//     not part of it.
// Candidates are taken in rank order (fused score, then best rank, vector rank, lexical rank,
// key), so input order never matters. One that does not fit whole is cut at a line boundary
// (or, for a single over-long line, at whitespace) to the longest prefix that fits and marked
// trimmed, provided the kept text is at least `minTrimTokens` long; otherwise it is skipped and
// later (smaller) candidates still get a chance. A chunk whose text repeats an already selected
// one (copies of a file in two sources or stores) is skipped: it would spend budget on nothing new.
// Markers R1..Rn follow final rank order; the same inputs always give the same markers.

import { createError } from '../errors.js';
import type { Candidate, Excerpt } from '../types.js';
import { BLOCK_HEAD, BLOCK_TAIL, EXCERPT_SEPARATOR, renderContextBlock, renderExcerpt } from './block.js';
import { compareFused } from './fuse.js';
import { sanitizeUntrusted } from './sanitize.js';

export const MAX_EXCERPTS = 6;
export const MAX_PER_SOURCE = 2;
export const MAX_CONTEXT_TOKENS = 4000;
export const MAX_CONTEXT_SHARE = 0.25;
export const DEFAULT_MIN_TRIM_TOKENS = 16;

export type CountTokens = (text: string) => number;

export interface SelectLimits {
  /** The target chat model's context window in tokens. */
  contextWindow: number;
  maxExcerpts?: number;
  maxPerSource?: number;
  maxTokens?: number;
  /** A trimmed excerpt must keep at least this many tokens of text, else it is skipped. */
  minTrimTokens?: number;
  /** Number of the first marker (default 1); tool-mode searches continue after earlier blocks. */
  firstMarker?: number;
}

/** Tokens the whole block may use: min(maxTokens, floor(share × contextWindow)). */
export function contextBudget(limits: Pick<SelectLimits, 'contextWindow' | 'maxTokens'>): number {
  const cw = limits.contextWindow;
  if (!Number.isInteger(cw) || cw <= 0) {
    throw createError('INVALID_ARGUMENT', {
      name: 'contextWindow',
      reason: `must be a positive integer, got ${cw}`,
    });
  }
  const max = Math.min(MAX_CONTEXT_TOKENS, limits.maxTokens ?? MAX_CONTEXT_TOKENS);
  return Math.max(0, Math.min(max, Math.floor(cw * MAX_CONTEXT_SHARE)));
}

/** Candidates in final rank order, duplicates by key removed (first, i.e. best, kept). */
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  for (const c of candidates) {
    if (!Number.isFinite(c.fusedScore)) {
      throw createError('INVALID_ARGUMENT', {
        name: 'fusedScore',
        reason: `not a finite number for ${c.key}`,
      });
    }
  }
  const seen = new Set<string>();
  return [...candidates].sort(compareFused).filter((c) => {
    if (seen.has(c.key)) return false;
    seen.add(c.key);
    return true;
  });
}

export function selectExcerpts(
  candidates: readonly Candidate[],
  limits: SelectLimits,
  countTokens: CountTokens,
): Excerpt[] {
  const budget = contextBudget(limits);
  const maxExcerpts = clampInt(limits.maxExcerpts, MAX_EXCERPTS);
  const maxPerSource = clampInt(limits.maxPerSource, MAX_PER_SOURCE);
  const minTrim = limits.minTrimTokens ?? DEFAULT_MIN_TRIM_TOKENS;
  const first = limits.firstMarker ?? 1;
  if (!Number.isInteger(first) || first < 1) {
    throw createError('INVALID_ARGUMENT', {
      name: 'firstMarker',
      reason: `must be an integer >= 1, got ${first}`,
    });
  }

  // Decisions use per-piece counts (frame, separators, each rendered excerpt): counting the whole
  // block for every trial would cost O(budget) per trial. Pieces are joined at line breaks, where
  // BPE pre-tokenisers split, so the sum is at least the real count in practice; the real string
  // is counted exactly at the end and trimmed further if it ever exceeds.
  const frame = countTokens(BLOCK_HEAD) + countTokens(BLOCK_TAIL);
  const sep = countTokens(EXCERPT_SEPARATOR);
  const selected: Excerpt[] = [];
  const wholes: Excerpt[] = [];
  const costs: number[] = [];
  const perSource = new Map<string, number>();
  const texts = new Set<string>();
  let used = frame;

  for (const c of rankCandidates(candidates)) {
    if (selected.length >= maxExcerpts) break;
    const src = `${c.storeId}\u0000${c.sourceId}`;
    if ((perSource.get(src) ?? 0) >= maxPerSource) continue;
    if (texts.has(c.text)) continue;
    const rank = selected.length + 1;
    const whole: Excerpt = { ...c, marker: `R${first + rank - 1}`, rank, trimmed: false, originalTokens: 0 };
    const room = budget - used - (selected.length > 0 ? sep : 0);
    const fit = fitExcerpt(whole, room, countTokens, minTrim);
    if (!fit) continue;
    selected.push(fit.excerpt);
    wholes.push(whole);
    costs.push(fit.cost);
    used += fit.cost + (selected.length > 1 ? sep : 0);
    perSource.set(src, (perSource.get(src) ?? 0) + 1);
    texts.add(c.text);
  }

  // Exact check of the real block; shrink (or drop) the last excerpt by the excess if needed.
  for (;;) {
    if (selected.length === 0) break;
    const excess = countTokens(renderContextBlock(selected)) - budget;
    if (excess <= 0) break;
    selected.pop();
    const whole = wholes.pop()!;
    const cost = costs.pop()!;
    const again = fitExcerpt(whole, cost - excess, countTokens, minTrim);
    if (again) {
      selected.push(again.excerpt);
      wholes.push(whole);
      costs.push(again.cost);
    }
  }
  for (const e of selected) {
    const w = wholes[e.rank - 1]!;
    e.originalTokens = countTokens(w.text);
    e.tokens = e.trimmed ? countTokens(e.text) : e.originalTokens;
  }
  return selected;
}

function clampInt(v: number | undefined, max: number): number {
  if (v === undefined) return max;
  if (!Number.isInteger(v) || v < 0)
    throw createError('INVALID_ARGUMENT', { name: 'limit', reason: `${v} is not a count` });
  return Math.min(v, max);
}

/**
 * The excerpt whole if its rendering fits `room` tokens, else the longest prefix that fits —
 * cut after a whole line, or, when not even the first line fits, at whitespace inside it — as
 * long as it keeps `minTrim` tokens of text (or the whole text is smaller than that).
 */
function fitExcerpt(
  whole: Excerpt,
  room: number,
  countTokens: CountTokens,
  minTrim: number,
): { excerpt: Excerpt; cost: number } | undefined {
  const render = (e: Excerpt) => countTokens(renderExcerpt(e));
  const make = (cut: number): Excerpt => {
    const e: Excerpt = { ...whole, text: whole.text.slice(0, cut), trimmed: true };
    if (whole.lineStart !== undefined) e.lineEnd = whole.lineStart + countNewlines(e.text);
    return e;
  };
  // Header-only cost first: cheap, and once the budget is full it rejects without counting the text.
  const empty = render(make(0));
  if (empty >= room) return undefined;
  const full = render(whole);
  if (full <= room) return { excerpt: whole, cost: full };
  const text = whole.text;
  const lineCuts: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (i > 0) lineCuts.push(i);
  let best = longestPrefix(text, lineCuts, room - empty, room, (cut) => render(make(cut)), countTokens);
  if (!best) {
    const end = lineCuts[0] ?? text.length;
    const wordCuts: number[] = [];
    for (let i = 1; i < end; i++) if (/\s/.test(text[i]!) && !/\s/.test(text[i - 1]!)) wordCuts.push(i);
    best = longestPrefix(text, wordCuts, room - empty, room, (cut) => render(make(cut)), countTokens);
  }
  if (!best) return undefined;
  const excerpt = make(best.cut);
  if (countTokens(excerpt.text) < Math.min(minTrim, countTokens(text))) return undefined;
  return { excerpt, cost: best.cost };
}

/**
 * Largest cut whose rendered excerpt costs ≤ room. Estimate from the (sanitized) token cost of
 * each unit between cuts, then correct with exact counts of the rendered excerpt: step back
 * while over, step forward while a longer cut still fits.
 */
function longestPrefix(
  text: string,
  cuts: number[],
  textRoom: number,
  room: number,
  exact: (cut: number) => number,
  countTokens: CountTokens,
): { cut: number; cost: number } | undefined {
  if (cuts.length === 0) return undefined;
  let k = 0;
  let sum = 0;
  for (let prev = 0; k < cuts.length; k++) {
    sum += countTokens(sanitizeUntrusted(text.slice(prev, cuts[k])));
    if (sum > textRoom) break;
    prev = cuts[k]!;
  }
  // k = number of cuts whose prefix is estimated to fit.
  let cost = k > 0 ? exact(cuts[k - 1]!) : 0;
  while (k > 0 && cost > room) {
    k--;
    cost = k > 0 ? exact(cuts[k - 1]!) : 0;
  }
  for (let steps = 0; steps < 8 && k < cuts.length; steps++) {
    const next = exact(cuts[k]!);
    if (next > room) break;
    k++;
    cost = next;
  }
  return k > 0 ? { cut: cuts[k - 1]!, cost } : undefined;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
