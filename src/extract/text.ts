// UTF-8 text decoding and the line convention every `file:line` citation relies on (pure).
//
// Lines are counted by LF only: line N is the text after the (N-1)th LF. A CRLF pair is one line
// break; its CR is dropped from the extracted text, so numbering does not change. A lone CR is
// not a line break and stays in the text. This is what `grep -n`, git, vim and less count, so a
// cited `file:42` opens at the right line there (and in every editor for LF and CRLF files; only
// files with classic-Mac lone CRs would differ in editors that treat CR as a break).

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export type DecodeResult = { ok: true; text: string } | { ok: false; reason: string };

/** Decodes strict UTF-8 (a leading BOM is dropped) and turns CRLF into LF. */
export function decodeUtf8Text(bytes: Uint8Array): DecodeResult {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, reason: 'too large to hold as one string' };
    return { ok: false, reason: 'not valid UTF-8' };
  }
  return { ok: true, text: normalizeNewlines(text) };
}

export function normalizeNewlines(text: string): string {
  return text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
}
