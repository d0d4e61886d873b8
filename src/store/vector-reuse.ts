import type { SnapshotChunk, SnapshotDoc } from '../index/snapshot-types.js';

// Which chunks need the model (pure). A vector is a function of exactly what the model is given:
// the store's document prefix + the chunk text, run through the model the fingerprint pins (file,
// pooling, context and so truncation). Within one store the fingerprint, and with it the prefix,
// is fixed and the old snapshot must carry the same one (else it is refused, or a rebuild ignores
// it), so the chunk text alone identifies the vector: a chunk whose text appears anywhere in the
// old snapshot takes that vector, bit for bit; each other text is embedded once. Chunk sizes and
// overlap only decide which texts exist, not what a text's vector is. See src/index/STORAGE.md.

/** Vectors of the old snapshot by chunk text. Built at sync time: the snapshot stays the only record. */
export function vectorsByText(docs: readonly SnapshotDoc[]): Map<string, Float32Array> {
  const byText = new Map<string, Float32Array>();
  for (const d of docs) for (const c of d.chunks) if (!byText.has(c.text)) byText.set(c.text, c.vector);
  return byText;
}

export interface EmbedWork {
  /** Distinct texts the model must embed, in first-seen order. */
  texts: string[];
  /** For texts[i], every chunk that takes its vector. */
  targets: SnapshotChunk[][];
  /** Chunks that took an old vector. */
  reused: number;
}

/**
 * Gives every chunk of `chunks` whose text is known its old vector and groups the rest by text.
 * `known` is consulted for every chunk, so a text that moved to another file or another place in
 * the file is still found.
 */
export function planEmbedding(
  chunks: Iterable<SnapshotChunk>,
  known: ReadonlyMap<string, Float32Array>,
): EmbedWork {
  const work: EmbedWork = { texts: [], targets: [], reused: 0 };
  const slot = new Map<string, number>();
  for (const c of chunks) {
    const old = known.get(c.text);
    if (old) {
      c.vector = old;
      work.reused++;
      continue;
    }
    const i = slot.get(c.text);
    if (i !== undefined) {
      (work.targets[i] as SnapshotChunk[]).push(c);
    } else {
      slot.set(c.text, work.texts.length);
      work.texts.push(c.text);
      work.targets.push([c]);
    }
  }
  return work;
}
