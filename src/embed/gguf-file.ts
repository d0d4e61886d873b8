import { open } from 'node:fs/promises';
import { createError } from '../errors.js';
import { errReason } from '../storage/atomic-write.js';
import type { GgufFile } from './gguf-format.js';
import { GgufNeedMoreData, parseGguf } from './gguf-reader.js';

// File adapter over the pure header decoder: reads only as much of the file as the header
// needs (doubling from 1 MiB), never the tensor data.

export interface GgufFileHeader extends GgufFile {
  fileSize: number;
}

export async function readGgufHeader(path: string, initialBytes = 1 << 20): Promise<GgufFileHeader> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw createError('MODEL_INVALID', { path, reason: 'file does not exist' }, err);
    throw createError('IO_FAILED', { path, op: 'open', reason: errReason(err) }, err);
  }
  try {
    const { size, isFile } = await fh.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
    if (!isFile) throw createError('MODEL_INVALID', { path, reason: 'not a regular file' });
    let want = Math.min(size, initialBytes);
    for (;;) {
      const buf = Buffer.alloc(want);
      const { bytesRead } = await fh.read(buf, 0, want, 0);
      try {
        const header = parseGguf(buf.subarray(0, bytesRead), { label: path, fileSize: size });
        if (header.tensors.some((t) => header.dataOffset + t.offset > size)) {
          throw createError('GGUF_INVALID', { path, reason: 'tensor data lies beyond the end of the file' });
        }
        return { ...header, fileSize: size };
      } catch (err) {
        if (!(err instanceof GgufNeedMoreData) || bytesRead >= size) throw err;
        want = Math.min(size, Math.max(want * 2, err.needed));
      }
    }
  } finally {
    await fh.close();
  }
}
