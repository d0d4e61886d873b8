import type { PanePosition, RecordedCommand } from './last-state.js';

// Pure: where the last command's output lies in a tmux pane now, checked against what the shell
// recorded, and how it is cut to its bounds. Rows are tmux's: 0 is the first visible row, negative
// ones are history; an absolute row (history_size + cursor_y) stays put while nothing leaves the
// history. Once the history is full (history-limit), tmux drops its oldest rows and every absolute
// row moves up by an unknown amount, so the rows are found again by their text: the row
// above the output (prompt and command line) and the last row the command printed. Whatever does
// not match gives a note and no output, never the rows of something else.

/** The pane as `tmux display` shows it now. */
export interface PaneNow extends PanePosition {
  paneId: string;
  serverPid: number;
}

export type CapturePlan =
  /** Rows first..last (relative) with -J; the first is the anchor row when `anchored`. */
  | { kind: 'rows'; first: number; last: number; anchored: boolean }
  /** The history is full: capture every row unjoined and find the output by its text (locateOutput). */
  | { kind: 'search'; first: number; last: number }
  /** Nothing to capture: the output is empty, or gone (the note says why). */
  | { kind: 'none'; note?: string };

const abs = (p: PanePosition) => p.historySize + p.cursorY;

/**
 * Whether rows may have left the history by the time of `p`. tmux trims a full history by a tenth
 * of its limit at once and never shrinks it below that afterwards (short of clearing it), so a
 * history that was ever trimmed is still at least this big.
 */
export const mayHaveDropped = (p: PanePosition) =>
  p.historySize >= p.historyLimit - Math.max(1, Math.floor(p.historyLimit / 10));

/** The output's absolute rows, inclusive; last < first when it printed nothing. */
export function outputRows(rec: RecordedCommand): { first: number; last: number } {
  return { first: abs(rec.start), last: abs(rec.end) - (rec.end.cursorX > 0 ? 0 : 1) };
}

const rerun = 'run the command again to ask about it';

export function planCapture(rec: RecordedCommand, now: PanePosition): CapturePlan {
  if (rec.start.width !== rec.end.width)
    return {
      kind: 'none',
      note: `the pane was resized while the command ran (${rec.start.width} → ${rec.end.width} columns): tmux rewrapped its rows, so its output can no longer be located; ${rerun}`,
    };
  if (now.width !== rec.end.width)
    return {
      kind: 'none',
      note: `the pane was resized since the command ran (${rec.end.width} → ${now.width} columns): tmux rewrapped its rows, so its output can no longer be located; ${rerun}`,
    };
  const { first, last } = outputRows(rec);
  if (rec.end.historySize < rec.start.historySize || abs(rec.end) < abs(rec.start))
    return { kind: 'none', note: `the screen was cleared while the command ran, so its output is gone` };
  if (now.height === rec.end.height && now.historySize < rec.end.historySize)
    return {
      kind: 'none',
      note: `the pane's history was cleared since the command ran (clear or clear-history), so its output is gone; ${rerun}`,
    };
  if (last < first) return { kind: 'none' };
  const full = mayHaveDropped(rec.end) || mayHaveDropped(now);
  if (full) return { kind: 'search', first: -now.historySize, last: now.cursorY };
  const anchored = first >= 1;
  return {
    kind: 'rows',
    first: (anchored ? first - 1 : first) - now.historySize,
    last: last - now.historySize,
    anchored,
  };
}

const MAX_ANCHOR = 1024;
const norm = (row: string) => row.trimEnd().slice(0, MAX_ANCHOR).trimEnd();
const rowIs = (row: string, anchor: string) => norm(row) === norm(anchor);
/** The last output row of a command that ended without a newline: the prompt was drawn after it. */
const partialRowIs = (row: string, anchor: string) => row.startsWith(norm(anchor));

/** Cuts the prompt that was drawn after a last row without a newline; undefined when the row does not match. */
function cutAfterEnd(line: string, rec: RecordedCommand): string | undefined {
  const anchor = norm(rec.endAnchor);
  if (rec.end.cursorX === 0) return line.trimEnd().endsWith(anchor) ? line : undefined;
  const at = line.lastIndexOf(anchor);
  return at < 0 ? undefined : line.slice(0, at + anchor.length);
}

const moved = (why: string) =>
  `the pane's rows no longer match the recorded command (${why}), so its output is not shown; ${rerun}`;

/** Pure: the output lines from a `rows` capture (-J), or a note when the rows are not the recorded ones. */
export function checkRows(
  lines: string[],
  plan: Extract<CapturePlan, { kind: 'rows' }>,
  rec: RecordedCommand,
): { lines: string[] } | { note: string } {
  if (plan.anchored && !rowIs(lines[0] ?? '', rec.anchor))
    return { note: moved('the screen was cleared or redrawn') };
  const out = lines.slice(plan.anchored ? 1 : 0);
  if (out.length === 0) return { lines: out };
  const lastLine = cutAfterEnd(out.at(-1)!, rec);
  if (lastLine === undefined) return { note: moved('its last line changed') };
  out[out.length - 1] = lastLine;
  return { lines: out };
}

/**
 * Pure: where the output lies in a full history, from its unjoined rows (`rows[0]` is row `top`).
 * The rows above it only ever move up, so each anchor is searched upwards from where it was
 * recorded and the nearest match wins. A start no longer in the history means its first lines
 * scrolled off: the output then begins at the oldest row, which can only be its own.
 */
export function locateOutput(
  rows: string[],
  top: number,
  rec: RecordedCommand,
  now: PanePosition,
): { first: number; last: number; scrolledOff: boolean } | { note: string } {
  const { first, last } = outputRows(rec);
  const at = (r: number) => rows[r - top];
  const bottom = top + rows.length - 1;
  const recEnd = last - now.historySize;
  const endMatch = rec.end.cursorX > 0 ? partialRowIs : rowIs;
  let endFound: number | undefined;
  for (let r = Math.min(recEnd, bottom); r >= top; r--)
    if (endMatch(at(r)!, rec.endAnchor)) {
      endFound = r;
      break;
    }
  if (endFound === undefined)
    return {
      note: `the command's output has left tmux's history (history-limit ${now.historyLimit}) or the screen was redrawn; ${rerun}`,
    };
  const shift = recEnd - endFound;
  const recAnchor = first - 1 - now.historySize;
  for (let r = Math.min(recAnchor - shift, endFound - 1); r >= top; r--)
    if (rowIs(at(r)!, rec.anchor)) return { first: r + 1, last: endFound, scrolledOff: false };
  // Not found. With no row dropped while it ran, its length is known: a start that should still
  // be in the history but does not match means the rows are not the recorded ones.
  const droppedWhileRunning = mayHaveDropped(rec.end);
  if (!droppedWhileRunning && endFound - (last - first) - 1 >= top)
    return { note: moved('the command line changed') };
  return { first: top, last: endFound, scrolledOff: true };
}

/** The last line of a `search` capture (-J) may hold the prompt drawn after an unfinished line. */
export function trimLastLine(lines: string[], rec: RecordedCommand): string[] {
  if (lines.length === 0 || rec.end.cursorX === 0) return lines;
  const cut = cutAfterEnd(lines.at(-1)!, rec);
  return cut === undefined ? lines : [...lines.slice(0, -1), cut];
}

export interface Bounded {
  output: string;
  truncated: boolean;
  /** Says what was cut, for the user. */
  note?: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The last bytes of `s` that fit in `max` bytes of UTF-8, cut at a character boundary. */
function tailBytes(s: string, max: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= max) return s;
  let start = buf.length - max;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}

/** Pure: the last `maxLines` lines within `maxBytes` (UTF-8), trailing blanks trimmed, the cut said. */
export function boundOutput(lines: string[], maxLines: number, maxBytes: number): Bounded {
  const all = lines.map((l) => l.trimEnd());
  while (all.length > 0 && all.at(-1) === '') all.pop();
  const notes: string[] = [];
  let kept = all;
  if (kept.length > maxLines) {
    kept = kept.slice(-maxLines);
    notes.push(`output cut to its last ${fmt(maxLines)} of ${fmt(all.length)} lines`);
  }
  let output = kept.join('\n');
  const bytes = Buffer.byteLength(output, 'utf8');
  if (bytes > maxBytes) {
    const tail = tailBytes(output, maxBytes);
    const nl = tail.indexOf('\n');
    // Whole lines when the tail holds more than one; a single line longer than the cap is cut.
    output = nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail;
    notes.push(`output cut to its last ${fmt(Buffer.byteLength(output, 'utf8'))} of ${fmt(bytes)} bytes`);
  }
  return { output, truncated: notes.length > 0, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

/** The fallback's prompt: anything short and non-blank, then a prompt character and a space; the command follows. */
export const DEFAULT_PROMPT_PATTERN = '^(?:\\S.{0,100}?)?[$#%>❯›»] ';

/**
 * Pure, for a pane without marks: the text since the previous prompt line. The last line matching
 * `prompt` is the prompt the user is at (or the one that ran `kortty-rag last`); the one before it
 * held the last command, and the lines between are its output.
 */
export function fallbackFromLines(
  lines: string[],
  prompt: RegExp,
): { command: string; lines: string[] } | undefined {
  const prompts: { i: number; command: string }[] = [];
  for (const [i, line] of lines.entries()) {
    const m = prompt.exec(line);
    if (m && m.index === 0) prompts.push({ i, command: line.slice(m[0].length).trim() });
  }
  if (prompts.length < 2) return undefined;
  const [prev, cur] = [prompts.at(-2)!, prompts.at(-1)!];
  return { command: prev.command, lines: lines.slice(prev.i + 1, cur.i) };
}
