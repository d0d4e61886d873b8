import zlib from 'node:zlib';
import { createError } from '../errors.js';
import { bytesOf, copyF32, copyU32, u32le } from './binary.js';
import { exactSearch, vectorNorms } from './exact-search.js';
import { countChunks, type SnapshotChunk, type SnapshotData, type SnapshotDoc } from './snapshot-types.js';

// The old format (v1): one JSON block with documents and chunk texts, the raw vectors, and a
// single-layer graph (a flat list of each chunk's `degree` nearest neighbours, searched greedily),
// closed by a CRC-32 of everything before it. Kept so stores written by it still open: reading
// one rebuilds a v2 snapshot (hierarchical HNSW + BM25) and promotes it. The encoder exists for
// tests and for the promotion benchmark. Grammar: STORAGE.md.
//
//   v1 := "KRTYSNAP" version:u32le=1 metaLength:u32le meta:u8[metaLength]
//         vectors:f32le[chunkCount*dimension] neighbours:u32le[chunkCount*degree] crc32:u32le
//   meta := JSON {dimension, degree, chunkCount, fingerprint, docs: [{sourceId, path, sha256, size,
//           format, chunks: [{id, index, text, tokens, lineStart?, lineEnd?, pageStart?, pageEnd?}]}]}
//   neighbours: 0xffffffff pads a list shorter than degree

const MAGIC = Buffer.from('KRTYSNAP', 'latin1');
const NONE = 0xffffffff;

function crc32(buf: Uint8Array): number {
  const native = (zlib as unknown as { crc32?: (b: Uint8Array) => number }).crc32;
  if (native) return native(buf) >>> 0;
  let c = ~0;
  for (let i = 0; i < buf.length; i++) {
    c ^= buf[i]!;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** Encode `data` in the old format; the flat graph is exact k-NN (O(n^2): small stores only). */
export function encodeSnapshotV1(data: SnapshotData, degree = 8): Buffer {
  const n = countChunks(data);
  const dim = data.dimension;
  const vectors = new Float32Array(n * dim);
  const docs = data.docs.map((d) => ({
    sourceId: d.sourceId,
    path: d.path,
    sha256: d.sha256,
    size: d.size,
    format: d.format,
    chunks: d.chunks.map(({ vector: _v, ...rest }) => rest),
  }));
  let ord = 0;
  for (const d of data.docs) for (const c of d.chunks) vectors.set(c.vector, dim * ord++);
  const norms = vectorNorms(vectors, dim);
  const neighbours = new Uint32Array(n * degree).fill(NONE);
  for (let i = 0; i < n; i++) {
    const hits = exactSearch(vectors, vectors.subarray(i * dim, (i + 1) * dim), degree + 1, { norms });
    let j = 0;
    for (const h of hits)
      if (h.chunkOrdinal !== i && j < degree) neighbours[i * degree + j++] = h.chunkOrdinal;
  }
  const meta = Buffer.from(
    JSON.stringify({ dimension: dim, degree, chunkCount: n, fingerprint: data.fingerprint, docs }),
  );
  const body = Buffer.concat([
    MAGIC,
    u32le(1),
    u32le(meta.length),
    meta,
    bytesOf(vectors),
    bytesOf(neighbours),
  ]);
  return Buffer.concat([body, u32le(crc32(body))]);
}

/** Verify (CRC, structure) and decode a v1 file. */
export function decodeSnapshotV1(bytes: Buffer, label: string) {
  const fail = (reason: string) => createError('SNAPSHOT_CORRUPT', { path: label, reason: `v1: ${reason}` });
  if (bytes.length < 20) throw fail(`truncated: ${bytes.length} bytes`);
  if (!bytes.subarray(0, 8).equals(MAGIC) || bytes.readUInt32LE(8) !== 1) throw fail('bad magic or version');
  const end = bytes.length - 4;
  if (crc32(bytes.subarray(0, end)) !== bytes.readUInt32LE(end)) throw fail('checksum mismatch');
  const metaLen = bytes.readUInt32LE(12);
  if (16 + metaLen > end) throw fail('metadata length out of range');
  let meta: { dimension: number; degree: number; chunkCount: number; fingerprint: unknown; docs: unknown };
  try {
    meta = JSON.parse(bytes.toString('utf8', 16, 16 + metaLen));
  } catch {
    throw fail('metadata is not JSON');
  }
  const { dimension: dim, degree, chunkCount: n } = meta;
  if (
    !Number.isInteger(dim) ||
    dim < 1 ||
    !Number.isInteger(degree) ||
    degree < 0 ||
    !Number.isInteger(n) ||
    n < 0 ||
    typeof meta.fingerprint !== 'object' ||
    !Array.isArray(meta.docs)
  ) {
    throw fail('metadata fields missing or malformed');
  }
  const vecAt = 16 + metaLen;
  const nbAt = vecAt + n * dim * 4;
  if (nbAt + n * degree * 4 !== end) throw fail('sizes do not add up');
  const vectors = copyF32(bytes, vecAt, n * dim);
  const neighbours = copyU32(bytes, nbAt, n * degree);
  for (const v of neighbours) if (v !== NONE && v >= n) throw fail('neighbour out of range');
  let ord = 0;
  const docs: SnapshotDoc[] = (meta.docs as SnapshotDoc[]).map((d) => {
    if (!d || typeof d.path !== 'string' || typeof d.sourceId !== 'string' || !Array.isArray(d.chunks)) {
      throw fail('document entry malformed');
    }
    return {
      sourceId: d.sourceId,
      path: d.path,
      sha256: d.sha256,
      size: d.size,
      format: d.format,
      chunks: d.chunks.map((c: Omit<SnapshotChunk, 'vector'>) => {
        if (ord >= n || typeof c.text !== 'string') throw fail('chunk entry malformed or too many chunks');
        const o = ord++;
        return { ...c, vector: vectors.subarray(o * dim, (o + 1) * dim) };
      }),
    };
  });
  if (ord !== n) throw fail('chunk count does not match');
  return {
    data: { fingerprint: meta.fingerprint as SnapshotData['fingerprint'], dimension: dim, docs },
    vectors,
    degree,
    neighbours,
  };
}
