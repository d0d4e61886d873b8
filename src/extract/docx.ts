// .docx to text through mammoth (adapter). Paragraphs come out separated by blank lines.

import mammoth from 'mammoth';
import { createError } from '../errors.js';
import { normalizeNewlines } from './text.js';

/** `bytes`: the file's content when the caller already read it (and checked its hash). */
export async function extractDocxText(path: string, bytes?: Buffer): Promise<string> {
  let value: string;
  try {
    ({ value } = await mammoth.extractRawText(bytes ? { buffer: bytes } : { path }));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown })?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      throw createError(
        'EXTRACT_FAILED',
        { path, reason: `cannot read (${code})`, skipReason: 'read-error' },
        err,
      );
    }
    throw createError(
      'EXTRACT_FAILED',
      { path, reason: `not a readable .docx (${reason})`, skipReason: 'docx-invalid' },
      err,
    );
  }
  return normalizeNewlines(value)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
