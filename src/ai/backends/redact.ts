import { REDACTED, redactSecrets } from '../../util/redact-secret.js';

// Keeps API keys out of error messages and logs: credentials in auth-header syntax, and the key
// itself in whatever shape a server echoes it (src/util/redact-secret.ts).

export function redactSecret(text: string, secret: string | undefined): string {
  const out = text.replace(/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`);
  return redactSecrets(out, [secret]);
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
