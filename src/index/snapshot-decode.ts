import { createError } from '../errors.js';
import { firstIssue } from '../util/json-check.js';
import { align8, assertLittleEndianHost, copyF32 } from './binary.js';
import type { Bm25Index } from './bm25.js';
import { decodeBm25 } from './bm25-codec.js';
import { validateSkeleton } from './hnsw-graph.js';
import {
  CHUNK_RECORD,
  FOOTER,
  FOOTER_MAGIC,
  PRELUDE,
  SECTION_NAMES,
  type SectionName,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  type SnapshotHeader,
  sha256,
  snapshotHeaderSchema,
} from './snapshot-format.js';
import { decodeSnapshotV1 } from './snapshot-format-v1.js';
import type { HnswParams, SnapshotChunk, SnapshotData, SnapshotDoc } from './snapshot-types.js';

// Verification and decoding of snapshot files (v3 and v2, which share one layout, and v1 through
// snapshot-format-v1.ts). Pure. A v2 file's lexical section holds the older BM25 (one field, no
// stems): it is verified but not decoded, and the caller rebuilds the lexical index.
// Every check raises SNAPSHOT_CORRUPT naming the file and what is wrong.

export interface DecodedSnapshot {
  version: 1 | 2 | 3;
  data: SnapshotData;
  /** All vectors, row = chunk ordinal (each chunk's `vector` is a view into it). */
  vectors: Float32Array;
  /** v2 and v3 (v1 is rebuilt). */
  hnsw?: HnswParams;
  graph?: Buffer;
  /** v3 only (v1 and v2 are rebuilt). */
  bm25?: Bm25Index;
}

type Fail = (reason: string) => Error;

function failFor(label: string): Fail {
  return (reason) => createError('SNAPSHOT_CORRUPT', { path: label, reason });
}

/** A v2-style footer that checks out: the file is intact whatever its version number says. */
function footerIntact(bytes: Buffer): boolean {
  if (bytes.length < PRELUDE + FOOTER) return false;
  const f = bytes.length - FOOTER;
  const headerLen = bytes.readUInt32LE(12);
  return (
    bytes.subarray(f + 40).equals(FOOTER_MAGIC) &&
    bytes.readBigUInt64LE(f + 32) === BigInt(bytes.length) &&
    PRELUDE + headerLen <= f &&
    sha256(bytes.subarray(0, PRELUDE + headerLen)).equals(bytes.subarray(f, f + 32))
  );
}

/** The version field, after the magic check (v1 and v2 share the 12-byte start). */
export function snapshotVersion(bytes: Buffer, label: string): number {
  if (bytes.length < 12 || !bytes.subarray(0, 8).equals(SNAPSHOT_MAGIC)) {
    throw failFor(label)(
      bytes.length < 12 ? `only ${bytes.length} bytes` : 'not a kortty snapshot (bad magic)',
    );
  }
  const version = bytes.readUInt32LE(8);
  if (version !== 1 && version !== 2 && version !== SNAPSHOT_VERSION) {
    if (footerIntact(bytes)) throw createError('SNAPSHOT_VERSION', { path: label, version });
    throw failFor(label)(`unknown version ${version} and no intact footer`);
  }
  return version;
}

/**
 * Check magic, footer, length, header digest, section table (contiguous, 8-aligned, zero
 * padding, nothing unaccounted for) and every section digest. Every byte of the file is covered:
 * a flipped byte anywhere, truncation or extension raises SNAPSHOT_CORRUPT.
 */
export function verifySnapshotV2(
  bytes: Buffer,
  label: string,
  opts: { sectionDigests?: boolean } = {},
): { header: SnapshotHeader; body: number } {
  const fail = failFor(label);
  if (bytes.length < PRELUDE + FOOTER) throw fail(`truncated: ${bytes.length} bytes`);
  const f = bytes.length - FOOTER;
  if (!bytes.subarray(f + 40).equals(FOOTER_MAGIC)) throw fail('footer missing (truncated or extended?)');
  if (bytes.readBigUInt64LE(f + 32) !== BigInt(bytes.length)) {
    throw fail(`length ${bytes.length} differs from the recorded ${bytes.readBigUInt64LE(f + 32)}`);
  }
  const headerLen = bytes.readUInt32LE(12);
  if (PRELUDE + headerLen > f) throw fail('header length out of range');
  if (!sha256(bytes.subarray(0, PRELUDE + headerLen)).equals(bytes.subarray(f, f + 32))) {
    throw fail('header checksum mismatch');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8', PRELUDE, PRELUDE + headerLen));
  } catch {
    throw fail('header is not JSON');
  }
  const checked = snapshotHeaderSchema.safeParse(raw);
  if (!checked.success) {
    const { field, expected, found } = firstIssue(checked.error, raw);
    throw fail(`header field ${field}: expected ${expected}, found ${found}`);
  }
  const header: SnapshotHeader = checked.data;
  const body = align8(PRELUDE + headerLen);
  const secs = header.sections;
  const version = bytes.readUInt32LE(8);
  if (header.version !== version) throw fail(`header field version: expected ${version}`);
  if (secs.length !== SECTION_NAMES.length)
    throw fail(`header field sections: expected ${SECTION_NAMES.length} entries, found ${secs.length}`);
  let expect = 0;
  for (let i = 0; i < secs.length; i++) {
    const s = secs[i]!;
    if (
      s.name !== SECTION_NAMES[i] ||
      s.offset !== align8(expect) ||
      !Number.isSafeInteger(s.length) ||
      s.length < 0
    ) {
      throw fail(`section table entry ${i} malformed`);
    }
    expect = s.offset + s.length;
  }
  if (body + expect !== f) throw fail('sections do not end at the footer');
  // padding between the header and the body, and between sections, must be zero
  const zero = (from: number, to: number, what: string) => {
    for (let i = from; i < to; i++) if (bytes[i] !== 0) throw fail(`non-zero padding ${what}`);
  };
  zero(PRELUDE + headerLen, body, 'after the header');
  let end = 0;
  for (const s of secs) {
    zero(body + end, body + s.offset, `before section ${s.name}`);
    if (opts.sectionDigests !== false) {
      const digest = sha256(bytes.subarray(body + s.offset, body + s.offset + s.length)).toString('hex');
      if (digest !== s.sha256) throw fail(`section ${s.name} checksum mismatch`);
    }
    end = s.offset + s.length;
  }
  return { header, body };
}

function decodeDocsV2(bytes: Buffer, header: SnapshotHeader, body: number, fail: Fail) {
  const sec = (name: SectionName) => {
    const s = header.sections[SECTION_NAMES.indexOf(name)]!;
    return bytes.subarray(body + s.offset, body + s.offset + s.length);
  };
  const n = header.chunkCount;
  const dim = header.dimension;
  let rows: unknown;
  try {
    rows = JSON.parse(sec('docs').toString('utf8'));
  } catch {
    throw fail('docs section is not JSON');
  }
  if (!Array.isArray(rows) || rows.length !== header.docCount)
    throw fail('docs section does not match the header');
  const chunks = sec('chunks');
  const texts = sec('texts');
  if (chunks.length !== n * CHUNK_RECORD) throw fail('chunks section size does not match the chunk count');
  const vbytes = sec('vectors');
  if (vbytes.length !== n * dim * 4) throw fail('vectors section size does not match chunks x dimension');
  const vectors = copyF32(vbytes, 0, n * dim);
  const docs: SnapshotDoc[] = [];
  let ord = 0;
  let textAt = 0;
  for (const row of rows) {
    const [sourceId, path, sha, size, format, count] = row as unknown[];
    if (
      typeof sourceId !== 'string' ||
      typeof path !== 'string' ||
      typeof sha !== 'string' ||
      typeof size !== 'number' ||
      typeof format !== 'string' ||
      !Number.isInteger(count) ||
      (count as number) < 0 ||
      ord + (count as number) > n
    ) {
      throw fail(`docs entry ${docs.length} malformed`);
    }
    const list: SnapshotChunk[] = [];
    for (let c = 0; c < (count as number); c++, ord++) {
      const at = ord * CHUNK_RECORD;
      const len = chunks.readUInt32LE(at + 32);
      if (textAt + len > texts.length) throw fail('chunk texts run past the texts section');
      const chunk: SnapshotChunk = {
        id: chunks.toString('hex', at, at + 8),
        index: chunks.readUInt32LE(at + 8),
        text: texts.toString('utf8', textAt, textAt + len),
        tokens: chunks.readUInt32LE(at + 12),
        vector: vectors.subarray(ord * dim, (ord + 1) * dim),
      };
      textAt += len;
      const opt = (key: 'lineStart' | 'lineEnd' | 'pageStart' | 'pageEnd', off: number) => {
        const v = chunks.readUInt32LE(at + off);
        if (v !== 0) chunk[key] = v;
      };
      opt('lineStart', 16);
      opt('lineEnd', 20);
      opt('pageStart', 24);
      opt('pageEnd', 28);
      list.push(chunk);
    }
    docs.push({ sourceId, path, sha256: sha, size, format, chunks: list });
  }
  if (ord !== n || textAt !== texts.length) throw fail('chunk counts or text lengths do not add up');
  return { docs, vectors, graph: sec('graph'), bm25: sec('bm25') };
}

/**
 * Verify and decode a v1, v2 or v3 file. v1 comes back without graph and BM25, v2 without BM25
 * (they are rebuilt).
 */
export function decodeSnapshot(bytes: Buffer, label: string): DecodedSnapshot {
  assertLittleEndianHost();
  const version = snapshotVersion(bytes, label);
  if (version === 1) return { version: 1, ...decodeSnapshotV1(bytes, label) };
  const fail = failFor(label);
  const { header, body } = verifySnapshotV2(bytes, label);
  const { docs, vectors, graph, bm25 } = decodeDocsV2(bytes, header, body, fail);
  const n = header.chunkCount;
  if (n > 0 && validateSkeleton(graph, n, header.dimension, fail).m !== header.hnsw.m) {
    throw fail('graph M differs from the header');
  }
  if (n === 0 && graph.length !== 0) throw fail('graph present without chunks');
  return {
    version: version === 2 ? 2 : 3,
    data: { fingerprint: header.fingerprint, dimension: header.dimension, docs },
    vectors,
    hnsw: header.hnsw,
    graph: Buffer.from(graph),
    ...(version === 2 ? {} : { bm25: decodeBm25(bm25, n, fail) }),
  };
}
