// "Ask about the last command": what the model is given and what retrieval searches for. Pure.
// The command line and its output are untrusted terminal text: they go into the user part of the
// prompt inside the terminal-selection wrapper (prompt.ts escapes them there), never anywhere
// else. The exit code and whether the output was cut are ours, so they are said outside it.

import { normalizeUntrusted } from '../retrieve/sanitize.js';

/** A captured command (the app's LastCommand satisfies it), already redacted and bounded. */
export interface LastCommandCapture {
  command: string;
  exitCode: number | null;
  output: string;
  truncated: boolean;
}

/** Lines of output that say what went wrong (compilers, package managers, shells, runtimes). */
const ERROR_LINE =
  /\b(?:error|errors|err!|failed|failure|fatal|cannot|can't|could not|couldn't|unable to|not found|no such|denied|refused|invalid|unknown|unrecognized|missing|undefined|exception|traceback|panic|segmentation fault|core dumped|timed out|timeout|abort(?:ed)?|conflict|not permitted|killed|warning)\b|^E\d|^\s*at .+:\d+/i;
/** How many error lines the query takes: the first ones (usually the cause) and the last ones. */
const QUERY_HEAD_LINES = 6;
const QUERY_TAIL_LINES = 6;
/** Without an error line: the last lines of output. */
const QUERY_PLAIN_LINES = 8;
/** A single line longer than this is cut in the query (a minified blob is not a good query). */
const QUERY_LINE_CHARS = 300;

/** The text in the terminal-selection wrapper: the command line as typed, then its output. */
export function lastCommandText(c: LastCommandCapture): string {
  const output = c.output.replace(/\n+$/, '');
  return `$ ${c.command.replace(/\n+$/, '')}\n${output === '' ? '(no output)' : output}`;
}

/** The facts we know for sure, said outside the wrapper: the exit code and whether the output was cut. */
export function lastCommandFacts(c: LastCommandCapture): string {
  const code =
    c.exitCode === null
      ? 'The exit code of the command above is not known.'
      : `The command above exited with code ${c.exitCode}.`;
  return c.truncated ? `${code} Its output was cut to its last lines.` : code;
}

/**
 * The retrieval text for a last command: the user's own words if any, the command line, then the
 * lines of output that say what went wrong (else the last lines). The one place it is built;
 * retrieval shapes it further like any query.
 */
export function lastCommandQuery(c: LastCommandCapture, prompt?: string): string {
  const lines = normalizeUntrusted(c.output)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const errors = lines.filter((l) => ERROR_LINE.test(l));
  let picked: string[];
  if (errors.length > QUERY_HEAD_LINES + QUERY_TAIL_LINES)
    picked = [...errors.slice(0, QUERY_HEAD_LINES), ...errors.slice(-QUERY_TAIL_LINES)];
  else if (errors.length > 0) picked = errors;
  else picked = lines.slice(-QUERY_PLAIN_LINES);
  const unique = [...new Set(picked)].map((l) =>
    l.length > QUERY_LINE_CHARS ? l.slice(0, QUERY_LINE_CHARS) : l,
  );
  return [normalizeUntrusted(prompt ?? '').trim(), normalizeUntrusted(c.command).trim(), ...unique]
    .filter((l) => l !== '')
    .join('\n');
}
