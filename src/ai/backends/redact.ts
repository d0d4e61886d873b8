// Keeps API keys out of error messages and logs. Servers echo keys back in 401 bodies, sometimes
// whole, sometimes masked in the middle ("sk-abc1****wxyz"), so exact replacement is not enough.

const REDACTED = '[redacted]';
/** Any run of at least this many characters shared with the key counts as leaking it. */
const WINDOW = 6;

export function redactSecret(text: string, secret: string | undefined): string {
  let out = text.replace(/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`);
  if (!secret) return out;
  out = out.split(secret).join(REDACTED);
  if (secret.length < WINDOW) return out;
  const windows = new Set<string>();
  for (let i = 0; i + WINDOW <= secret.length; i++) windows.add(secret.slice(i, i + WINDOW));
  return out.replace(/[^\s"'`,;:()<>[\]{}]{6,}/g, (word) => {
    for (let i = 0; i + WINDOW <= word.length; i++)
      if (windows.has(word.slice(i, i + WINDOW))) return REDACTED;
    return word;
  });
}

/** One short line of a response body for an error message. */
export function bodyExcerpt(body: string, max = 200): string {
  let text = body;
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const msg = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message);
    if (typeof msg === 'string') text = msg;
  } catch {}
  text = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A URL for messages: no user:password, no query string (keys sometimes ride there). */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
