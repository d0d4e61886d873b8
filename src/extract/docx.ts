// .docx to text through mammoth (adapter), run only in the extraction child (extract-child.ts).
// Paragraphs come out separated by blank lines.
//
// A .docx is a ZIP archive, and a small one can inflate to gigabytes. Before mammoth sees it, the
// central directory is read and the sizes of the XML parts (all that text extraction reads) are
// added up against `maxUncompressedBytes`; each part is then inflated with that declared size as
// a hard output limit, so an entry that lies about its size is stopped while inflating. mammoth
// gets a new archive holding just those parts, stored, and so never inflates anything itself.

import { inflateRawSync } from 'node:zlib';
import mammoth from 'mammoth';
import { formatBytes } from '../scan/units.js';
import { normalizeNewlines } from './text.js';
import type { WorkerFailure } from './worker-protocol.js';
import { buildStoredZip, entryData, readZipDirectory, ZipError } from './zip-directory.js';

/** More entries than any real document has (Word writes a few dozen). */
const MAX_ENTRIES = 20_000;
const TEXT_PART = /\.(xml|rels)$/i;

/** The XML parts of `bytes`, inflated within the cap, as a stored ZIP. Throws ZipError. */
export function boundedDocxParts(bytes: Uint8Array, maxUncompressedBytes: number): Buffer {
  const entries = readZipDirectory(bytes, MAX_ENTRIES).filter((e) => TEXT_PART.test(e.name));
  const declared = entries.reduce((n, e) => n + e.uncompressedSize, 0);
  if (declared > maxUncompressedBytes) {
    throw new ZipError(
      'too-large',
      `its XML parts expand to ${formatBytes(declared)}, over the ${formatBytes(maxUncompressedBytes)} cap`,
    );
  }
  const parts = entries.map((e) => {
    if (e.flags & 1) throw new ZipError('invalid', `${e.name} is encrypted`);
    const packed = entryData(bytes, e);
    let data: Uint8Array;
    if (e.method === 0) data = packed;
    else if (e.method === 8) {
      try {
        data = inflateRawSync(packed, { maxOutputLength: Math.max(1, e.uncompressedSize) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new ZipError(
            'too-large',
            `${e.name} inflates beyond the ${formatBytes(e.uncompressedSize)} its directory declares`,
          );
        }
        throw new ZipError('invalid', `${e.name} does not inflate (${(err as Error).message})`);
      }
    } else throw new ZipError('invalid', `${e.name} uses compression method ${e.method}`);
    if (data.length !== e.uncompressedSize)
      throw new ZipError(
        'invalid',
        `${e.name} is ${data.length} bytes, its directory says ${e.uncompressedSize}`,
      );
    return { name: e.name, data, crc32: e.crc32 };
  });
  return buildStoredZip(parts);
}

export async function extractDocxText(bytes: Uint8Array, maxUncompressedBytes: number): Promise<string> {
  const parts = boundedDocxParts(bytes, maxUncompressedBytes);
  const { value } = await mammoth.extractRawText({ buffer: parts });
  return normalizeNewlines(value)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An exception from the steps above, as the file's skip reason. */
export function docxFailure(err: unknown): WorkerFailure {
  if (err instanceof ZipError) {
    return err.kind === 'too-large'
      ? { skipReason: 'docx-too-large', reason: `.docx too large to extract: ${err.message}` }
      : { skipReason: 'docx-invalid', reason: `not a readable .docx (${err.message})` };
  }
  const reason = err instanceof Error ? err.message : String(err);
  return { skipReason: 'docx-invalid', reason: `not a readable .docx (${reason})` };
}
