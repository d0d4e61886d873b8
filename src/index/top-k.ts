import type { SearchHit } from './snapshot-types.js';

// Bounded selection of the k best (score desc, ordinal asc) without sorting every candidate.
// Ties break on the lower ordinal so rankings are deterministic.

/** True when (sa, oa) ranks below (sb, ob). */
function worse(sa: number, oa: number, sb: number, ob: number): boolean {
  return sa < sb || (sa === sb && oa > ob);
}

export class TopK {
  private readonly scores: Float64Array;
  private readonly ords: Uint32Array;
  private n = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(1, k));
    this.ords = new Uint32Array(Math.max(1, k));
  }

  /** The score a candidate must beat once the heap is full. */
  get threshold(): number {
    return this.n < this.k ? Number.NEGATIVE_INFINITY : this.scores[0]!;
  }

  push(score: number, ordinal: number): void {
    const { scores, ords } = this;
    if (this.k <= 0) return;
    if (this.n < this.k) {
      // sift up
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(score, ordinal, scores[p]!, ords[p]!)) break;
        scores[i] = scores[p]!;
        ords[i] = ords[p]!;
        i = p;
      }
      scores[i] = score;
      ords[i] = ordinal;
      return;
    }
    if (!worse(scores[0]!, ords[0]!, score, ordinal)) return;
    // replace the root (the worst kept) and sift down
    let i = 0;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && worse(scores[r]!, ords[r]!, scores[l]!, ords[l]!)) c = r;
      if (!worse(scores[c]!, ords[c]!, score, ordinal)) break;
      scores[i] = scores[c]!;
      ords[i] = ords[c]!;
      i = c;
    }
    scores[i] = score;
    ords[i] = ordinal;
  }

  /** Best first. */
  result(): SearchHit[] {
    const out: SearchHit[] = [];
    for (let i = 0; i < this.n; i++) out.push({ chunkOrdinal: this.ords[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.chunkOrdinal - b.chunkOrdinal);
  }
}
