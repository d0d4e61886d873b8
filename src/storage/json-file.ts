import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { createError, type KorttyError } from '../errors.js';
import { parseJsonText } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';

// Reading a JSON file we wrote (or the user edited): a missing file is undefined, an unreadable
// one IO_FAILED, and the content is checked against its schema (src/util/json-check.ts).

function ioError(path: string, err: unknown): KorttyError {
  return createError(
    'IO_FAILED',
    { path: sanitizeLine(path), op: 'read', reason: (err as Error).message },
    err,
  );
}

/** The checked content of a JSON file; undefined when the file does not exist. */
export async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
  kind: string,
): Promise<z.output<S> | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(path, err);
  }
  return parseJsonText(bytes, schema, path, kind);
}

/** readJsonFile for synchronous callers (the TUI loads its keymap and theme before the first paint). */
export function readJsonFileSync<S extends z.ZodType>(
  path: string,
  schema: S,
  kind: string,
): z.output<S> | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(path, err);
  }
  return parseJsonText(bytes, schema, path, kind);
}
