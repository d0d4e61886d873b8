import { z } from 'zod';
import { createError } from '../errors.js';
import { checkJson } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';

// Pure: the per-pane state file the shell snippet (shell/kortty-rag.*) writes inside tmux. Shells
// cannot write JSON safely, so it is lines of `key value`; a value that is text (a command line, a
// screen row) has `%`, LF and CR percent-encoded, so every record is one line:
//
//   kortty-rag-last 1
//   pane %3
//   last-command ls /nonexistent          the last complete command …
//   last-start 0 4 0 80 24 2000           … its output's first row: history_size cursor_y cursor_x
//   last-anchor user@host:~$ ls /nonex…   width height history_limit, and the row above it
//   last-end 0 5 0 80 24 2000             … the cursor when it ended, and the last row it printed
//   last-end-anchor ls: cannot access …
//   last-exit 2
//   run-command sleep 100                 the command running now (no end yet), if any
//   run-start … / run-anchor …
//
// The lines become an object checked by zod, so a damaged file is FILE_INVALID naming the path
// and the field (`["last-end"].cursorY`).

/** The format's marker line and version. */
export const STATE_MAGIC = 'kortty-rag-last';
/** Bigger than anything the snippet writes (a 4,096-character command and two 1,024-character rows, encoded). */
export const MAX_STATE_BYTES = 64 * 1024;
const KIND = 'last-command state';

const count = z.number().int().min(0).max(100_000_000);

/** The pane's geometry at one mark, as `tmux display` gave it to the snippet. */
const positionSchema = z.strictObject({
  historySize: count,
  cursorY: count,
  cursorX: count,
  width: count.min(1),
  height: count.min(1),
  historyLimit: count,
});
export type PanePosition = z.infer<typeof positionSchema>;

const POSITION_FIELDS = ['historySize', 'cursorY', 'cursorX', 'width', 'height', 'historyLimit'] as const;

const text = z.string().max(16 * 1024);

const stateSchema = z
  .strictObject({
    [STATE_MAGIC]: z.literal(1),
    pane: z.string().regex(/^%\d+$/),
    'last-command': text.optional(),
    'last-start': positionSchema.optional(),
    'last-anchor': text.optional(),
    'last-end': positionSchema.optional(),
    'last-end-anchor': text.optional(),
    'last-exit': z.number().int().min(0).max(255).optional(),
    'run-command': text.optional(),
    'run-start': positionSchema.optional(),
    'run-anchor': text.optional(),
  })
  .refine((s) => s['last-start'] === undefined || s['last-end'] !== undefined, {
    path: ['last-end'],
    message: 'a value (an end for the recorded start)',
  });

/** The last complete command as the shell recorded it. */
export interface RecordedCommand {
  command: string;
  exitCode: number | null;
  start: PanePosition;
  end: PanePosition;
  /** The screen row just above the output (the prompt and command line), to verify positions. */
  anchor: string;
  /** The last row the command printed, as it was when the command ended. */
  endAnchor: string;
}

export interface LastState {
  pane: string;
  last?: RecordedCommand;
  /** The last command when tmux did not answer the shell at its start or end: no rows known. */
  unplaced?: { command: string; exitCode: number | null };
  /** A command that has started and not ended (the one running `kortty-rag last`, or another). */
  running?: { command: string };
}

/** `%25` → `%`, `%0A` → LF, `%0D` → CR; anything else stays as it is. */
export function decodeField(s: string): string {
  return s.replace(/%(25|0A|0D)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function parsePosition(value: string): unknown {
  const parts = value.split(' ');
  if (parts.length !== POSITION_FIELDS.length) return value;
  return Object.fromEntries(
    POSITION_FIELDS.map((k, i) => [k, /^\d{1,9}$/.test(parts[i]!) ? Number(parts[i]) : parts[i]]),
  );
}

/** Pure: the state file's text checked; throws FILE_INVALID naming `path` and the field. */
export function parseLastState(text: string, path: string): LastState {
  const raw: Record<string, unknown> = {};
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const [i, line] of lines.entries()) {
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (Object.hasOwn(raw, key))
      throw createError('FILE_INVALID', {
        path: sanitizeLine(path),
        kind: KIND,
        field: `line ${i + 1}`,
        expected: `one "${sanitizeLine(key)}" line`,
        found: 'a second one',
      });
    if (key === STATE_MAGIC || key === 'last-exit')
      raw[key] = /^\d{1,3}$/.test(value) ? Number(value) : value;
    else if (key.endsWith('-start') || key === 'last-end') raw[key] = parsePosition(value);
    else raw[key] = key === 'pane' ? value : decodeField(value);
  }
  const s = checkJson(raw, stateSchema, path, KIND);
  const state: LastState = { pane: s.pane };
  if (s['last-start'] && s['last-end'])
    state.last = {
      command: s['last-command'] ?? '',
      exitCode: s['last-exit'] ?? null,
      start: s['last-start'],
      end: s['last-end'],
      anchor: s['last-anchor'] ?? '',
      endAnchor: s['last-end-anchor'] ?? '',
    };
  else if (s['last-command'] !== undefined || s['last-exit'] !== undefined)
    state.unplaced = { command: s['last-command'] ?? '', exitCode: s['last-exit'] ?? null };
  if (s['run-command'] !== undefined) state.running = { command: s['run-command'] ?? '' };
  return state;
}
