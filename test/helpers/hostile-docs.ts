import * as zlib from 'node:zlib';

// Hostile documents for extraction tests and the reliability suite: HTML nested thousands of
// levels deep, and .docx zip bombs (about 1 MB on disk, a gigabyte or more inflated) that either
// declare their true size or lie about it. Built in memory; nothing binary in the repository.

/** `levels` nested inline elements around one word (the HTML converter recurses per level). */
export function deepHtml(levels = 6000): string {
  return `<html><body><p>before</p>${'<b>'.repeat(levels)}deep${'</b>'.repeat(levels)}</body></html>`;
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ' +
  'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" ' +
  'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" ' +
  'Target="word/document.xml"/></Relationships>';

interface Part {
  name: string;
  packed: Buffer;
  crc: number;
  size: number;
}

const crc32 = (zlib as unknown as { crc32?: (d: Uint8Array, prev?: number) => number }).crc32;

function part(name: string, text: string): Part {
  const data = Buffer.from(text, 'utf8');
  return { name, packed: zlib.deflateRawSync(data), crc: crc32?.(data) ?? 0, size: data.length };
}

/**
 * `bytes` of one repeated byte, deflated without ever holding them inflated: one piece deflated
 * with a sync flush (byte-aligned, not final) repeated, then an empty final block. Deflate
 * streams concatenate that way.
 */
function deflatedRun(bytes: number, fill = 0x20): { packed: Buffer; crc: number } {
  const PIECE = 16 * 1024 * 1024;
  const chunk = Buffer.alloc(Math.min(bytes, PIECE), fill);
  const packedPiece = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const out: Buffer[] = [];
  let crc = 0;
  let left = bytes;
  for (; left >= chunk.length; left -= chunk.length) {
    out.push(packedPiece);
    crc = crc32?.(chunk, crc) ?? 0;
  }
  const tail = chunk.subarray(0, left);
  out.push(zlib.deflateRawSync(tail, { level: 9 }));
  crc = crc32?.(tail, crc) ?? 0;
  return { packed: Buffer.concat(out), crc };
}

function zip(parts: Part[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(p.crc, 14);
    local.writeUInt32LE(p.packed.length, 18);
    local.writeUInt32LE(p.size, 22);
    local.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(p.crc, 16);
    c.writeUInt32LE(p.packed.length, 20);
    c.writeUInt32LE(p.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(local, name, p.packed);
    centrals.push(c, name);
    offset += 30 + name.length + p.packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const bombs = new Map<string, Buffer>();

/**
 * A .docx whose word/document.xml inflates to `inflated` bytes (a valid XML prefix, then spaces).
 * `honest`: its directory says so; otherwise it declares 4 KiB (only inflating can tell).
 */
export function docxBomb(inflated = 1024 * 1024 * 1024, honest = true): Buffer {
  const key = `${inflated}:${honest}`;
  const hit = bombs.get(key);
  if (hit) return hit;
  const run = deflatedRun(inflated);
  const bomb = zip([
    part('[Content_Types].xml', CONTENT_TYPES),
    part('_rels/.rels', RELS),
    { name: 'word/document.xml', packed: run.packed, crc: run.crc, size: honest ? inflated : 4096 },
  ]);
  bombs.set(key, bomb);
  return bomb;
}
