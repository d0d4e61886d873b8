import { type RedactionCount, redactionSummary, redactPrintedSecrets } from '../util/redact-printed.js';
import { sanitizeLine } from '../util/terminal-text.js';
import type { LastCommand } from './last-command.js';

// "Ask about the last command" between the capture and the ask: secrets redacted from the
// command line and its output before anything is sent anywhere (the model, the query service,
// the run record), and the lines the popup shows first. Pure.
//
// Redaction applies to every profile, local ones too: the same text also becomes the retrieval
// query (kept in the run record on disk) and travels over the query service's socket, and a
// profile's "local" endpoint may well be a server elsewhere on the network.

/** A captured command, as `kortty-rag last` reads it. */
type CapturedCommand = LastCommand;

export interface PreparedCommand {
  /** The capture with secrets replaced by `[redacted]`. */
  capture: CapturedCommand;
  /** Kinds and counts of what was redacted (never the secrets). */
  redactions: RedactionCount[];
  /** "2 secrets redacted: Authorization header, AWS secret", or ''. */
  summary: string;
}

export function prepareLastCommand(c: CapturedCommand): PreparedCommand {
  const command = redactPrintedSecrets(c.command);
  const output = redactPrintedSecrets(c.output);
  const counts = new Map<RedactionCount['kind'], number>();
  for (const r of [...command.redactions, ...output.redactions])
    counts.set(r.kind, (counts.get(r.kind) ?? 0) + r.count);
  const redactions = [...counts].map(([kind, count]) => ({ kind, count }));
  return {
    capture: { ...c, command: command.text, output: output.text },
    redactions,
    summary: redactionSummary(redactions),
  };
}

/** Output lines the popup shows before the answer (the last ones). */
const PREVIEW_LINES = 5;
/** Characters of one preview line. */
const PREVIEW_CHARS = 160;

/**
 * What the popup shows before the answer: the command, its exit code, its last output lines and
 * what was redacted, every line through the terminal sanitizer (escape sequences shown as text).
 */
export function lastCommandPreview(p: PreparedCommand): string[] {
  const c = p.capture;
  const cut = (s: string) => {
    const line = s.length > PREVIEW_CHARS ? `${s.slice(0, PREVIEW_CHARS)}…` : s;
    return sanitizeLine(line);
  };
  const code = c.exitCode === null ? 'exit code not known' : `exit ${c.exitCode}`;
  const out = [`Last command: $ ${cut(c.command)}  (${code})`];
  const lines = c.output.replace(/\n+$/, '').split('\n');
  if (c.output.trim() === '') out.push('  (no output)');
  else {
    const shown = lines.slice(-PREVIEW_LINES);
    const hidden = lines.length - shown.length;
    if (hidden > 0 || c.truncated)
      out.push(
        `  … ${hidden > 0 ? `${hidden} line${hidden === 1 ? '' : 's'} above` : ''}${c.truncated ? `${hidden > 0 ? '; ' : ''}output cut to its last lines` : ''}`,
      );
    for (const l of shown) out.push(`  ${cut(l)}`);
  }
  if (p.summary !== '') out.push(p.summary);
  if (c.note) out.push(`Note: ${sanitizeLine(c.note)}`);
  return out;
}
