import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createError } from '../errors.js';
import { PRIVATE_DIR_MODE } from '../storage/private-files.js';

// The few plain file operations the faces need (the head of a selection file, a path's kind, an append-only log,
// the package version), so the faces themselves never import node:fs.

/**
 * At most `max` bytes from the start of a file, and whether more followed (with its size when it
 * is a regular file). Reads `max + 1` bytes at most, so /dev/zero or a FIFO ends at once.
 */
export async function readFileHead(
  path: string,
  max: number,
): Promise<{ bytes: Buffer; more: boolean; size?: number }> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat();
    const buf = Buffer.alloc(max + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const more = got > max;
    return {
      bytes: buf.subarray(0, Math.min(got, max)),
      more,
      ...(more && st.isFile() ? { size: st.size } : {}),
    };
  } finally {
    await fh.close();
  }
}

/** 'file' or 'folder' for a source path the user typed; SOURCE_NOT_FOUND when it does not exist. */
export async function pathKind(path: string): Promise<'file' | 'folder'> {
  const st = await stat(path).catch(() => undefined);
  if (!st) throw createError('SOURCE_NOT_FOUND', { path });
  return st.isFile() ? 'file' : 'folder';
}

/** An owner-only append stream (its directory created); `close` resolves once it is flushed. */
export async function openAppendLog(
  path: string,
): Promise<{ stream: NodeJS.WritableStream; close(): Promise<void> }> {
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  return { stream, close: () => new Promise<void>((r) => stream.end(r)) };
}

export async function packageVersion(): Promise<string> {
  // dist/src/app/files.js → the package root.
  const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8'));
  return String(pkg.version);
}
