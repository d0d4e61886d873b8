import type { Role } from '../types.js';
import type { OptionSpec } from './command.js';

// Option value checks and conversions shared by commands. The checks run in the command layer
// before a handler (a bad value is a usage error, exit 2); the conversions then cannot fail.

/** Check: a whole number ≥ min. */
export const wholeNumber =
  (min = 0) =>
  (v: string): string | undefined => {
    const n = Number(v);
    return v.trim() !== '' && Number.isInteger(n) && n >= min ? undefined : `not a whole number >= ${min}`;
  };

/** Check: a positive number (of MiB). */
export const positiveNumber = (v: string): string | undefined => {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && n > 0 ? undefined : 'not a positive number';
};

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
