// Keeps secrets (API keys) out of error messages, logs and run records. Pure.
//
// Servers and proxies echo keys back in many shapes: whole, upper-cased, masked in the middle
// ("sk-abc1****wxyz"), split over two words or lines, or encoded (a `Basic` header is base64 of
// `user:key`; some gateways hex-dump or base64 the headers they saw). So besides the exact text:
// - any word holding a run of WINDOW characters of the key, in any letter case, is replaced;
// - the same for the key's base64 (standard and URL-safe, at each of the three byte alignments
//   the key can have inside a longer encoded string) and hex encodings, with a longer window.
// Fragments shorter than the window are not recognisable without redacting ordinary words.

export const REDACTED = '[redacted]';
/** Characters of the key itself, in one word, that count as leaking it. */
const WINDOW = 6;
/** Characters of an encoding of the key (8 base64 characters carry 6 bytes). */
const ENCODED_WINDOW = 8;
/** A word: anything between separators that never occur inside a key or its encodings. */
const WORD = /[^\s"'`,;:()<>[\]{}]+/g;

export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  const windows = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    out = out.replace(new RegExp(escapeRegExp(secret), 'gi'), REDACTED);
    addWindows(windows, secret, WINDOW);
    for (const form of encodedForms(secret)) addWindows(windows, form, ENCODED_WINDOW);
  }
  if (windows.size === 0) return out;
  return out.replace(WORD, (word) => {
    if (word.length < WINDOW || word === REDACTED) return word;
    const lower = word.toLowerCase();
    for (const n of [WINDOW, ENCODED_WINDOW]) {
      for (let i = 0; i + n <= lower.length; i++) if (windows.has(lower.slice(i, i + n))) return REDACTED;
    }
    return word;
  });
}

function addWindows(into: Set<string>, form: string, n: number): void {
  const lower = form.toLowerCase();
  // A short key is only matched whole (above): its windows would be most of it anyway.
  if (lower.length < n) return;
  for (let i = 0; i + n <= lower.length; i++) into.add(lower.slice(i, i + n));
}

/** The parts of the key's encodings that appear whatever bytes surround it. */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [bytes.toString('hex')];
  for (let align = 0; align < 3; align++) {
    const b64 = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64');
    // Drop the groups of 4 that mix the key's bits with unknown neighbours on either side.
    const start = align === 0 ? 0 : 4;
    const end = (align + bytes.length) % 3 === 0 ? b64.length : b64.length - 4;
    const core = b64.slice(start, Math.max(start, end));
    if (core.length > 0) forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
