import { deflateRawSync } from 'node:zlib';
import test from 'ava';
import { boundedDocxParts } from '../../src/extract/docx.js';
import { buildStoredZip, entryData, readZipDirectory, ZipError } from '../../src/extract/zip-directory.js';
import { buildZip } from './docx-fixture.js';

// The zip directory reader that judges a .docx before anything is inflated, and the bounded
// re-packing of its XML parts (pure functions over bytes).

const kindOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof ZipError ? `${err.kind}: ${err.message}` : `other: ${(err as Error).message}`;
  }
};

test('entries, sizes and data of a deflated archive', (t) => {
  const zip = buildZip({ 'a.xml': '<a>hello</a>', 'word/b.rels': '<r/>' });
  const entries = readZipDirectory(zip, 10);
  t.deepEqual(
    entries.map((e) => [e.name, e.method, e.uncompressedSize]),
    [
      ['a.xml', 8, 12],
      ['word/b.rels', 8, 4],
    ],
  );
  t.deepEqual(entryData(zip, entries[0]!), deflateRawSync(Buffer.from('<a>hello</a>')));
});

test('a stored re-pack reads back with the same names and contents', (t) => {
  const data = Buffer.from('<w:document/>');
  const zip = buildStoredZip([{ name: 'word/document.xml', data, crc32: 7 }]);
  const [e] = readZipDirectory(zip, 10);
  t.is(e?.method, 0);
  t.is(e?.crc32, 7);
  t.deepEqual(Buffer.from(entryData(zip, e!)), data);
});

test('ZIP64 sizes and counts are read from their records', (t) => {
  const name = Buffer.from('word/document.xml');
  const data = Buffer.from('<w:document/>');
  const packed = deflateRawSync(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(name.length, 26);
  const extra = Buffer.alloc(4 + 16);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(16, 2);
  extra.writeBigUInt64LE(BigInt(5 * 1024 ** 3), 4); // uncompressed: 5 GiB
  extra.writeBigUInt64LE(BigInt(packed.length), 12);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(0xffffffff, 20);
  central.writeUInt32LE(0xffffffff, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt16LE(extra.length, 30);
  const body = Buffer.concat([local, name, packed]);
  const dir = Buffer.concat([central, name, extra]);
  const z64 = Buffer.alloc(56);
  z64.writeUInt32LE(0x06064b50, 0);
  z64.writeBigUInt64LE(1n, 32);
  z64.writeBigUInt64LE(BigInt(dir.length), 40);
  z64.writeBigUInt64LE(BigInt(body.length), 48);
  const loc = Buffer.alloc(20);
  loc.writeUInt32LE(0x07064b50, 0);
  loc.writeBigUInt64LE(BigInt(body.length + dir.length), 8);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  const zip = Buffer.concat([body, dir, z64, loc, end]);
  const [e] = readZipDirectory(zip, 10);
  t.is(e?.uncompressedSize, 5 * 1024 ** 3);
  t.is(e?.compressedSize, packed.length);
  t.regex(
    kindOf(() => boundedDocxParts(zip, 64 * 1024 * 1024)),
    /^too-large: its XML parts expand to 5 GiB/,
  );
});

test('damaged archives are invalid; too many entries or too large are too-large', (t) => {
  const zip = buildZip({ 'a.xml': '<a/>', 'b.xml': '<b/>' });
  t.regex(
    kindOf(() => readZipDirectory(Buffer.from('PK\x03\x04 garbage'), 10)),
    /^invalid: too short to be a ZIP archive/,
  );
  t.regex(
    kindOf(() => readZipDirectory(zip.subarray(0, zip.length - 30), 10)),
    /^invalid/,
  );
  t.regex(
    kindOf(() => readZipDirectory(zip, 1)),
    /^too-large: 2 entries \(more than 1\)/,
  );
  const encrypted = Buffer.from(zip);
  const cd = encrypted.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  encrypted.writeUInt16LE(1, cd + 8);
  t.regex(
    kindOf(() => boundedDocxParts(encrypted, 1 << 20)),
    /^invalid: a\.xml is encrypted/,
  );
  const method = Buffer.from(zip);
  method.writeUInt16LE(14, cd + 10);
  t.regex(
    kindOf(() => boundedDocxParts(method, 1 << 20)),
    /^invalid: a\.xml uses compression method 14/,
  );
  const short = Buffer.from(zip);
  short.writeUInt32LE(3, cd + 24); // declares 3 bytes, inflates to 4
  t.regex(
    kindOf(() => boundedDocxParts(short, 1 << 20)),
    /^too-large: a\.xml inflates beyond the 3 B/,
  );
  const long = Buffer.from(zip);
  long.writeUInt32LE(9, cd + 24); // declares 9 bytes, inflates to 4
  t.regex(
    kindOf(() => boundedDocxParts(long, 1 << 20)),
    /^invalid: a\.xml is 4 bytes, its directory says 9/,
  );
});

test('only the XML parts are kept; media are not inflated', (t) => {
  const zip = buildZip({ 'word/document.xml': '<d/>', 'word/media/image1.png': Buffer.alloc(5000, 1) });
  const parts = readZipDirectory(boundedDocxParts(zip, 4096), 10);
  t.deepEqual(
    parts.map((e) => [e.name, e.method, e.uncompressedSize]),
    [['word/document.xml', 0, 4]],
  );
});
