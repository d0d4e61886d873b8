import { open } from 'node:fs/promises';
import { createError } from '../errors.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { MAX_STATE_BYTES } from './last-state.js';

// Reads a pane's state file (written by the shell snippet), bounded: a file bigger than the
// snippet ever writes is damaged, and is never read whole.

/** The file's text; undefined when there is none (the snippet is not installed, or nothing ran yet). */
export async function readLastStateText(path: string): Promise<string | undefined> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw createError(
      'IO_FAILED',
      { path: sanitizeLine(path), op: 'read', reason: (err as Error).message },
      err,
    );
  }
  try {
    const buf = Buffer.alloc(MAX_STATE_BYTES + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_STATE_BYTES)
      throw createError('FILE_INVALID', {
        path: sanitizeLine(path),
        kind: 'last-command state',
        field: '(file)',
        expected: `at most ${MAX_STATE_BYTES} bytes`,
        found: 'a bigger file',
      });
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, bytesRead));
    } catch {
      throw createError('FILE_INVALID', {
        path: sanitizeLine(path),
        kind: 'last-command state',
        field: '(file)',
        expected: 'UTF-8 text',
        found: 'bytes that are not UTF-8',
      });
    }
  } finally {
    await fh.close();
  }
}
