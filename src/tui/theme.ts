import { z } from 'zod';
import { createError } from '../errors.js';
import { checkJson } from '../util/json-check.js';
import { isRole, ROLES, type Role } from './roles.js';

// Themes are data (themes/*.json): semantic role → colours and attributes. Parsing and validation
// are pure; loading files is config-files.ts; turning styles into terminal attributes is paint.ts.

const styleSchema = z.strictObject({
  fg: z.string().optional(),
  bg: z.string().optional(),
  bold: z.boolean().optional(),
  underline: z.boolean().optional(),
  inverse: z.boolean().optional(),
});
export type Style = z.infer<typeof styleSchema>;

export interface Theme {
  name: string;
  source: string;
  roles: Record<Role, Style>;
}

/** A theme file's shape; which roles and colours are valid is checked by parseTheme. */
export const themeFileSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  extends: z.string().optional(),
  roles: z.record(z.string(), styleSchema),
});
export type ThemeFile = z.infer<typeof themeFileSchema>;

const NAMED = new Set([
  'default',
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
  'gray',
  'grey',
  ...['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'].map((c) => `light${c}`),
]);

export function isColour(c: unknown): c is string {
  return typeof c === 'string' && (NAMED.has(c) || /^#[0-9a-fA-F]{6}$/.test(c));
}

/** Validates a theme file; `base` supplies roles the file leaves out (from `extends`). */
export function parseTheme(raw: unknown, source: string, base?: Theme): Theme {
  const bad = (reason: string) => createError('INVALID_ARGUMENT', { name: `theme ${source}`, reason });
  const file = checkJson(raw, themeFileSchema, source, 'theme');
  const roles = {} as Record<Role, Style>;
  for (const [role, style] of Object.entries(file.roles)) {
    if (!isRole(role)) throw bad(`unknown role "${role}" (known: ${ROLES.join(', ')})`);
    for (const k of ['fg', 'bg'] as const) {
      const v = style[k];
      if (v !== undefined && !isColour(v))
        throw bad(`role "${role}": ${k} ${JSON.stringify(v)} is not a colour (#rrggbb or a name like "red")`);
    }
    roles[role] = { ...style };
  }
  const merged = {} as Record<Role, Style>;
  for (const r of ROLES) merged[r] = roles[r] ?? base?.roles[r] ?? {};
  return { name: file.name ?? baseName(source), source, roles: merged };
}

/** Roles a complete (shipped) theme must define. */
export function missingRoles(raw: ThemeFile): Role[] {
  return ROLES.filter((r) => !raw.roles?.[r]);
}

const baseName = (source: string) => source.replace(/^.*\//, '').replace(/\.json$/, '');
