import { isUtf8 } from 'node:buffer';

// File names are bytes. Names the rest of the pipeline cannot carry safely as strings (invalid
// UTF-8) or show safely in a terminal (newlines and other control characters, which could also
// forge table rows or terminal escapes) are reported as `bad-name` under an escaped display form.

export type DecodedName = { ok: true; name: string } | { ok: false; display: string; why: string };

// C0 controls and DEL anywhere in a name, plus C1 controls (U+0080..U+009F) which some
// terminals also interpret.
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f]/;

export function decodeName(raw: Buffer): DecodedName {
  if (!isUtf8(raw)) return { ok: false, display: escapeBytes(raw), why: 'name is not valid UTF-8' };
  const name = raw.toString('utf8');
  if (UNSAFE_CHAR.test(name)) {
    const why = /[\n\r]/.test(name) ? 'name contains a line break' : 'name contains control characters';
    return { ok: false, display: escapeString(name), why };
  }
  return { ok: true, name };
}

/** Valid UTF-8 shown as is, except backslash and control characters; invalid bytes as `\xNN`. */
export function escapeBytes(raw: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const len = validSequenceLength(raw, i);
    if (len === 0) {
      out += `\\x${raw[i]!.toString(16).padStart(2, '0')}`;
      i += 1;
    } else {
      out += escapeString(Buffer.from(raw.subarray(i, i + len)).toString('utf8'));
      i += len;
    }
  }
  return out;
}

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

export function escapeString(s: string): string {
  return s.replace(
    /[\\\u0000-\u001f\u007f-\u009f]/g,
    (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Length of the well-formed UTF-8 sequence starting at `i`, or 0 when it is not well-formed. */
export function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  let len: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c === 0xe0) lo = 0xa0; // overlong
    if (c === 0xed) hi = 0x9f; // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c === 0xf0) lo = 0x90; // overlong
    if (c === 0xf4) hi = 0x8f; // > U+10FFFF
  } else return 0;
  if (i + len > b.length) return 0;
  const c1 = b[i + 1]!;
  if (c1 < lo || c1 > hi) return 0;
  for (let k = 2; k < len; k++) if ((b[i + k]! & 0xc0) !== 0x80) return 0;
  return len;
}
