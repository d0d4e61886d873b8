// A ZIP archive's central directory (pure): names, methods and the sizes each entry declares, so
// a .docx can be judged before anything is inflated. ZIP64 sizes and offsets are read too.
// Format: PKWARE APPNOTE.TXT sections 4.3.12 (central directory), 4.3.14-16 (end records), 4.5.3
// (ZIP64 extra field).

export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
}

/** `invalid`: not a readable archive; `too-large`: it declares or inflates beyond the caps. */
export class ZipError extends Error {
  constructor(
    readonly kind: 'invalid' | 'too-large',
    message: string,
  ) {
    super(message);
    this.name = 'ZipError';
  }
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

const invalid = (why: string) => new ZipError('invalid', why);

function view(buf: Uint8Array): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

function u64(v: DataView, at: number): number {
  const n = v.getBigUint64(at, true);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('a ZIP64 size or offset is out of range');
  return Number(n);
}

function findEnd(v: DataView): number {
  // The end record is 22 bytes plus a comment of at most 65,535 bytes.
  const last = v.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - MAX16; at--) {
    if (v.getUint32(at, true) === EOCD && at + 22 + v.getUint16(at + 20, true) <= v.byteLength) return at;
  }
  throw invalid('no end of central directory record (not a ZIP archive, or truncated)');
}

export function readZipDirectory(buf: Uint8Array, maxEntries: number): ZipEntry[] {
  const v = view(buf);
  if (v.byteLength < 22) throw invalid('too short to be a ZIP archive');
  const end = findEnd(v);
  let count = v.getUint16(end + 10, true);
  let size = v.getUint32(end + 12, true);
  let offset = v.getUint32(end + 16, true);
  if (count === MAX16 || size === MAX32 || offset === MAX32) {
    const loc = end - 20;
    if (loc < 0 || v.getUint32(loc, true) !== ZIP64_LOCATOR) throw invalid('ZIP64 locator missing');
    const at = u64(v, loc + 8);
    if (at + 56 > v.byteLength || v.getUint32(at, true) !== ZIP64_EOCD)
      throw invalid('ZIP64 end record missing');
    count = u64(v, at + 32);
    size = u64(v, at + 40);
    offset = u64(v, at + 48);
  }
  if (count > maxEntries) throw new ZipError('too-large', `${count} entries (more than ${maxEntries})`);
  if (offset + size > v.byteLength) throw invalid('the central directory lies outside the file');
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > offset + size || v.getUint32(at, true) !== CENTRAL)
      throw invalid(`central directory entry ${i + 1} is damaged`);
    const nameLen = v.getUint16(at + 28, true);
    const extraLen = v.getUint16(at + 30, true);
    const commentLen = v.getUint16(at + 32, true);
    const next = at + 46 + nameLen + extraLen + commentLen;
    if (next > offset + size) throw invalid(`central directory entry ${i + 1} runs past the directory`);
    const e: ZipEntry = {
      name: Buffer.from(buf.subarray(at + 46, at + 46 + nameLen)).toString('utf8'),
      flags: v.getUint16(at + 8, true),
      method: v.getUint16(at + 10, true),
      crc32: v.getUint32(at + 16, true),
      compressedSize: v.getUint32(at + 20, true),
      uncompressedSize: v.getUint32(at + 24, true),
      localOffset: v.getUint32(at + 42, true),
    };
    readZip64Extra(v, at + 46 + nameLen, extraLen, e);
    entries.push(e);
    at = next;
  }
  return entries;
}

/** ZIP64 extended information: 8-byte values for the fields whose 4-byte value is 0xFFFFFFFF. */
function readZip64Extra(v: DataView, start: number, len: number, e: ZipEntry): void {
  const wants = [e.uncompressedSize === MAX32, e.compressedSize === MAX32, e.localOffset === MAX32] as const;
  if (!wants.some(Boolean)) return;
  for (let at = start; at + 4 <= start + len; ) {
    const id = v.getUint16(at, true);
    const size = v.getUint16(at + 2, true);
    if (id === 0x0001) {
      let p = at + 4;
      const take = () => {
        if (p + 8 > at + 4 + size) throw invalid(`${e.name}: ZIP64 extra field too short`);
        const n = u64(v, p);
        p += 8;
        return n;
      };
      if (wants[0]) e.uncompressedSize = take();
      if (wants[1]) e.compressedSize = take();
      if (wants[2]) e.localOffset = take();
      return;
    }
    at += 4 + size;
  }
  throw invalid(`${e.name}: ZIP64 sizes without their extra field`);
}

/** The compressed bytes of one entry (located through its local header). */
export function entryData(buf: Uint8Array, e: ZipEntry): Uint8Array {
  const v = view(buf);
  const at = e.localOffset;
  if (at + 30 > v.byteLength || v.getUint32(at, true) !== LOCAL)
    throw invalid(`${e.name}: local header missing`);
  const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
  if (start + e.compressedSize > v.byteLength) throw invalid(`${e.name}: data runs past the end of the file`);
  return buf.subarray(start, start + e.compressedSize);
}

/** A ZIP archive of stored (uncompressed) entries. */
export function buildStoredZip(files: readonly { name: string; data: Uint8Array; crc32: number }[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt32LE(f.crc32, 14);
    local.writeUInt32LE(f.data.length, 18);
    local.writeUInt32LE(f.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(CENTRAL, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt32LE(f.crc32, 16);
    c.writeUInt32LE(f.data.length, 20);
    c.writeUInt32LE(f.data.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength));
    central.push(c, name);
    offset += 30 + name.length + f.data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}
