import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ModelFingerprint } from '../types.js';
import { align8, assertLittleEndianHost, bytesOf, u64le } from './binary.js';
import type { Bm25Index } from './bm25.js';
import { bm25Pieces } from './bm25-codec.js';
import {
  canonicalFingerprint,
  countChunks,
  type HnswParams,
  type SnapshotData,
  type SnapshotDoc,
} from './snapshot-types.js';

// Snapshot format v3 (v2's layout), encoding side (pure, over Buffers); snapshot-decode.ts reads it back.
// Grammar and checksum argument: STORAGE.md.

export const SNAPSHOT_MAGIC = Buffer.from('KRTYSNAP', 'latin1');
/** The footer layout is the same in every version from 2 on, so a newer file is recognised as such. */
export const FOOTER_MAGIC = Buffer.from('KRTYSEND', 'latin1');
/** 3: the lexical section holds BM25F (fields, stems, exact forms); v2's plain BM25 is rebuilt at open. */
export const SNAPSHOT_VERSION = 3;
export const PRELUDE = 16;
export const FOOTER = 48;
export const CHUNK_RECORD = 36;
export const SECTION_NAMES = ['docs', 'chunks', 'texts', 'vectors', 'graph', 'bm25'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

/** Everything a v2 file holds: the data plus the two built indexes. */
export interface SnapshotParts {
  data: SnapshotData;
  hnsw: HnswParams;
  /** hnswlib bytes without vectors (hnsw-graph.ts); empty when there are no chunks. */
  graph: Buffer;
  bm25: Bm25Index;
}

const whole = z.number().int().nonnegative();

/** The v2 header (JSON, checksummed with the prelude); decode checks it against this schema. */
export const snapshotHeaderSchema = z.object({
  version: z.number(),
  // Compared field by field with the store's fingerprint when the snapshot is opened.
  fingerprint: z.custom<ModelFingerprint>(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    'an object',
  ),
  dimension: z.number().int().positive(),
  docCount: whole,
  chunkCount: whole,
  hnsw: z.object({
    m: whole,
    efConstruction: whole,
    efSearch: whole,
    randomSeed: whole,
  }) satisfies z.ZodType<HnswParams>,
  sections: z.array(z.object({ name: z.string(), offset: whole, length: whole, sha256: z.string() })),
});
export type SnapshotHeader = z.infer<typeof snapshotHeaderSchema>;

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

function encodeDocs(docs: SnapshotDoc[]): Buffer {
  return Buffer.from(
    JSON.stringify(docs.map((d) => [d.sourceId, d.path, d.sha256, d.size, d.format, d.chunks.length])),
  );
}

function encodeChunks(data: SnapshotData, textLengths: Uint32Array): Buffer {
  const out = Buffer.alloc(countChunks(data) * CHUNK_RECORD);
  let at = 0;
  let ord = 0;
  for (const doc of data.docs) {
    for (const c of doc.chunks) {
      out.write(c.id, at, 8, 'hex');
      out.writeUInt32LE(c.index, at + 8);
      out.writeUInt32LE(c.tokens, at + 12);
      out.writeUInt32LE(c.lineStart ?? 0, at + 16);
      out.writeUInt32LE(c.lineEnd ?? 0, at + 20);
      out.writeUInt32LE(c.pageStart ?? 0, at + 24);
      out.writeUInt32LE(c.pageEnd ?? 0, at + 28);
      out.writeUInt32LE(textLengths[ord++]!, at + 32);
      at += CHUNK_RECORD;
    }
  }
  return out;
}

/**
 * Encode a v2 snapshot. Call `validateSnapshotData` first (buildSnapshot does). Texts and
 * vectors are written straight into the output buffer (the file can be hundreds of MB: one copy).
 */
export function encodeSnapshot(parts: SnapshotParts): Buffer {
  assertLittleEndianHost();
  const { data } = parts;
  const n = countChunks(data);
  const dim = data.dimension;
  const textLengths = new Uint32Array(n);
  let textBytes = 0;
  let ord = 0;
  for (const doc of data.docs) {
    for (const c of doc.chunks) {
      textLengths[ord] = Buffer.byteLength(c.text, 'utf8');
      textBytes += textLengths[ord++]!;
    }
  }
  const bm25 = bm25Pieces(parts.bm25);
  const small: Partial<Record<SectionName, Uint8Array[]>> = {
    docs: [encodeDocs(data.docs)],
    chunks: [encodeChunks(data, textLengths)],
    graph: [parts.graph],
    bm25,
  };
  const lengths: Record<SectionName, number> = {
    docs: small.docs![0]!.length,
    chunks: small.chunks![0]!.length,
    texts: textBytes,
    vectors: n * dim * 4,
    graph: parts.graph.length,
    bm25: bm25.reduce((sum, p) => sum + p.length, 0),
  };
  const layout: { name: SectionName; offset: number; length: number }[] = [];
  let offset = 0;
  for (const name of SECTION_NAMES) {
    offset = align8(offset);
    layout.push({ name, offset, length: lengths[name] });
    offset += lengths[name];
  }
  const bodySize = offset;
  // Digests are fixed-width hex, so the header's length is known before the sections are hashed:
  // lay the file out with placeholder digests, fill and hash the sections in place, then write the
  // real header over the placeholder (same length).
  const headerJson = (digests: string[]) =>
    Buffer.from(
      JSON.stringify({
        version: SNAPSHOT_VERSION,
        fingerprint: JSON.parse(canonicalFingerprint(data.fingerprint)),
        dimension: dim,
        docCount: data.docs.length,
        chunkCount: n,
        hnsw: {
          m: parts.hnsw.m,
          efConstruction: parts.hnsw.efConstruction,
          efSearch: parts.hnsw.efSearch,
          randomSeed: parts.hnsw.randomSeed,
        },
        sections: layout.map((sec, i) => ({ ...sec, sha256: digests[i] })),
      }),
      'utf8',
    );
  const headerLen = headerJson(layout.map(() => '0'.repeat(64))).length;
  const bodyStart = align8(PRELUDE + headerLen);
  const total = bodyStart + bodySize + FOOTER;
  const out = Buffer.allocUnsafe(total);
  let end = PRELUDE + headerLen;
  for (const sec of layout) {
    const at = bodyStart + sec.offset;
    out.fill(0, end, at);
    if (sec.name === 'texts') {
      let w = at;
      for (const doc of data.docs) for (const c of doc.chunks) w += out.write(c.text, w, 'utf8');
      if (w !== at + sec.length) throw new Error('chunk texts changed length while encoding');
    } else if (sec.name === 'vectors') {
      const aligned = (out.byteOffset + at) % 4 === 0;
      const rows = aligned
        ? new Float32Array(out.buffer, out.byteOffset + at, n * dim)
        : new Float32Array(n * dim);
      let o = 0;
      for (const doc of data.docs) for (const c of doc.chunks) rows.set(c.vector, dim * o++);
      if (!aligned) bytesOf(rows).copy(out, at);
    } else {
      let w = at;
      for (const piece of small[sec.name]!) {
        out.set(piece, w);
        w += piece.length;
      }
    }
    end = at + sec.length;
  }
  const header = headerJson(
    layout.map((sec) =>
      sha256(out.subarray(bodyStart + sec.offset, bodyStart + sec.offset + sec.length)).toString('hex'),
    ),
  );
  if (header.length !== headerLen) throw new Error('snapshot header length changed while encoding');
  SNAPSHOT_MAGIC.copy(out, 0);
  out.writeUInt32LE(SNAPSHOT_VERSION, 8);
  out.writeUInt32LE(headerLen, 12);
  header.copy(out, PRELUDE);
  const footer = bodyStart + bodySize;
  sha256(out.subarray(0, PRELUDE + headerLen)).copy(out, footer);
  u64le(total).copy(out, footer + 32);
  FOOTER_MAGIC.copy(out, footer + 40);
  return out;
}
