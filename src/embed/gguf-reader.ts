import { createError } from '../errors.js';
import {
  alignUp,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  type GgufFile,
  type GgufKv,
  type GgufScalar,
  type GgufTensorInfo,
  GgufType,
} from './gguf-format.js';

// Pure decoder for the GGUF header (v2 and v3): metadata and tensor infos, never tensor data,
// so a multi-gigabyte model can be inspected from its first few megabytes.

/** Thrown when the buffer ends inside the header; the caller reads more bytes and retries. */
export class GgufNeedMoreData extends Error {
  constructor(readonly needed: number) {
    super(`GGUF header needs at least ${needed} bytes`);
  }
}

const MAX_DIMS = 4;

/** Smallest encoding of one value of each type: what a count must leave room for. */
function minItemBytes(type: number): number {
  switch (type) {
    case GgufType.UINT8:
    case GgufType.INT8:
    case GgufType.BOOL:
      return 1;
    case GgufType.UINT16:
    case GgufType.INT16:
      return 2;
    case GgufType.UINT32:
    case GgufType.INT32:
    case GgufType.FLOAT32:
      return 4;
    default:
      // u64/i64/f64, and a string's u64 length prefix.
      return 8;
  }
}

class Cursor {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly label: string,
    readonly fileSize: number,
  ) {}
  /**
   * Refuses a count of `n` items of at least `each` bytes that cannot fit in what is left of the
   * file, before anything is allocated or read for them.
   */
  fits(n: number, each: number, what: string): void {
    const left = this.fileSize - this.pos;
    if (n * each > left)
      throw invalid(this.label, `${what} ${n} cannot fit in the remaining ${left} bytes of the file`);
  }
  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new GgufNeedMoreData(this.pos + n);
  }
  u8() {
    this.need(1);
    return this.buf.readUInt8(this.pos++);
  }
  u32() {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A u64 that must fit a JS number (counts, lengths, offsets). */
  size(what: string): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw invalid(
        this.label,
        `${what} ${v} cannot fit in the remaining ${this.fileSize - this.pos} bytes of the file`,
      );
    return Number(v);
  }
  string(what: string): string {
    const len = this.size(`${what} length`);
    this.fits(len, 1, `${what} length`);
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
}

function invalid(label: string, reason: string) {
  return createError('GGUF_INVALID', { path: label, reason });
}

function readScalar(c: Cursor, type: number, key: string): GgufScalar {
  const b = c.buf;
  const at = (n: number) => {
    c.need(n);
    const p = c.pos;
    c.pos += n;
    return p;
  };
  switch (type) {
    case GgufType.UINT8:
      return b.readUInt8(at(1));
    case GgufType.INT8:
      return b.readInt8(at(1));
    case GgufType.UINT16:
      return b.readUInt16LE(at(2));
    case GgufType.INT16:
      return b.readInt16LE(at(2));
    case GgufType.UINT32:
      return b.readUInt32LE(at(4));
    case GgufType.INT32:
      return b.readInt32LE(at(4));
    case GgufType.FLOAT32:
      return b.readFloatLE(at(4));
    case GgufType.BOOL: {
      const v = b.readUInt8(at(1));
      if (v > 1) throw invalid(c.label, `key ${key}: bool byte ${v}`);
      return v === 1;
    }
    case GgufType.STRING:
      return c.string(`key ${key} value`);
    case GgufType.UINT64:
      return b.readBigUInt64LE(at(8));
    case GgufType.INT64:
      return b.readBigInt64LE(at(8));
    case GgufType.FLOAT64:
      return b.readDoubleLE(at(8));
    default:
      throw invalid(c.label, `key ${key}: unknown value type ${type}`);
  }
}

function readKv(c: Cursor): GgufKv {
  const key = c.string('key');
  const type = c.u32();
  if (type !== GgufType.ARRAY) {
    return { key, type, value: readScalar(c, type, key) } as GgufKv;
  }
  const itemType = c.u32();
  if (itemType === GgufType.ARRAY) throw invalid(c.label, `key ${key}: nested arrays are not supported`);
  const n = c.size(`key ${key}: array length`);
  // A length the rest of the file cannot hold is corrupt, not "need more".
  c.fits(n, minItemBytes(itemType), `key ${key}: array length`);
  const value: GgufScalar[] = new Array(n);
  for (let i = 0; i < n; i++) value[i] = readScalar(c, itemType, key);
  return { key, type, itemType, value } as GgufKv;
}

export interface ParseOptions {
  /** Name used in error messages. */
  label?: string;
  /** Total file size when `buf` holds only a prefix (bounds sanity checks). */
  fileSize?: number;
}

/** Decode a GGUF header from `buf` (the whole file or a prefix of it). */
export function parseGguf(buf: Buffer, opts: ParseOptions = {}): GgufFile {
  const label = opts.label ?? 'GGUF data';
  const fileSize = opts.fileSize ?? buf.length;
  try {
    return parseHeader(buf, label, fileSize);
  } catch (err) {
    // Only a prefix can be too short; a complete buffer that ends early is a truncated file.
    if (err instanceof GgufNeedMoreData && (buf.length >= fileSize || err.needed > fileSize)) {
      throw invalid(label, `file ends inside the header (${fileSize} bytes)`);
    }
    throw err;
  }
}

function parseHeader(buf: Buffer, label: string, fileSize: number): GgufFile {
  const c = new Cursor(buf, label, fileSize);
  if (buf.length >= 4 && buf.readUInt32LE(0) !== GGUF_MAGIC)
    throw invalid(label, 'bad magic (not a GGUF file)');
  c.u32();
  const version = c.u32();
  if (version === 1) throw invalid(label, 'GGUF version 1 is not supported');
  if (version !== 2 && version !== 3) {
    throw invalid(
      label,
      version > 0xffff ? 'big-endian GGUF is not supported' : `unknown version ${version}`,
    );
  }
  const nTensors = c.size('tensor count');
  const nKv = c.size('metadata count');
  // A metadata entry takes at least 13 bytes (key length, type, one byte), a tensor info 32.
  c.fits(nKv, 13, 'metadata count');
  c.fits(nTensors, 32, 'tensor count');
  const metadata: GgufKv[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < nKv; i++) {
    const kv = readKv(c);
    if (seen.has(kv.key)) throw invalid(label, `duplicate key ${kv.key}`);
    seen.add(kv.key);
    metadata.push(kv);
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = c.string('tensor name');
    const nDims = c.u32();
    if (nDims < 1 || nDims > MAX_DIMS) throw invalid(label, `tensor ${name}: ${nDims} dimensions`);
    c.fits(nDims, 8, `tensor ${name}: dimension count`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(c.size(`tensor ${name} dimension`));
    const type = c.u32();
    const offset = c.size(`tensor ${name} offset`);
    tensors.push({ name, dims, type, offset });
  }
  const alignKv = metadata.find((kv) => kv.key === 'general.alignment');
  let alignment = GGUF_DEFAULT_ALIGNMENT;
  if (alignKv) {
    if (alignKv.type !== GgufType.UINT32 || typeof alignKv.value !== 'number' || alignKv.value === 0) {
      throw invalid(label, 'general.alignment must be a non-zero u32');
    }
    alignment = alignKv.value;
  }
  for (const t of tensors) {
    if (t.offset % alignment !== 0)
      throw invalid(label, `tensor ${t.name}: offset ${t.offset} is not aligned`);
  }
  return { version, metadata, tensors, alignment, dataOffset: alignUp(c.pos, alignment) };
}
