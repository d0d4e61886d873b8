import { LINE, NONE, PARAGRAPH, RAW, rankAt, SOFT } from '../src/chunk/cut-points.js';
import { flattenDoc } from '../src/chunk/doc-text.js';
import { countSegmented as countTokens } from '../src/chunk/segments.js';
import { mapTokens, type TokenMap } from '../src/chunk/token-map.js';
import type { Tokenizer } from '../src/chunk/tokenizer.js';
import type { Chunk, ChunkParams, ExtractedDoc } from '../src/types.js';

// The chunker of v0.1, kept as the benchmarks' "before" anchor: each cut is placed ~chunkTokens
// after the previous chunk's start (the best boundary in the window's last quarter), so text
// inserted or deleted anywhere moves every later cut. Same tokenizer, same boundary ranks and the
// same overlap rule as src/chunk; chunk texts and token counts only (no line or page ranges, which
// the benchmarks do not need).

export function greedyChunks(doc: ExtractedDoc, params: ChunkParams, tok: Tokenizer): Chunk[] {
  const flat = flattenDoc(doc);
  if (flat.text.length === 0) return [];
  const map = mapTokens(flat.text, tok);
  const { n, off, bytes } = map;
  const C = params.chunkTokens;
  const O = params.overlapTokens;
  const window = Math.max(1, Math.floor(C / 4));
  const snap = Math.max(1, Math.floor(O / 4));
  const out: Chunk[] = [];
  let s = 0;
  while (s < n) {
    let e = n - s <= C ? n : bestEnd(map, s, s + C, window);
    let tokens = e - s;
    const raw = (i: number) => i > 0 && i < n && rankAt(map, off[i] as number) === RAW;
    if (raw(s) || raw(e)) {
      tokens = countTokens(bytes.toString('utf8', off[s], off[e]), tok);
      while (tokens > C) {
        e = charBoundaryAtOrBefore(map, e - Math.max(1, tokens - C), s);
        tokens = countTokens(bytes.toString('utf8', off[s], off[e]), tok);
      }
    }
    const text = bytes.toString('utf8', off[s], off[e]);
    if (text.trim().length > 0) out.push({ index: out.length, text, tokens });
    if (e >= n) break;
    s = O === 0 ? e : bestStart(map, s, e, e - O, snap);
  }
  return out;
}

function bestEnd(map: TokenMap, s: number, target: number, window: number): number {
  const lo = Math.max(s + 1, target - window);
  let best = -1;
  let bestRank = NONE;
  for (let i = target; i >= lo && bestRank < PARAGRAPH; i--) {
    const r = rankAt(map, map.off[i] as number);
    if (r > bestRank) {
      best = i;
      bestRank = r;
    }
  }
  return bestRank >= RAW ? best : charBoundaryAtOrBefore(map, lo - 1, s);
}

function bestStart(map: TokenMap, s: number, e: number, target: number, snap: number): number {
  const lo = Math.max(s + 1, target - snap);
  const hi = Math.min(e - 1, target + snap);
  let best = e;
  let bestRank = NONE;
  let bestDist = Number.POSITIVE_INFINITY;
  for (let i = lo; i <= hi; i++) {
    let r = rankAt(map, map.off[i] as number);
    if (r === PARAGRAPH) r = LINE;
    const d = Math.abs(i - target);
    if (r > bestRank || (r === bestRank && d < bestDist)) {
      best = i;
      bestRank = r;
      bestDist = d;
    }
  }
  return bestRank >= SOFT || bestRank === RAW ? best : e;
}

function charBoundaryAtOrBefore(map: TokenMap, from: number, s: number): number {
  for (let i = Math.min(from, map.n); i > s; i--) if (rankAt(map, map.off[i] as number) !== NONE) return i;
  for (let i = s + 1; i <= map.n; i++) if (rankAt(map, map.off[i] as number) !== NONE) return i;
  return map.n;
}
