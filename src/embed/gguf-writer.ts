import { createError } from '../errors.js';
import {
  alignUp,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  GgmlType,
  type GgufKv,
  type GgufScalar,
  GgufType,
  tensorByteSize,
} from './gguf-format.js';

// Pure GGUF v3 encoder. The output depends only on the input (no clocks, no randomness, zeroed
// padding), so the same model parameters always give byte-identical files.

export type GgufTensorInput =
  | { name: string; dims: number[]; type: GgmlType.F32 | GgmlType.F16; data: Float32Array }
  | { name: string; dims: number[]; type: number; bytes: Uint8Array };

export interface GgufWriteInput {
  metadata: GgufKv[];
  tensors: GgufTensorInput[];
  /** Tensor data alignment; anything but 32 is recorded as `general.alignment`. */
  alignment?: number;
}

const bad = (reason: string) => createError('INVALID_ARGUMENT', { name: 'gguf', reason });

class Sink {
  private chunks: Buffer[] = [];
  length = 0;
  push(b: Buffer) {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  u64(v: number | bigint) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  string(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(alignment: number) {
    const n = alignUp(this.length, alignment) - this.length;
    if (n > 0) this.push(Buffer.alloc(n));
  }
  concat() {
    return Buffer.concat(this.chunks, this.length);
  }
}

function int(v: GgufScalar, key: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw bad(`key ${key}: ${String(v)} is not an integer in ${min}..${max}`);
  }
  return v;
}

function big(v: GgufScalar, key: string, signed: boolean): bigint {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined;
  const ok = b !== undefined && (signed ? BigInt.asIntN(64, b) === b : BigInt.asUintN(64, b) === b);
  if (!ok) throw bad(`key ${key}: ${String(v)} is not a ${signed ? 'signed' : 'unsigned'} 64-bit integer`);
  return b;
}

function writeScalar(s: Sink, type: GgufType, v: GgufScalar, key: string) {
  let b: Buffer;
  switch (type) {
    case GgufType.UINT8:
      b = Buffer.from([int(v, key, 0, 0xff)]);
      break;
    case GgufType.INT8:
      b = Buffer.alloc(1);
      b.writeInt8(int(v, key, -0x80, 0x7f));
      break;
    case GgufType.UINT16:
      b = Buffer.alloc(2);
      b.writeUInt16LE(int(v, key, 0, 0xffff));
      break;
    case GgufType.INT16:
      b = Buffer.alloc(2);
      b.writeInt16LE(int(v, key, -0x8000, 0x7fff));
      break;
    case GgufType.UINT32:
      b = Buffer.alloc(4);
      b.writeUInt32LE(int(v, key, 0, 0xffffffff));
      break;
    case GgufType.INT32:
      b = Buffer.alloc(4);
      b.writeInt32LE(int(v, key, -0x80000000, 0x7fffffff));
      break;
    case GgufType.FLOAT32:
    case GgufType.FLOAT64:
      if (typeof v !== 'number') throw bad(`key ${key}: ${String(v)} is not a number`);
      b = Buffer.alloc(type === GgufType.FLOAT32 ? 4 : 8);
      if (type === GgufType.FLOAT32) b.writeFloatLE(v);
      else b.writeDoubleLE(v);
      break;
    case GgufType.BOOL:
      if (typeof v !== 'boolean') throw bad(`key ${key}: ${String(v)} is not a boolean`);
      b = Buffer.from([v ? 1 : 0]);
      break;
    case GgufType.STRING:
      if (typeof v !== 'string') throw bad(`key ${key}: value is not a string`);
      s.string(v);
      return;
    case GgufType.UINT64:
    case GgufType.INT64:
      b = Buffer.alloc(8);
      if (type === GgufType.UINT64) b.writeBigUInt64LE(big(v, key, false));
      else b.writeBigInt64LE(big(v, key, true));
      break;
    default:
      throw bad(`key ${key}: unknown value type ${type}`);
  }
  s.push(b);
}

function withAlignment(metadata: GgufKv[], alignment: number): GgufKv[] {
  const existing = metadata.find((kv) => kv.key === 'general.alignment');
  if (existing) {
    if (existing.type !== GgufType.UINT32 || existing.value !== alignment) {
      throw bad(`general.alignment must be the u32 ${alignment}`);
    }
    return metadata;
  }
  if (alignment === GGUF_DEFAULT_ALIGNMENT) return metadata;
  return [...metadata, { key: 'general.alignment', type: GgufType.UINT32, value: alignment }];
}

function tensorBytes(t: GgufTensorInput): Uint8Array {
  const elements = t.dims.reduce((a, b) => a * b, 1);
  if ('bytes' in t) {
    const expected = tensorByteSize(t.type, t.dims);
    if (expected !== undefined && expected !== t.bytes.length) {
      throw bad(`tensor ${t.name}: ${t.bytes.length} bytes, expected ${expected}`);
    }
    return t.bytes;
  }
  if (t.data.length !== elements)
    throw bad(`tensor ${t.name}: ${t.data.length} values for ${t.dims.join('x')}`);
  if (t.type === GgmlType.F32) {
    const b = Buffer.alloc(elements * 4);
    for (let i = 0; i < elements; i++) b.writeFloatLE(t.data[i]!, i * 4);
    return b;
  }
  const b = Buffer.alloc(elements * 2);
  for (let i = 0; i < elements; i++) b.writeUInt16LE(f32ToF16(t.data[i]!), i * 2);
  return b;
}

/** Encode a complete GGUF v3 file. */
export function encodeGguf(input: GgufWriteInput): Buffer {
  const alignment = input.alignment ?? GGUF_DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment < 1 || alignment % 8 !== 0) {
    throw bad(`alignment ${alignment} must be a positive multiple of 8`);
  }
  const metadata = withAlignment(input.metadata, alignment);
  const keys = new Set<string>();
  const names = new Set<string>();
  for (const kv of metadata) {
    if (keys.has(kv.key)) throw bad(`duplicate key ${kv.key}`);
    keys.add(kv.key);
  }
  const s = new Sink();
  s.u32(GGUF_MAGIC);
  s.u32(GGUF_VERSION);
  s.u64(input.tensors.length);
  s.u64(metadata.length);
  for (const kv of metadata) {
    s.string(kv.key);
    s.u32(kv.type);
    if (kv.type === GgufType.ARRAY) {
      s.u32(kv.itemType);
      s.u64(kv.value.length);
      for (const v of kv.value) writeScalar(s, kv.itemType, v, kv.key);
    } else {
      writeScalar(s, kv.type, kv.value, kv.key);
    }
  }
  const datas = input.tensors.map(tensorBytes);
  let offset = 0;
  input.tensors.forEach((t, i) => {
    if (names.has(t.name)) throw bad(`duplicate tensor ${t.name}`);
    names.add(t.name);
    if (t.dims.length < 1 || t.dims.length > 4 || t.dims.some((d) => !Number.isInteger(d) || d < 1)) {
      throw bad(`tensor ${t.name}: bad dimensions ${t.dims.join('x')}`);
    }
    s.string(t.name);
    s.u32(t.dims.length);
    for (const d of t.dims) s.u64(d);
    s.u32(t.type);
    s.u64(offset);
    offset = alignUp(offset + datas[i]!.length, alignment);
  });
  s.pad(alignment);
  for (const d of datas) {
    s.push(Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    s.pad(alignment);
  }
  return s.concat();
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary32 → binary16 bits, round to nearest even (what numpy and ggml do). */
export function f32ToF16(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && m & 1)) m++;
    return sign | m;
  }
  const rest = mant & 0x1fff;
  let m = mant >>> 13;
  if (rest > 0x1000 || (rest === 0x1000 && m & 1)) {
    m++;
    if (m === 0x400) {
      m = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

/** binary16 bits → number. */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}
