// Redacts secrets that commands commonly print (curl -v headers, env dumps, clone URLs, tokens,
// key files) from captured terminal output before it leaves the machine. Pure.
//
// Unlike redact-secret.ts, which hunts a key we know in every shape, this finds secrets we do
// not know by their shape. Matching runs on the text with escape sequences and invisible
// characters skipped, so `ghp_\e[0mAbc…` or a zero-width space cannot split a token past the
// patterns; each match is then cut out of the original text (escapes inside it go too), so the
// rest of the output keeps its bytes. Only the secret part of a match is replaced: the header
// name, the variable name, the URL's host stay, so the model still sees what went wrong.
// Kinds are counted for the popup and the run record; the secrets themselves are never kept.

import { REDACTED } from './redact-secret.js';

export type PrintedSecretKind =
  | 'private key'
  | 'URL credentials'
  | 'URL token'
  | 'Authorization header'
  | 'Proxy-Authorization header'
  | 'cookie'
  | 'API key header'
  | 'AWS secret'
  | 'AWS session token'
  | 'AWS access key id'
  | 'password'
  | 'token'
  | 'secret'
  | 'API key'
  | 'GitHub token'
  | 'GitLab token'
  | 'Slack token'
  | 'OpenAI-style key'
  | 'Google API key'
  | 'Stripe key'
  | 'npm token'
  | 'JWT';

export interface RedactionCount {
  kind: PrintedSecretKind;
  count: number;
}

export interface PrintedRedaction {
  text: string;
  /** Kinds found, in order of first appearance, each with how many were replaced. */
  redactions: RedactionCount[];
}

interface Rule {
  /** A fixed kind, or one chosen from the match (a variable's name). */
  kind: PrintedSecretKind | ((m: RegExpExecArray) => PrintedSecretKind);
  re: RegExp;
  /** The named group `s` is the secret; without it the whole match is. */
}

// A value: a quoted string or a run of characters that do not end a shell word or a JSON value.
const VALUE = String.raw`(?<s>"[^"\n]+"|'[^'\n]+'|[^\s"'\x60,;&]+)`;

const VAR_NAME = `[A-Za-z0-9_.-]*?(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?)[A-Za-z0-9_]*`;

function variableKind(m: RegExpExecArray): PrintedSecretKind {
  const g = m.groups ?? {};
  const name = (g.name ?? g.name2 ?? g.name3 ?? '').toUpperCase();
  if (/PASSW|PASSPHRASE/.test(name)) return 'password';
  if (/API_?KEY/.test(name)) return 'API key';
  if (/TOKEN/.test(name)) return 'token';
  return 'secret';
}

// Order matters: an earlier rule's match wins over a later one that overlaps it.
const RULES: readonly Rule[] = [
  {
    kind: 'private key',
    // A block cut off by the output bound has no END line: everything after BEGIN goes.
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?<s>[\s\S]*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$(?![\s\S]))/g,
  },
  { kind: 'URL credentials', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]+:(?<s>[^\s/@"'<>]+)@/gi },
  {
    kind: 'URL token',
    re: /[?&#](?:access_token|refresh_token|id_token|token|api_?key|apikey|key|secret|client_secret|password|passwd|pwd|auth|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|private_token|session)=(?<s>[^\s&#"'<>]+)/gi,
  },
  {
    kind: 'Proxy-Authorization header',
    re: /\bProxy-Authorization[ \t]*:[ \t]*(?:(?:Bearer|Basic|Token)[ \t]+(?<s>[^\s"'\x60]+)|(?<s2>[^\n]+))/gi,
  },
  {
    kind: 'Authorization header',
    re: /\bAuthorization[ \t]*:[ \t]*(?:(?:Bearer|Basic|Token)[ \t]+(?<s>[^\s"'\x60]+)|(?<s2>[^\n]+))/gi,
  },
  { kind: 'cookie', re: /\b(?:Set-)?Cookie[ \t]*:[ \t]*(?<s>[^\n"'\x60]+)/gi },
  {
    kind: 'API key header',
    re: /\b(?:X-Api-Key|Api-Key|X-Auth-Token|Private-Token|X-Goog-Api-Key)[ \t]*:[ \t]*(?<s>[^\s"'\x60]+)/gi,
  },
  {
    kind: 'AWS secret',
    re: new RegExp(String.raw`\baws_secret_access_key["']?[ \t]*[=:][ \t]*${VALUE}`, 'gi'),
  },
  {
    kind: 'AWS session token',
    re: new RegExp(String.raw`\baws_session_token["']?[ \t]*[=:][ \t]*${VALUE}`, 'gi'),
  },
  { kind: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  {
    kind: 'GitLab token',
    re: /\bgl(?:pat|ptt|dt|rt|cbt|imt|soat|ft|ffct|agent)-[A-Za-z0-9_-]{20,}/g,
  },
  {
    kind: 'Slack token',
    re: /\bxox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g,
  },
  { kind: 'OpenAI-style key', re: /\bsk-(?:[a-z]+-)*[A-Za-z0-9_-]{20,}/g },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'Stripe key', re: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'AWS access key id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    kind: variableKind,
    // NAME=value anywhere (env, export, set -x traces); "name": value and `name: value` only as
    // a JSON key or at a line start (YAML), so prose such as "invalid token: expired" is left.
    re: new RegExp(
      String.raw`(?:\b(?<name>${VAR_NAME})[ \t]*=[ \t]*|"(?<name2>${VAR_NAME})"[ \t]*:[ \t]*|^[ \t-]*(?<name3>${VAR_NAME})[ \t]*:[ \t]+)${VALUE}`,
      'gim',
    ),
  },
];

// Escape sequences (CSI; OSC/DCS/PM/APC strings up to BEL or ST, never past a line end; two-byte
// ESC forms), C0/C1 controls other than TAB and LF, and invisible format characters: skipped when
// matching, kept in the output unless they sit inside a secret.
const SKIPPED =
  /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]|(?:\u001B[\]PX^_]|[\u009D\u0090\u0098\u009E\u009F])[^\u0007\u001B\u009C\n]{0,4096}(?:\u0007|\u001B\\|\u009C)?|\u001B[ -/]*[0-~]?|[\p{Cf}\p{Default_Ignorable_Code_Point}\u0000-\u0008\u000B-\u001F\u007F-\u009F]/gu;

/** The text without what SKIPPED matches, and for each of its code units the index it had in `raw`. */
function visibleText(raw: string): { text: string; at: number[] } {
  const at: number[] = [];
  let text = '';
  let last = 0;
  const keep = (from: number, to: number) => {
    text += raw.slice(from, to);
    for (let i = from; i < to; i++) at.push(i);
  };
  for (const m of raw.matchAll(SKIPPED)) {
    keep(last, m.index);
    last = m.index + m[0].length;
  }
  keep(last, raw.length);
  return { text, at };
}

interface Span {
  start: number;
  end: number;
  kind: PrintedSecretKind;
}

function secretSpan(m: RegExpExecArray): { start: number; end: number } | undefined {
  const g = m.groups ?? {};
  const s = g.s ?? g.s2;
  if (s === undefined) return { start: m.index, end: m.index + m[0].length };
  const value = s.trimEnd();
  if (value === '' || value === REDACTED) return undefined;
  // The secret is the group: find it at the end of the match (every rule puts it last, except
  // the private key block, whose END line follows).
  const off = m[0].lastIndexOf(s);
  return { start: m.index + off, end: m.index + off + value.length };
}

export function redactPrintedSecrets(raw: string): PrintedRedaction {
  const { text, at } = visibleText(raw);
  const spans: Span[] = [];
  const overlaps = (a: { start: number; end: number }) =>
    spans.some((b) => a.start < b.end && b.start < a.end);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m !== null; m = rule.re.exec(text)) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      const span = secretSpan(m);
      if (!span || span.end <= span.start || overlaps(span)) continue;
      spans.push({ ...span, kind: typeof rule.kind === 'function' ? rule.kind(m) : rule.kind });
    }
  }
  if (spans.length === 0) return { text: raw, redactions: [] };
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let pos = 0;
  for (const s of spans) {
    const start = at[s.start]!;
    const end = at[s.end - 1]! + 1;
    out += raw.slice(pos, start) + REDACTED;
    pos = end;
  }
  out += raw.slice(pos);
  const counts = new Map<PrintedSecretKind, number>();
  for (const s of spans) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  return { text: out, redactions: [...counts].map(([kind, count]) => ({ kind, count })) };
}

/** "2 secrets redacted: Authorization header, AWS secret" ('' when nothing was). */
export function redactionSummary(redactions: readonly RedactionCount[]): string {
  const total = redactions.reduce((n, r) => n + r.count, 0);
  if (total === 0) return '';
  const kinds = redactions.map((r) => (r.count > 1 ? `${r.kind} ×${r.count}` : r.kind));
  return `${total} secret${total === 1 ? '' : 's'} redacted: ${kinds.join(', ')}`;
}
