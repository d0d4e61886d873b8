import { createError } from '../errors.js';
import { isRole, ROLES, type Role } from './roles.js';

// Themes are data (themes/*.json): semantic role → colours and attributes. Parsing and validation
// are pure; loading files is config-files.ts; turning styles into terminal attributes is paint.ts.

export interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface Theme {
  name: string;
  source: string;
  roles: Record<Role, Style>;
}

export interface ThemeFile {
  name?: string;
  description?: string;
  extends?: string;
  roles: Partial<Record<string, Style>>;
}

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

const STYLE_KEYS = new Set(['fg', 'bg', 'bold', 'underline', 'inverse']);

/** Validates a theme file; `base` supplies roles the file leaves out (from `extends`). */
export function parseTheme(raw: unknown, source: string, base?: Theme): Theme {
  const bad = (reason: string) => createError('INVALID_ARGUMENT', { name: `theme ${source}`, reason });
  if (!raw || typeof raw !== 'object') throw bad('expected a JSON object with "roles"');
  const file = raw as ThemeFile;
  if (!file.roles || typeof file.roles !== 'object') throw bad('missing "roles" object');
  const roles = {} as Record<Role, Style>;
  for (const [role, style] of Object.entries(file.roles)) {
    if (!isRole(role)) throw bad(`unknown role "${role}" (known: ${ROLES.join(', ')})`);
    if (!style || typeof style !== 'object') throw bad(`role "${role}": expected an object`);
    for (const [k, v] of Object.entries(style)) {
      if (!STYLE_KEYS.has(k))
        throw bad(`role "${role}": unknown key "${k}" (fg, bg, bold, underline, inverse)`);
      if ((k === 'fg' || k === 'bg') && !isColour(v))
        throw bad(`role "${role}": ${k} ${JSON.stringify(v)} is not a colour (#rrggbb or a name like "red")`);
      if (k !== 'fg' && k !== 'bg' && typeof v !== 'boolean')
        throw bad(`role "${role}": ${k} must be true or false`);
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
