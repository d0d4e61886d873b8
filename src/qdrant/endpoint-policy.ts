import { createError } from '../errors.js';

// Which Qdrant endpoints we talk to. Pure: string in, normalised URL or ENDPOINT_REFUSED out.
//
// Rules (decided on the PARSED url, never on substrings):
// - only `http://` and `https://`, written with both slashes;
// - no credentials (userinfo) at all: the API key lives in the vault, and `user@host` is the
//   classic trick for making a remote host look local (`http://127.0.0.1@evil.com`);
// - no query or fragment (`http://evil.com#@127.0.0.1`), no whitespace or control characters
//   (WHATWG silently deletes tabs/newlines, so what the user saw is not what gets parsed);
// - plain HTTP only for loopback: `localhost` exactly, 127.0.0.0/8, [::1]. Not `*.localhost`
//   (RFC 6761 lets resolvers send those to DNS), not `localhost.`, not 0.0.0.0 / [::], not
//   IPv4-mapped [::ffff:127.0.0.1] (it depends on the host's dual-stack setup);
// - for plain HTTP the host must be written canonically: anything the URL parser has to rewrite
//   (2130706433, 0x7f.1, 0177.0.0.1, 127.1, full-width digits, IDN look-alikes such as a Cyrillic
//   `о` in `lоcalhost`, %-escapes, a trailing dot) is a spot where two parsers may disagree, so
//   it is refused with the canonical spelling suggested. HTTPS hosts may be IDN (punycoded).

export type EndpointReason =
  | 'invalid'
  | 'scheme'
  | 'slashes'
  | 'credentials'
  | 'control-chars'
  | 'query-or-fragment'
  | 'port'
  | 'not-loopback'
  | 'ipv4-mapped'
  | 'non-canonical-host';

const REASONS: Record<EndpointReason, string> = {
  invalid: 'not a valid URL',
  scheme: 'only http:// and https:// endpoints are supported',
  slashes: 'write the endpoint as http(s)://host[:port][/path]',
  credentials: 'credentials in the URL are not allowed; the API key is kept in the vault',
  'control-chars': 'the URL contains whitespace or control characters',
  'query-or-fragment': 'the URL must not contain a query (?) or fragment (#)',
  port: 'port 0 is not a usable port',
  'not-loopback':
    'plain HTTP is only allowed for a loopback host (localhost, 127.0.0.0/8, [::1]); use https:// for remote endpoints',
  'ipv4-mapped': 'IPv4-mapped IPv6 addresses are not accepted for plain HTTP; write http://127.0.0.1 instead',
  'non-canonical-host': 'the loopback host must be written canonically (localhost, 127.x.y.z or [::1])',
};

/** Returns the normalised endpoint URL or throws ENDPOINT_REFUSED {url (credentials redacted), reason, rule}. */
export function checkEndpoint(raw: string): URL {
  const refuse = (rule: EndpointReason, extra = ''): never => {
    throw createError('ENDPOINT_REFUSED', { url: redactUrl(raw), reason: REASONS[rule] + extra, rule });
  };
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) refuse('invalid');
  if (
    /[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/u.test(raw)
  ) {
    refuse('control-chars');
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') refuse('scheme');
  if (!raw.slice(scheme!.length + 1).startsWith('//') || raw.slice(scheme!.length + 3).startsWith('/')) {
    refuse('slashes');
  }
  const authority = rawAuthority(raw);
  if (authority.includes('@')) refuse('credentials');
  if (raw.includes('?') || raw.includes('#')) refuse('query-or-fragment');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('invalid');
  }
  if (url.username !== '' || url.password !== '') refuse('credentials');
  if (url.hostname === '') refuse('invalid');
  if (url.port === '0') refuse('port');
  if (url.protocol === 'http:') {
    const host = url.hostname;
    if (/^\[::ffff:/i.test(host)) refuse('ipv4-mapped');
    if (!isLoopbackHost(host)) refuse('not-loopback');
    const written = rawHost(authority).toLowerCase();
    if (written !== host) refuse('non-canonical-host', `; "${printable(written)}" is read as ${host}`);
  }
  return url;
}

/** Loopback test on a WHATWG-parsed hostname (IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return m !== null && m[1] === '127' && m.slice(1).every((o) => Number(o) <= 255);
}

/** The client wants an origin plus a path prefix (it ignores the path of `url`). */
export function clientTarget(url: URL): { url: string; prefix?: string } {
  const origin = `${url.protocol}//${url.host}`;
  const path = url.pathname.replace(/\/+$/, '');
  return path === '' ? { url: origin } : { url: origin, prefix: path };
}

/** The URL as it may appear in messages: userinfo, query and fragment masked, control characters escaped, bounded. */
export function redactUrl(raw: string): string {
  if (typeof raw !== 'string') return '<not a string>';
  const authority = rawAuthority(raw);
  let out = raw;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const start = raw.indexOf(authority);
    out = `${raw.slice(0, start)}***@${raw.slice(start + at + 1)}`;
  }
  // A query or fragment may carry a key (`?api-key=…`); only its presence is shown.
  out = out.replace(/([?#])[\s\S]*$/, '$1***');
  out = printable(out);
  return out.length > 200 ? `${out.slice(0, 200)}…` : out;
}

/** What WHATWG treats as the authority of a special URL: after `scheme:` and any slashes, up to / ? # \. */
function rawAuthority(raw: string): string {
  const afterScheme = raw.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:/, '');
  const rest = afterScheme.replace(/^[/\\]*/, '');
  return rest.split(/[/?#\\]/, 1)[0] ?? '';
}

function rawHost(authority: string): string {
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return end < 0 ? authority : authority.slice(0, end + 1);
  }
  const colon = authority.lastIndexOf(':');
  return colon < 0 ? authority : authority.slice(0, colon);
}

function printable(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
