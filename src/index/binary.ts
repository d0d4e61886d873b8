// Little-endian byte helpers shared by the snapshot, graph and BM25 codecs. Typed arrays are
// always copied out of file buffers: copies are aligned, and the file buffer can be released.

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** hnswlib writes native-endian bytes and the codecs copy typed arrays raw: little-endian only. */
export function assertLittleEndianHost(): void {
  if (!HOST_LE) throw new Error('kortty-rag snapshots need a little-endian host');
}

export function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Raw bytes of a typed array (a view, no copy). */
export function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function copyU32(buf: Uint8Array, offset: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  new Uint8Array(out.buffer).set(buf.subarray(offset, offset + count * 4));
  return out;
}

export function copyF32(buf: Uint8Array, offset: number, count: number): Float32Array {
  const out = new Float32Array(count);
  new Uint8Array(out.buffer).set(buf.subarray(offset, offset + count * 4));
  return out;
}

/** Unsigned LEB128, for postings (doc-id gaps and term frequencies are small). */
export class VarintWriter {
  private buf: Uint8Array;
  length = 0;
  constructor(initial = 1 << 16) {
    this.buf = new Uint8Array(initial);
  }
  write(v: number): void {
    if (this.length + 5 > this.buf.length) {
      const next = new Uint8Array(this.buf.length * 2);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.length++] = v;
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A bounds-checked cursor; `fail` names what was being read so corruption messages say where. */
export class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    readonly fail: (reason: string) => Error,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }
  need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.end) throw this.fail(`${what} runs past the end of its section`);
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(what: string): number {
    this.need(8, what);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.fail(`${what} is out of range`);
    return Number(v);
  }
  f64(what: string): number {
    this.need(8, what);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  u32s(count: number, what: string): Uint32Array {
    this.need(count * 4, what);
    const v = copyU32(this.buf, this.pos, count);
    this.pos += count * 4;
    return v;
  }
}

export function u32le(v: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(v >>> 0);
  return b;
}

export function u64le(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
}

export function f64le(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeDoubleLE(v);
  return b;
}
