import type { Role } from '../types.js';
import type { NumberRange } from '../util/ranges.js';
import type { OptionSpec } from './command.js';

// Option ranges, value checks and conversions shared by commands. The checks run in the command layer
// before a handler (a bad value is a usage error, exit 2); the conversions then cannot fail.

/** A whole number of `unit` from `min` to `max`. */
export const wholeRange = (min: number, max: number, unit?: string): NumberRange => ({
  min,
  max,
  integer: true,
  ...(unit ? { unit } : {}),
});

/** --max-file-size: the scanner's per-file limit (1 MiB..1 GiB), given in MiB. */
export const FILE_SIZE_RANGE: NumberRange = { min: 1, max: 1024, unit: 'MiB' };

/** A target model's context window (the profile schema's upper bound). */
export const CONTEXT_WINDOW_RANGE = wholeRange(1, 16 * 1024 * 1024, 'tokens');

export const ROLE_WORDS = ['text', 'coding', 'both'] as const;

/** Check: text, coding or both, possibly comma-separated. */
export const roleList = (v: string): string | undefined => {
  const bad = v
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .find((x) => x && !(ROLE_WORDS as readonly string[]).includes(x));
  return bad === undefined ? undefined : `"${bad}" is not text, coding or both`;
};

export function parseRoles(values: readonly string[] | undefined): Role[] {
  const out: Role[] = [];
  for (const r of (values ?? []).flatMap((x) => x.split(',')).map((x) => x.trim().toLowerCase())) {
    if (r === 'both') out.push('text', 'coding');
    else if (r === 'text' || r === 'coding') out.push(r);
  }
  return [...new Set(out)];
}

export const roleOption = {
  type: 'string',
  multiple: true,
  value: 'ROLE',
  help: 'a role it serves: text, coding or both (or a comma-separated list)',
  check: roleList,
} as const satisfies OptionSpec;

export const SYNC_WORDS = ['automatic', 'auto', 'manual'] as const;

export function parseSync(v: string | undefined): 'automatic' | 'manual' | undefined {
  if (v === undefined) return undefined;
  return v === 'manual' ? 'manual' : 'automatic';
}
