import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { createError } from '../errors.js';
import { lastBlockSchema } from '../storage/config-json.js';
import { readJsonFile } from '../storage/json-file.js';
import { configPath, korttyHome, lastStatePath } from '../storage/paths.js';
import { checkJson, parseJsonText } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';
import {
  boundOutput,
  type CapturePlan,
  checkRows,
  DEFAULT_PROMPT_PATTERN,
  fallbackFromLines,
  locateOutput,
  type PaneNow,
  planCapture,
  trimLastLine,
} from './last-capture.js';
import { parseLastState } from './last-state.js';
import { readLastStateText } from './last-state-file.js';

// The last complete command of a tmux pane (or the one the WezTerm plugin hands over stdin): its
// line, exit code and bounded output. The I/O shell around last-state.ts (the snippet's per-pane
// file) and last-capture.ts (where the rows are and how they are cut): one `tmux display` for the
// pane's geometry, then `tmux capture-pane` for the rows.

export interface LastCommand {
  command: string;
  exitCode: number | null;
  output: string;
  truncated: boolean;
  /** true: the boundaries came from the shell integration; false: from the prompt pattern. */
  marks: boolean;
  /** What the user should know: a fallback, a cut, rows that scrolled off or were cleared. */
  note?: string;
}

export interface LastCommandOptions {
  /** A tmux target (`%3`, `main:1.0`); default $TMUX_PANE. */
  pane?: string;
  /** JSON {"command", "output", "exitCode"?} from the WezTerm plugin, which read its semantic zones. */
  stdinText?: string;
  home?: string;
  maxLines?: number;
  maxBytes?: number;
  env?: NodeJS.ProcessEnv;
}

export const LAST_DEFAULTS = { maxLines: 200, maxBytes: 16 * 1024, promptPattern: DEFAULT_PROMPT_PATTERN };
/** What the fallback searches for prompts: the last this many rows. */
const FALLBACK_ROWS = 2000;
/** Stdin from the plugin is cut here before it is parsed. */
export const MAX_STDIN_BYTES = 8 * 1024 * 1024;

const unavailable = (reason: string) => createError('LAST_COMMAND_UNAVAILABLE', { reason });

const stdinSchema = z.strictObject({
  command: z.string().max(64 * 1024),
  output: z.string(),
  exitCode: z.number().int().min(-1_000_000).max(1_000_000).nullable().optional(),
});

const configLastPartSchema = z.looseObject({ last: lastBlockSchema.optional() });

/** The "last" block of config.json with the defaults filled in. */
async function lastSettings(home: string) {
  const path = configPath(home);
  const raw = await readJsonFile(path, z.unknown(), 'configuration');
  const block =
    raw === undefined ? undefined : checkJson(raw, configLastPartSchema, path, 'configuration').last;
  return { ...LAST_DEFAULTS, ...block };
}

export async function readLastCommand(opts: LastCommandOptions): Promise<LastCommand> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? korttyHome(env);
  const settings = await lastSettings(home);
  const maxLines = opts.maxLines ?? settings.maxLines;
  const maxBytes = opts.maxBytes ?? settings.maxBytes;
  if (opts.stdinText !== undefined) return fromStdin(opts.stdinText, maxLines, maxBytes);
  const target = opts.pane ?? env.TMUX_PANE;
  if (!target) throw unavailable('not inside tmux: give --pane TARGET, or --stdin with the command as JSON');
  const tmux = tmuxRunner(env);
  const now = await paneNow(tmux, target);
  const path = lastStatePath(now.serverPid, now.paneId, home);
  const text = await readLastStateText(path);
  const state = text === undefined ? undefined : parseLastState(text, path);
  if (state && state.pane !== now.paneId)
    throw createError('FILE_INVALID', {
      path: sanitizeLine(path),
      kind: 'last-command state',
      field: 'pane',
      expected: now.paneId,
      found: sanitizeLine(state.pane),
    });
  if (state?.unplaced)
    return {
      ...state.unplaced,
      output: '',
      truncated: false,
      marks: true,
      note: 'tmux did not answer the shell when the command ran, so where its output lies is not known',
    };
  if (!state?.last) return fallback(tmux, now, new RegExp(settings.promptPattern, 'u'), maxLines, maxBytes);
  const rec = state.last;
  const base = { command: rec.command, exitCode: rec.exitCode, marks: true };
  const found = await captureRecorded(tmux, now, rec, planCapture(rec, now));
  if ('note' in found) return { ...base, output: '', truncated: false, note: found.note };
  const bounded = boundOutput(found.lines, maxLines, maxBytes);
  const notes = [
    found.scrolledOff
      ? `its first lines scrolled out of tmux's history (history-limit ${now.historyLimit})`
      : '',
    bounded.note ?? '',
  ].filter(Boolean);
  return {
    ...base,
    output: bounded.output,
    truncated: bounded.truncated || found.scrolledOff,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

type Tmux = (...args: string[]) => Promise<string>;

function tmuxRunner(env: NodeJS.ProcessEnv): Tmux {
  const run = promisify(execFile);
  return async (...args) => {
    try {
      return (await run('tmux', args, { env, maxBuffer: 256 * 1024 * 1024 })).stdout;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw unavailable('tmux is not installed');
      throw unavailable(`tmux ${args[0]} failed: ${sanitizeLine((e.stderr ?? e.message).trim())}`);
    }
  };
}

const GEOMETRY =
  '#{pane_id} #{pid} #{history_size} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height} #{history_limit}';

async function paneNow(tmux: Tmux, target: string): Promise<PaneNow> {
  const line = (await tmux('display-message', '-p', '-t', target, GEOMETRY)).trim();
  const m = /^(%\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(line);
  if (!m)
    throw unavailable(`tmux answered ${JSON.stringify(sanitizeLine(line))} for pane ${sanitizeLine(target)}`);
  const n = m.slice(2).map(Number);
  return {
    paneId: m[1]!,
    serverPid: n[0]!,
    historySize: n[1]!,
    cursorY: n[2]!,
    cursorX: n[3]!,
    width: n[4]!,
    height: n[5]!,
    historyLimit: n[6]!,
  };
}

/** capture-pane's text as lines (its final newline is not a line). */
async function capture(
  tmux: Tmux,
  pane: string,
  first: number,
  last: number,
  join: boolean,
): Promise<string[]> {
  const args = ['capture-pane', '-p', '-t', pane, '-S', String(first), '-E', String(last)];
  if (join) args.push('-J');
  const out = await tmux(...args);
  const lines = out.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

async function captureRecorded(
  tmux: Tmux,
  now: PaneNow,
  rec: Parameters<typeof planCapture>[0],
  plan: CapturePlan,
): Promise<{ lines: string[]; scrolledOff: boolean } | { note: string }> {
  if (plan.kind === 'none') return plan.note ? { note: plan.note } : { lines: [], scrolledOff: false };
  if (plan.kind === 'rows') {
    const checked = checkRows(await capture(tmux, now.paneId, plan.first, plan.last, true), plan, rec);
    return 'note' in checked ? checked : { lines: checked.lines, scrolledOff: false };
  }
  const rows = await capture(tmux, now.paneId, plan.first, plan.last, false);
  const where = locateOutput(rows, plan.first, rec, now);
  if ('note' in where) return where;
  const lines = trimLastLine(await capture(tmux, now.paneId, where.first, where.last, true), rec);
  return { lines, scrolledOff: where.scrolledOff };
}

async function fallback(
  tmux: Tmux,
  now: PaneNow,
  prompt: RegExp,
  maxLines: number,
  maxBytes: number,
): Promise<LastCommand> {
  const first = -Math.min(now.historySize, FALLBACK_ROWS);
  const lines = await capture(tmux, now.paneId, first, now.cursorY, true);
  const found = fallbackFromLines(lines, prompt);
  const exact =
    'the shell integration would mark it exactly: eval "$(kortty-rag shell-init bash)" (or zsh, fish) in the shell\'s rc file';
  if (!found)
    return {
      command: '',
      exitCode: null,
      output: '',
      truncated: false,
      marks: false,
      note: `no shell integration marks in this pane and no two prompt lines matching the prompt pattern; ${exact}`,
    };
  const bounded = boundOutput(found.lines, maxLines, maxBytes);
  return {
    command: found.command,
    exitCode: null,
    output: bounded.output,
    truncated: bounded.truncated,
    marks: false,
    note: [`found by the prompt pattern (no exit code); ${exact}`, bounded.note ?? '']
      .filter(Boolean)
      .join('; '),
  };
}

function fromStdin(text: string, maxLines: number, maxBytes: number): LastCommand {
  const cut = Buffer.byteLength(text, 'utf8') > MAX_STDIN_BYTES;
  if (cut) throw unavailable(`the command on stdin is bigger than ${MAX_STDIN_BYTES} bytes`);
  const v = parseJsonText(text, stdinSchema, 'stdin', 'last command');
  const bounded = boundOutput(v.output.split(/\r?\n/), maxLines, maxBytes);
  return {
    command: v.command,
    exitCode: v.exitCode ?? null,
    output: bounded.output,
    truncated: bounded.truncated,
    marks: true,
    ...(bounded.note ? { note: bounded.note } : {}),
  };
}
