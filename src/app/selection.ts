import { SELECTION_MAX_BYTES, type SelectionCut } from '../ai/selection-bounds.js';
import { readFileHead } from './files.js';

// Reading a terminal selection (`ask --file`, `ask --stdin`, the tmux and WezTerm plugins through
// them): never more than SELECTION_MAX_BYTES, whatever the source (an endless /dev/zero, a 90 MB
// paste). The rest is left unread; the token cut to the model's context happens in the action.

export interface ReadSelection {
  text: string;
  /** Set when the selection was longer than the byte cap. */
  cut?: SelectionCut;
}

export async function readSelectionFile(path: string, max = SELECTION_MAX_BYTES): Promise<ReadSelection> {
  const { bytes, more, size } = await readFileHead(path, max);
  return decodeHead(bytes, more, size);
}

export async function readSelectionStream(
  stream: NodeJS.ReadableStream,
  max = SELECTION_MAX_BYTES,
): Promise<ReadSelection> {
  const parts: Buffer[] = [];
  let got = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    parts.push(b);
    got += b.length;
    // Leaving the loop stops reading; the writer gets EPIPE, which is its business.
    if (got > max) break;
  }
  const all = Buffer.concat(parts);
  return decodeHead(all.subarray(0, Math.min(max, all.length)), got > max);
}

function decodeHead(bytes: Buffer, more: boolean, total?: number): ReadSelection {
  if (!more) return { text: bytes.toString('utf8') };
  // Streaming decode drops a character the cut split in two instead of inventing U+FFFD.
  const text = new TextDecoder('utf-8').decode(bytes, { stream: true });
  return {
    text,
    cut: {
      bytesCut: true,
      readBytes: Buffer.byteLength(text),
      keptBytes: Buffer.byteLength(text),
      ...(total !== undefined ? { bytesTotal: total } : {}),
    },
  };
}
