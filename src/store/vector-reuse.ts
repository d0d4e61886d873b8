import { canonicalFingerprint, type SnapshotChunk, type SnapshotDoc } from '../index/snapshot-types.js';
import type { ModelFingerprint } from '../types.js';

// Which chunks need the model (pure). A vector is a function of exactly what the model is given,
// the fingerprint's document prefix + the chunk text, and of the model the fingerprint pins (file,
// pooling, dimension; its context, and so any truncation, comes from the file). So the reuse key
// is (fingerprint, text): old vectors are offered only when the old snapshot's own header
// fingerprint equals the store's in every field, prefixes included, and then the text alone
// identifies the vector. A chunk whose text appears anywhere in that snapshot takes its vector bit
// for bit; each other text is embedded once. Chunk size and overlap are not part of the key: they
// decide which texts exist, not what a text's vector is (every text is embedded on its own). See
// src/index/STORAGE.md.

/** The active snapshot as a sync read it: its header fingerprint and its documents. */
export interface OldSnapshot {
  fingerprint: ModelFingerprint;
  docs: readonly SnapshotDoc[];
}

/**
 * Vectors of the old snapshot by chunk text, for embedding with `fingerprint`; empty when there is
 * no snapshot or it was embedded with any other configuration. Built at sync time from the
 * snapshot: no separate cache that could drift.
 */
export function reusableVectors(
  old: OldSnapshot | undefined,
  fingerprint: ModelFingerprint,
): Map<string, Float32Array> {
  const byText = new Map<string, Float32Array>();
  if (!old || canonicalFingerprint(old.fingerprint) !== canonicalFingerprint(fingerprint)) return byText;
  for (const d of old.docs) for (const c of d.chunks) if (!byText.has(c.text)) byText.set(c.text, c.vector);
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
