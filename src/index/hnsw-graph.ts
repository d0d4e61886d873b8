// hnswlib's index file format (hnswalg.h saveIndex, x86-64/arm64: size_t = 8 bytes, LE), and the
// "graph skeleton" a v2 snapshot stores: the same bytes minus each element's vector, which the
// snapshot already holds in its vectors section (stored once; restored at load). Pure.
//
//   header (96 bytes): offsetLevel0 u64 | maxElements u64 | count u64 | sizeDataPerElement u64 |
//     labelOffset u64 | offsetData u64 | maxLevel i32 | enterPoint u32 | maxM u64 | maxM0 u64 |
//     M u64 | mult f64 | efConstruction u64
//   level 0 (count × sizeDataPerElement): [links: u32 count (low 16 bits; byte 2 = deleted flag)
//     + maxM0 × u32][vector: dim × f32, normalised][label: u64]
//   upper levels, per element: linkListSize u32 | linkListSize bytes (level × (u32 count + maxM × u32))
//
// hnswlib loads this without checking neighbour ids, so a damaged file reads out of bounds or
// silently returns wrong neighbours: the snapshot's checksums catch damage, and
// `validateSkeleton` checks the structure so even an undetected encoder bug cannot crash the process.

export const HNSW_HEADER_BYTES = 96;

export interface HnswHeader {
  offsetLevel0: number;
  maxElements: number;
  count: number;
  sizeDataPerElement: number;
  labelOffset: number;
  offsetData: number;
  maxLevel: number;
  enterPoint: number;
  maxM: number;
  maxM0: number;
  m: number;
  mult: number;
  efConstruction: number;
}

function u64(buf: Buffer, at: number): number {
  const v = buf.readBigUInt64LE(at);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.NaN : Number(v);
}

export function parseHnswHeader(buf: Buffer): HnswHeader {
  if (buf.length < HNSW_HEADER_BYTES) throw new Error(`graph of ${buf.length} bytes has no header`);
  return {
    offsetLevel0: u64(buf, 0),
    maxElements: u64(buf, 8),
    count: u64(buf, 16),
    sizeDataPerElement: u64(buf, 24),
    labelOffset: u64(buf, 32),
    offsetData: u64(buf, 40),
    maxLevel: buf.readInt32LE(48),
    enterPoint: buf.readUInt32LE(52),
    maxM: u64(buf, 56),
    maxM0: u64(buf, 64),
    m: u64(buf, 72),
    mult: buf.readDoubleLE(80),
    efConstruction: u64(buf, 88),
  };
}

/** The full hnswlib file's length for a header, given the upper-level bytes. */
function level0Bytes(h: HnswHeader): number {
  return h.count * h.sizeDataPerElement;
}

/** Drop each element's vector from hnswlib's bytes. */
export function stripVectors(full: Buffer, dim: number): Buffer {
  const h = parseHnswHeader(full);
  const vecBytes = dim * 4;
  const keep = h.sizeDataPerElement - vecBytes;
  const upperStart = HNSW_HEADER_BYTES + level0Bytes(h);
  const upper = full.length - upperStart;
  const out = Buffer.allocUnsafe(HNSW_HEADER_BYTES + h.count * keep + upper);
  full.copy(out, 0, 0, HNSW_HEADER_BYTES);
  let w = HNSW_HEADER_BYTES;
  for (let i = 0; i < h.count; i++) {
    const e = HNSW_HEADER_BYTES + i * h.sizeDataPerElement;
    w += full.copy(out, w, e, e + h.offsetData);
    w += full.copy(out, w, e + h.labelOffset, e + h.sizeDataPerElement);
  }
  full.copy(out, w, upperStart);
  return out;
}

/**
 * hnswlib-node's cosine normalisation (addon.cc normalizePoint: float32 inner product summed in
 * order, sqrt, divide), emulated with Math.fround so restored bytes equal what hnswlib wrote.
 */
export function normalizeLikeHnswlib(src: Float32Array, out: Float32Array): void {
  let acc = 0;
  for (let d = 0; d < src.length; d++) acc = Math.fround(acc + Math.fround(src[d]! * src[d]!));
  const norm = Math.fround(Math.sqrt(Math.abs(acc)));
  if (norm > 0) for (let d = 0; d < src.length; d++) out[d] = src[d]! / norm;
  else out.set(src);
}

/** Re-insert normalised vectors into a skeleton: the bytes hnswlib's readIndex expects. */
export function restoreVectors(skeleton: Buffer, vectors: Float32Array, dim: number): Buffer {
  const h = parseHnswHeader(skeleton);
  const vecBytes = dim * 4;
  const keep = h.sizeDataPerElement - vecBytes;
  const upperStart = HNSW_HEADER_BYTES + h.count * keep;
  const out = Buffer.allocUnsafe(HNSW_HEADER_BYTES + level0Bytes(h) + (skeleton.length - upperStart));
  skeleton.copy(out, 0, 0, HNSW_HEADER_BYTES);
  const unit = new Float32Array(dim);
  const unitBytes = Buffer.from(unit.buffer);
  let r = HNSW_HEADER_BYTES;
  for (let i = 0; i < h.count; i++) {
    const e = HNSW_HEADER_BYTES + i * h.sizeDataPerElement;
    r += skeleton.copy(out, e, r, r + h.offsetData);
    normalizeLikeHnswlib(vectors.subarray(i * dim, (i + 1) * dim), unit);
    unitBytes.copy(out, e + h.offsetData);
    r += skeleton.copy(out, e + h.labelOffset, r, r + (h.sizeDataPerElement - h.labelOffset));
  }
  skeleton.copy(out, HNSW_HEADER_BYTES + level0Bytes(h), upperStart);
  return out;
}

function checkLinks(
  buf: Buffer,
  at: number,
  max: number,
  count: number,
  fail: (r: string) => Error,
  what: string,
) {
  const n = buf.readUInt16LE(at);
  if (n > max) throw fail(`${what}: ${n} links exceed ${max}`);
  for (let j = 0; j < n; j++) {
    if (buf.readUInt32LE(at + 4 + j * 4) >= count) throw fail(`${what}: link out of range`);
  }
}

/**
 * Check a skeleton against the snapshot it belongs to: header consistent with the dimension and
 * chunk count, every link count within M, every neighbour id and label in range, exact length.
 */
export function validateSkeleton(
  skel: Buffer,
  count: number,
  dim: number,
  fail: (reason: string) => Error,
): HnswHeader {
  if (skel.length < HNSW_HEADER_BYTES) throw fail('graph: shorter than its header');
  const h = parseHnswHeader(skel);
  const vecBytes = dim * 4;
  const ok =
    h.offsetLevel0 === 0 &&
    h.count === count &&
    h.maxElements === count &&
    h.m >= 2 &&
    h.m <= 1024 &&
    h.maxM === h.m &&
    h.maxM0 === 2 * h.m &&
    h.offsetData === h.maxM0 * 4 + 4 &&
    h.labelOffset === h.offsetData + vecBytes &&
    h.sizeDataPerElement === h.labelOffset + 8 &&
    h.maxLevel >= 0 &&
    h.maxLevel < 64 &&
    h.enterPoint < count &&
    Number.isFinite(h.mult) &&
    Number.isSafeInteger(h.efConstruction);
  if (!ok) throw fail('graph: header does not match the snapshot');
  const keep = h.sizeDataPerElement - vecBytes;
  let at = HNSW_HEADER_BYTES;
  if (skel.length < at + count * keep) throw fail('graph: level 0 truncated');
  for (let i = 0; i < count; i++, at += keep) {
    checkLinks(skel, at, h.maxM0, count, fail, `graph element ${i} level 0`);
    if (skel.readBigUInt64LE(at + h.offsetData) !== BigInt(i))
      throw fail(`graph element ${i}: label mismatch`);
  }
  const perLevel = h.maxM * 4 + 4;
  let enterLevel = 0;
  for (let i = 0; i < count; i++) {
    if (at + 4 > skel.length) throw fail('graph: upper levels truncated');
    const size = skel.readUInt32LE(at);
    at += 4;
    const levels = size / perLevel;
    if (!Number.isInteger(levels) || levels > h.maxLevel || at + size > skel.length) {
      throw fail(`graph element ${i}: bad upper-level size`);
    }
    for (let l = 0; l < levels; l++)
      checkLinks(skel, at + l * perLevel, h.maxM, count, fail, `graph element ${i}`);
    if (i === h.enterPoint) enterLevel = levels;
    at += size;
  }
  if (at !== skel.length) throw fail('graph: trailing bytes');
  if (enterLevel !== h.maxLevel) throw fail('graph: entry point is not on the top level');
  return h;
}
