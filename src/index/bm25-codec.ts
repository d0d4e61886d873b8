import { bytesOf, f64le, Reader, u32le } from './binary.js';
import type { Bm25Index } from './bm25.js';

// The lexical (BM25F) section of a v3 snapshot (grammar in STORAGE.md; postings: bm25.ts):
//   docCount:u32 termCount:u32 k1:f64 b:f64 totalLength:f64
//   docLengths:u32[docCount] termOffsets:u32[termCount+1] df:u32[termCount]
//   postingOffsets:u32[termCount+1] termBytes:u8[termOffsets[termCount]]
//   postings:u8[postingOffsets[termCount]]

export function encodeBm25(index: Bm25Index): Buffer {
  return Buffer.concat(bm25Pieces(index));
}

/** The section as a list of views, in order (the snapshot encoder copies them into place once). */
export function bm25Pieces(index: Bm25Index): Uint8Array[] {
  const termCount = index.df.length;
  return [
    u32le(index.docCount),
    u32le(termCount),
    f64le(index.params.k1),
    f64le(index.params.b),
    f64le(index.totalLength),
    bytesOf(index.docLengths),
    bytesOf(index.termOffsets),
    bytesOf(index.df),
    bytesOf(index.postingOffsets),
    bytesOf(index.termBytes),
    bytesOf(index.postings),
  ];
}

function monotone(a: Uint32Array, last: number): boolean {
  if (a[0] !== 0 || a[a.length - 1] !== last) return false;
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return false;
  return true;
}

/** Decode and check the structure (offsets in range and increasing, sizes consistent). */
export function decodeBm25(buf: Buffer, expectDocs: number, fail: (reason: string) => Error): Bm25Index {
  const r = new Reader(buf, (why) => fail(`bm25: ${why}`));
  const docCount = r.u32('document count');
  const termCount = r.u32('term count');
  const k1 = r.f64('k1');
  const b = r.f64('b');
  const totalLength = r.f64('total length');
  if (docCount !== expectDocs) throw fail(`bm25: ${docCount} documents for ${expectDocs} chunks`);
  if (!(k1 >= 0 && b >= 0 && b <= 1 && totalLength >= 0)) throw fail('bm25: parameters out of range');
  const docLengths = r.u32s(docCount, 'document lengths');
  const termOffsets = r.u32s(termCount + 1, 'term offsets');
  const df = r.u32s(termCount, 'document frequencies');
  const postingOffsets = r.u32s(termCount + 1, 'posting offsets');
  const termBytes = Buffer.from(r.bytes(termOffsets[termCount]!, 'terms'));
  const postings = Buffer.from(r.bytes(postingOffsets[termCount]!, 'postings'));
  if (r.pos !== buf.length) throw fail('bm25: trailing bytes');
  if (!monotone(termOffsets, termBytes.length) || !monotone(postingOffsets, postings.length)) {
    throw fail('bm25: offsets out of order');
  }
  for (let i = 0; i < termCount; i++)
    if (df[i]! > docCount) throw fail('bm25: document frequency out of range');
  return {
    params: { k1, b },
    docCount,
    totalLength,
    docLengths,
    termBytes,
    termOffsets,
    df,
    postingOffsets,
    postings,
  };
}
