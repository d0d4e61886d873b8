import type { z } from 'zod';
import { createError, type KorttyError } from '../errors.js';
import { sanitizeLine } from './terminal-text.js';

// Pure: JSON text checked against a zod schema. Every JSON file kortty-rag reads back (store.json,
// job and status files, config, keymaps, themes, run records…) goes through here (reading the
// file is src/storage/json-file.ts); a mismatch is FILE_INVALID naming the file, the field
// (`sources[2].root`) and what was expected versus found. Text from the file is untrusted, so it
// is shown through sanitizeLine.

/** The field path as written in JSON terms: `sources[2].root`, `roles["a b"]`; `(file)` for the root. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out ? sanitizeLine(out) : '(file)';
}

/** A value as it appears in the file, short: `"abc"`, `42`, `an object`, `nothing (missing)`. */
export function describeFound(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') {
    const s = JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
    return `the string ${sanitizeLine(s)}`;
  }
  return `${typeof v} ${sanitizeLine(String(v))}`;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'nonoptional' ? 'a value' : `${article(issue.expected)}${issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? JSON.stringify(issue.values[0])
        : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
    case 'too_big': {
      const op = issue.code === 'too_small' ? (issue.inclusive ? '≥' : '>') : issue.inclusive ? '≤' : '<';
      const what = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' entries' : '';
      const lead = issue.origin === 'number' || issue.origin === 'int' ? 'a number ' : 'a length ';
      return `${lead}${op} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}${what}`;
    }
    case 'unrecognized_keys':
      return 'no other fields';
    case 'invalid_format':
      return issue.format === 'regex'
        ? `text matching ${issue.pattern}`
        : `${article(issue.format)}${issue.format}`;
    default:
      return sanitizeLine(issue.message);
  }
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an ' : 'a ');

/** The first problem zod found in `raw`: which field, what was expected, what is there. */
export function firstIssue(
  error: z.ZodError,
  raw: unknown,
): { field: string; expected: string; found: string } {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    return {
      field: fieldPath([...issue.path, key]),
      expected: 'no such field',
      found: `unknown field ${sanitizeLine(JSON.stringify(key))}`,
    };
  }
  return {
    field: fieldPath(issue.path),
    expected: expectedOf(issue),
    found: describeFound(valueAt(raw, issue.path)),
  };
}

/** Our error for the first problem zod found in `raw` (the parsed content of `path`). */
export function schemaError(path: string, kind: string, error: z.ZodError, raw: unknown): KorttyError {
  return createError('FILE_INVALID', { path: sanitizeLine(path), kind, ...firstIssue(error, raw) });
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Pure: `raw` (already parsed) checked against `schema`. */
export function checkJson<S extends z.ZodType>(
  raw: unknown,
  schema: S,
  path: string,
  kind: string,
): z.output<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw schemaError(path, kind, r.error, raw);
  return r.data;
}

/** Pure: file text parsed as JSON and checked against `schema`. */
export function parseJsonText<S extends z.ZodType>(
  text: string | Uint8Array,
  schema: S,
  path: string,
  kind: string,
): z.output<S> {
  const bad = (found: string) =>
    createError('FILE_INVALID', { path: sanitizeLine(path), kind, field: '(file)', expected: 'JSON', found });
  let str: string;
  try {
    str = typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: true }).decode(text);
  } catch {
    throw bad('bytes that are not UTF-8');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(str);
  } catch (err) {
    throw bad(str.trim() === '' ? 'an empty file' : `invalid JSON (${sanitizeLine((err as Error).message)})`);
  }
  return checkJson(raw, schema, path, kind);
}
