// Chooses which fused candidates enter the <retrieved_context> block and assigns markers. Pure.
//
// Bounds (spec "Use a store with an AI profile"; callers may only tighten them):
//   - at most 6 excerpts, at most 2 per source DOCUMENT (one file, one PDF: store + source + path).
//     The spec's "at most two excerpts from one source" is read per document, not per configured
//     file/folder root: the bound keeps one document from filling the block, and read per root it
//     would cap the usual store (one folder of notes) at 2 excerpts, leaving 6 unreachable;
//   - token budget = min(4000, floor(0.25 × contextWindow)), and the budget covers the WHOLE
//     rendered block: countTokens(renderContextBlock(selected)) ≤ budget, i.e. wrapper tags,
//     preamble, header lines, excerpt tags and the escaped excerpt text (escaping `<` as `&lt;`
//     costs tokens too). The blank lines the prompt puts around the block are not part of it.
// Candidates are taken in rank order (fused score, then best rank, vector rank, lexical rank,
// key), so input order never matters, except that a document's second chunk waits until every
// other document has offered its first, unless the best document holds the list's top two
// (admissionOrder). One that does not fit whole is cut at a line boundary (or, for a single
// over-long line, at whitespace) to the longest prefix that fits and marked trimmed, provided the
// kept text is at least `minTrimTokens` long; otherwise it is skipped and later (smaller)
// candidates still get a chance. A trimmed excerpt fills the budget: it is the last one chosen. A chunk whose text
// repeats an already selected one (copies of a file in two sources or stores) is skipped: it would
// spend budget on nothing new. Where the repeat is a section two different documents share, the
// repeating document's next chunk takes its place in the order (sharedTextYields).
// Markers R1..Rn follow the block's order: every document's first excerpt, in rank order, before
// any document's second, so the next document's best excerpt is not pushed behind a second one of
// the page above it. The same inputs always give the same markers.
//
// Counting tokens is most of the cost of assembly, and the tokenizer costs ~0.14 s to load, so
// counts are avoided where they are not needed:
//   1. A token is at least one UTF-8 byte. If the block's first excerpts fit whole by their byte
//      lengths, that selection is final and provably within budget: no token is counted (small
//      chunks, the usual notes store).
//   2. Otherwise decisions use estimates: exact counts of the short header and tag lines plus the
//      chunk's stored token count (the chunker's cl100k count of the same text; recounted only
//      when sanitizing changed the text or the stored count is implausible). Pieces meet at line
//      breaks, where the BPE pre-tokeniser splits, so the sum matches the real count in practice.
//      Only an excerpt that must be trimmed is counted in full, and the real block is counted
//      once at the end and shrunk if it ever exceeds the budget, so the bound stays exact.

import { createError } from '../errors.js';
import type { Candidate, Excerpt } from '../types.js';
import {
  BLOCK_HEAD,
  BLOCK_TAIL,
  EXCERPT_END,
  EXCERPT_SEPARATOR,
  excerptHead,
  renderContextBlock,
  renderExcerpt,
} from './block.js';
import { compareFused } from './fuse.js';
import { sanitizeUntrusted } from './sanitize.js';

export const MAX_EXCERPTS = 6;
export const MAX_PER_DOCUMENT = 2;
export const MAX_CONTEXT_TOKENS = 4000;
export const MAX_CONTEXT_SHARE = 0.25;
export const DEFAULT_MIN_TRIM_TOKENS = 16;

export type CountTokens = (text: string) => number;

export interface SelectLimits {
  /** The target chat model's context window in tokens. */
  contextWindow: number;
  maxExcerpts?: number;
  /** At most this many excerpts from one source document (one file or PDF). */
  maxPerDocument?: number;
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

/** The source document a candidate comes from: one file or PDF of one source of one store. */
export function documentKey(c: Pick<Candidate, 'storeId' | 'sourceId' | 'path'>): string {
  return `${c.storeId}\u0000${c.sourceId}\u0000${c.path}`;
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

/**
 * The order candidates are offered to the block: rank order, except that a document's second
 * chunk waits until every other document has offered its first. A page ranked sixth then gets its
 * best excerpt before the fourth page's second one does. The one exception is a best page whose
 * two chunks lead the list, ahead of every other page: that page is likely the answer, and its
 * second excerpt is often the part that answers (the option below the NAME and SYNOPSIS chunk).
 */
export function admissionOrder(ranked: readonly Candidate[]): Candidate[] {
  const [top, next] = ranked;
  const leader = top && next && documentKey(top) === documentKey(next) ? documentKey(top) : undefined;
  const seen = new Set<string>();
  const now: Candidate[] = [];
  const later: Candidate[] = [];
  for (const c of sharedTextYields(ranked)) {
    const doc = documentKey(c);
    (seen.has(doc) && doc !== leader ? later : now).push(c);
    seen.add(doc);
  }
  return [...now, ...later];
}

/**
 * `ranked` with each chunk whose text a better chunk of another document already holds (a section
 * two documents share: git-log's page repeats git-diff's options) preceded by its own document's
 * next chunk, when there is one with text of its own. The block shows a text once, so the repeat
 * is skipped; without this, its document would also lose the place its score earned, and its best
 * other chunk would wait behind every other document's first. Copies of one document (the same
 * content sha256: a file in two sources or stores) are left as they are: the copy has nothing else
 * to show. Only a chunk some list scored moves up: the starter model's vector hits have a fused
 * score of 0 and only fill the list after the lexical ones, so hybrid's longer list must not
 * change the block lexical mode gives.
 */
function sharedTextYields(ranked: readonly Candidate[]): readonly Candidate[] {
  // The sha256 of the document whose chunk shows each text first.
  const holders = new Map<string, string>();
  const moved = new Set<Candidate>();
  const out: Candidate[] = [];
  for (const [i, c] of ranked.entries()) {
    if (moved.has(c)) continue;
    const holder = holders.get(c.text);
    if (holder === undefined) holders.set(c.text, c.contentSha256);
    else if (holder !== c.contentSha256) {
      const doc = documentKey(c);
      const own = ranked.find(
        (d, k) =>
          k > i && d.fusedScore > 0 && !moved.has(d) && documentKey(d) === doc && !holders.has(d.text),
      );
      if (own) {
        moved.add(own);
        holders.set(own.text, own.contentSha256);
        out.push(own);
      }
    }
    out.push(c);
  }
  return out;
}

interface Plan {
  budget: number;
  maxExcerpts: number;
  maxPerDocument: number;
  minTrim: number;
  first: number;
}

export function selectExcerpts(
  candidates: readonly Candidate[],
  limits: SelectLimits,
  countTokens: CountTokens,
): Excerpt[] {
  const first = limits.firstMarker ?? 1;
  if (!Number.isInteger(first) || first < 1) {
    throw createError('INVALID_ARGUMENT', {
      name: 'firstMarker',
      reason: `must be an integer >= 1, got ${first}`,
    });
  }
  const plan: Plan = {
    budget: contextBudget(limits),
    maxExcerpts: clampInt(limits.maxExcerpts, MAX_EXCERPTS),
    maxPerDocument: clampInt(limits.maxPerDocument, MAX_PER_DOCUMENT),
    minTrim: limits.minTrimTokens ?? DEFAULT_MIN_TRIM_TOKENS,
    first,
  };
  const ranked = admissionOrder(rankCandidates(candidates));
  const byBytes = selectByBytes(ranked, plan);
  if (byBytes) {
    for (const e of byBytes) e.tokens = e.originalTokens = knownTokens(e) ?? countTokens(e.text);
    return inOrder(byBytes, blockOrder(byBytes), plan.first);
  }
  return selectByTokens(ranked, plan, countTokens);
}

/**
 * The block's order as indexes into `selected`: each document's first excerpt (in rank order)
 * before any document's second, and so on.
 */
function blockOrder(selected: readonly Excerpt[]): number[] {
  const seen = new Map<string, number>();
  const tier = selected.map((e) => {
    const n = seen.get(documentKey(e)) ?? 0;
    seen.set(documentKey(e), n + 1);
    return n;
  });
  return selected.map((_, i) => i).sort((a, b) => tier[a]! - tier[b]! || a - b);
}

/**
 * `list` in `order`, markers and ranks renumbered from `first`. The set of markers is unchanged,
 * so the block's length in bytes is too.
 */
function inOrder(list: readonly Excerpt[], order: readonly number[], first: number): Excerpt[] {
  return order.map((i, k) => Object.assign(list[i]!, { rank: k + 1, marker: `R${first + k}` }));
}

/** Admission by rank order, the per-document cap and the duplicate-text rule (shared by both passes). */
class Picker {
  readonly selected: Excerpt[] = [];
  private readonly perDocument = new Map<string, number>();
  private readonly texts = new Set<string>();

  constructor(private readonly plan: Plan) {}

  get full(): boolean {
    return this.selected.length >= this.plan.maxExcerpts;
  }

  /** The candidate as the next excerpt, untrimmed, or undefined when a rule excludes it. */
  next(c: Candidate): Excerpt | undefined {
    if ((this.perDocument.get(documentKey(c)) ?? 0) >= this.plan.maxPerDocument) return undefined;
    if (this.texts.has(c.text)) return undefined;
    const rank = this.selected.length + 1;
    return { ...c, marker: `R${this.plan.first + rank - 1}`, rank, trimmed: false, originalTokens: 0 };
  }

  take(whole: Excerpt, chosen: Excerpt): void {
    this.selected.push(chosen);
    const doc = documentKey(whole);
    this.perDocument.set(doc, (this.perDocument.get(doc) ?? 0) + 1);
    this.texts.add(whole.text);
  }
}

/**
 * The selection when every admitted excerpt fits whole by UTF-8 bytes (a token is at least one
 * byte, so the block is then provably within budget), else undefined. The same candidates would
 * be chosen by token counts, because every byte cost bounds its token cost.
 */
function selectByBytes(ranked: readonly Candidate[], plan: Plan): Excerpt[] | undefined {
  const picker = new Picker(plan);
  let used = utf8Bytes(BLOCK_HEAD) + utf8Bytes(BLOCK_TAIL);
  const sep = utf8Bytes(EXCERPT_SEPARATOR);
  for (const c of ranked) {
    if (picker.full) break;
    const whole = picker.next(c);
    if (!whole) continue;
    used += utf8Bytes(renderExcerpt(whole)) + (picker.selected.length > 0 ? sep : 0);
    if (used > plan.budget) return undefined;
    picker.take(whole, whole);
  }
  return picker.selected;
}

function selectByTokens(ranked: readonly Candidate[], plan: Plan, countTokens: CountTokens): Excerpt[] {
  const picker = new Picker(plan);
  const selected = picker.selected;
  const wholes: Excerpt[] = [];
  const sep = countTokens(EXCERPT_SEPARATOR);
  const endTokens = countTokens(EXCERPT_END);
  let used = countTokens(BLOCK_HEAD) + countTokens(BLOCK_TAIL);
  for (const c of ranked) {
    if (picker.full) break;
    const whole = picker.next(c);
    if (!whole) continue;
    const room = plan.budget - used - (selected.length > 0 ? sep : 0);
    // Once the block is nearly full, a candidate whose text alone exceeds the room and the
    // shortest trim it may be cut to is skipped without counting anything.
    const known = knownTokens(whole);
    if (known !== undefined && room + ESTIMATE_SLACK < Math.min(plan.minTrim, known)) continue;
    const head = excerptHead(whole);
    const frameTokens = countTokens(head) + endTokens;
    // Header and tags alone do not fit: once the budget is full, later candidates are rejected
    // without sanitizing or counting their text.
    if (frameTokens >= room) continue;
    const estimate = estimateCost(whole, head, frameTokens, countTokens);
    const fit =
      estimate <= room
        ? { excerpt: whole, cost: estimate }
        : fitExcerpt(whole, room, countTokens, plan.minTrim, estimate, frameTokens);
    if (!fit) continue;
    picker.take(whole, fit.excerpt);
    wholes.push(whole);
    used += fit.cost + (selected.length > 1 ? sep : 0);
    // A trimmed excerpt is cut to the longest prefix that fits: less than one of its lines is
    // left, too little for another header, so the search for candidates ends here.
    if (fit.excerpt.trimmed) break;
  }

  // Reordered before the final count, the untrimmed twins with them, so a shrink refits the last.
  const order = blockOrder(selected);
  selected.splice(0, selected.length, ...inOrder(selected, order, plan.first));
  wholes.splice(0, wholes.length, ...inOrder(wholes, order, plan.first));
  // The real block, counted once (unless its bytes already prove it fits); if the estimates were
  // ever short, shrink (or drop) the last excerpt by the excess.
  for (;;) {
    if (selected.length === 0) break;
    const block = renderContextBlock(selected);
    if (utf8Bytes(block) <= plan.budget) break;
    const excess = countTokens(block) - plan.budget;
    if (excess <= 0) break;
    const last = selected.pop()!;
    const whole = wholes.pop()!;
    const real = countTokens(renderExcerpt(last));
    const again = fitExcerpt(whole, real - excess, countTokens, plan.minTrim, Number.POSITIVE_INFINITY);
    if (again) {
      selected.push(again.excerpt);
      wholes.push(whole);
    }
  }
  selected.forEach((e, i) => {
    e.originalTokens = knownTokens(wholes[i]!) ?? countTokens(wholes[i]!.text);
    if (!e.trimmed) e.tokens = e.originalTokens; // a trimmed one got its count from fitExcerpt
  });
  return selected;
}

function clampInt(v: number | undefined, max: number): number {
  if (v === undefined) return max;
  if (!Number.isInteger(v) || v < 0)
    throw createError('INVALID_ARGUMENT', { name: 'limit', reason: `${v} is not a count` });
  return Math.min(v, max);
}

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * The chunk's stored token count when it is plausible for its text (a whole number, at most one
 * token per UTF-8 byte, zero only for empty text), else undefined. A Qdrant point written without
 * a count, or a damaged one, is simply counted.
 */
function knownTokens(c: Pick<Candidate, 'text' | 'tokens'>): number | undefined {
  const t = c.tokens;
  if (!Number.isInteger(t) || t < 0 || (t === 0 && c.text !== '')) return undefined;
  return t <= utf8Bytes(c.text) ? t : undefined;
}

/**
 * Estimated tokens of the rendered excerpt: header and tag lines counted, the text's stored count
 * when sanitizing left it unchanged (the usual case), and never more than its UTF-8 bytes (so an
 * excerpt the byte pass admits is admitted here too).
 */
function estimateCost(whole: Excerpt, head: string, frameTokens: number, countTokens: CountTokens): number {
  const clean = sanitizeUntrusted(whole.text);
  const body = clean.replace(/\n+$/, '');
  const known = clean === whole.text ? knownTokens(whole) : undefined;
  const bytes = utf8Bytes(head) + utf8Bytes(body) + utf8Bytes(EXCERPT_END);
  return Math.min(bytes, frameTokens + (known ?? countTokens(body)));
}

/** How far an estimate may fall short of the exact count before the exact count is worth taking. */
const ESTIMATE_SLACK = 8;
/** Tokens that pieces counted apart may differ by from the joined string, at one or two joins. */
const JOIN_SLACK = 2;

/**
 * The excerpt whole if its rendering fits `room` tokens, else the longest prefix that fits —
 * cut after a whole line, or, when not even the first line fits, at whitespace inside it — as
 * long as it keeps `minTrim` tokens of text (or the whole text is smaller than that).
 * `estimate` is the whole excerpt's estimated cost: far above the room, the whole is not counted.
 */
function fitExcerpt(
  whole: Excerpt,
  room: number,
  countTokens: CountTokens,
  minTrim: number,
  estimate: number,
  frameTokens?: number,
): { excerpt: Excerpt; cost: number } | undefined {
  const render = (e: Excerpt) => countTokens(renderExcerpt(e));
  const make = (cut: number): Excerpt => {
    const e: Excerpt = { ...whole, text: whole.text.slice(0, cut), trimmed: true };
    if (whole.lineStart !== undefined) e.lineEnd = whole.lineStart + countNewlines(e.text);
    return e;
  };
  // No prefix could keep the `minTrim` tokens a trimmed excerpt must keep (checked first with the
  // header and tags counted apart, which the caller already has: when the block is nearly full,
  // most candidates stop here at no cost).
  const known = knownTokens(whole);
  const least = Math.min(minTrim, known ?? Number.POSITIVE_INFINITY);
  if (frameTokens !== undefined && room - frameTokens + JOIN_SLACK < least) return undefined;
  const empty = render(make(0));
  if (empty >= room || room - empty + JOIN_SLACK < least) return undefined;
  if (estimate <= room + ESTIMATE_SLACK) {
    const full = render(whole);
    if (full <= room) return { excerpt: whole, cost: full };
  }
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
  const kept = countTokens(excerpt.text);
  if (kept < minTrim && kept < (known ?? countTokens(text))) return undefined;
  excerpt.tokens = kept;
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
