import { z } from 'zod';
import { checkJson } from '../util/json-check.js';
import type { NumberRange } from '../util/ranges.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { readJsonFile } from './json-file.js';
import { configPath } from './paths.js';
import { SERVICE_RANGES } from './service-block.js';

// $KORTTY_HOME/rag/config.json as a whole: one schema naming every block we know. Each reader
// (the query service, the TUI) checks only its own block, so a broken "tui" never stops a search;
// a top-level key no block claims is a warning naming the file and the key, never an error, so an
// older kortty-rag still runs on a config a newer one wrote.
//
//   {"service": {"enabled": true, "idleMinutes": 15, "answerTimeoutMs": 1500, "startTimeoutMs": 3000},
//    "tui": {"keymap": "vim", "theme": "light"},
//    "last": {"promptPattern": "^\\S+[$#] ", "maxLines": 200, "maxBytes": 16384}}

const number = (r: NumberRange) => (r.integer ? z.int() : z.number()).min(r.min).max(r.max);

/** "service": the query service; every setting is optional (a missing one is the default). */
export const serviceBlockSchema = z.strictObject({
  /** false: commands never start or use the service and always work in-process. */
  enabled: z.boolean().optional(),
  /** A standalone service exits after this long without a request; a hosted one unloads models. */
  idleMinutes: number(SERVICE_RANGES.idleMinutes).optional(),
  /** A service that sends nothing for this long (no "accepted", no heartbeat) is treated as hung. */
  answerTimeoutMs: number(SERVICE_RANGES.answerTimeoutMs).optional(),
  /** How long a command waits for a service it has just started before working in-process. */
  startTimeoutMs: number(SERVICE_RANGES.startTimeoutMs).optional(),
});

/** "tui": the keymap and theme by name or path. */
export const tuiBlockSchema = z.strictObject({ keymap: z.string().optional(), theme: z.string().optional() });

const isRegExp = (s: string) => {
  try {
    new RegExp(s, 'u');
    return true;
  } catch {
    return false;
  }
};

/** Bounds of the last command's output, shared by config.json and `kortty-rag last --lines/--bytes`. */
export const LAST_LINES_RANGE = { min: 1, max: 100_000 } as const;
export const LAST_BYTES_RANGE = { min: 256, max: 4 * 1024 * 1024 } as const;

/** "last": `kortty-rag last` (the last command of a tmux pane): its bounds and the fallback's prompt pattern. */
export const lastBlockSchema = z.strictObject({
  /** A JavaScript regular expression matching a prompt at the start of a line; the command follows the match. */
  promptPattern: z.string().min(1).max(500).refine(isRegExp, 'a valid regular expression').optional(),
  maxLines: z.number().int().min(LAST_LINES_RANGE.min).max(LAST_LINES_RANGE.max).optional(),
  maxBytes: z.number().int().min(LAST_BYTES_RANGE.min).max(LAST_BYTES_RANGE.max).optional(),
});

/** Every known top-level key. "keymap" and "theme" at the top level are the TUI's older spelling. */
export const configShape = {
  service: serviceBlockSchema.optional(),
  tui: tuiBlockSchema.optional(),
  keymap: z.string().optional(),
  theme: z.string().optional(),
  last: lastBlockSchema.optional(),
};

/** The whole file; unknown keys pass (see unknownConfigKeys). */
export const configFileSchema = z.looseObject(configShape);

/** Pure: the top-level keys of parsed config.json that no block claims, in file order. */
export function unknownConfigKeys(raw: unknown): string[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return [];
  return Object.keys(raw).filter((k) => !Object.hasOwn(configShape, k));
}

/** Pure: one warning line per unknown top-level key, naming the file and the key. */
export function configKeyWarnings(raw: unknown, path: string): string[] {
  const known = Object.keys(configShape).join(', ');
  return unknownConfigKeys(raw).map(
    (k) => `${sanitizeLine(path)}: unknown key ${sanitizeLine(JSON.stringify(k))} ignored (known: ${known})`,
  );
}

/**
 * What is wrong with config.json, as warning lines: a damaged file or block (file and field), and
 * every unknown top-level key. Never throws for content; a missing file has nothing to say.
 */
export async function configWarnings(home: string): Promise<string[]> {
  const path = configPath(home);
  try {
    const raw = await readJsonFile(path, z.unknown(), 'configuration');
    if (raw === undefined) return [];
    const damaged: string[] = [];
    try {
      checkJson(raw, configFileSchema, path, 'configuration');
    } catch (err) {
      damaged.push((err as Error).message);
    }
    return [...damaged, ...configKeyWarnings(raw, path)];
  } catch (err) {
    return [(err as Error).message];
  }
}
