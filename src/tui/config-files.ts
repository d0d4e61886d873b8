import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createError } from '../errors.js';
import { configKeyWarnings, configShape, type tuiBlockSchema } from '../storage/config-json.js';
import { readJsonFileSync } from '../storage/json-file.js';
import { configPath, ragDir } from '../storage/paths.js';
import { type Keymap, parseKeymap } from './keymap.js';
import { parseTheme, type Theme } from './theme.js';

// Loads keymaps and themes by name or path. A name is looked up in $KORTTY_HOME/rag/<kind>/ first
// (the user's files override the shipped ones), then in the shipped keymaps/ or themes/ directory.
// A file may say "extends": "<name>" to change only a few entries.

export const SHIPPED_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const shippedDir = (kind: 'keymaps' | 'themes') => join(SHIPPED_ROOT, kind);
export const userDir = (kind: 'keymaps' | 'themes', home: string) => join(ragDir(home), kind);

function locate(kind: 'keymaps' | 'themes', ref: string, home: string, cwd: string): string {
  if (ref.includes('/') || ref.endsWith('.json')) {
    const p = isAbsolute(ref) ? ref : resolve(cwd, ref);
    if (!existsSync(p))
      throw createError('INVALID_ARGUMENT', { name: kind.slice(0, -1), reason: `${p} does not exist` });
    return p;
  }
  if (!/^[A-Za-z0-9._-]+$/.test(ref))
    throw createError('INVALID_ARGUMENT', { name: kind.slice(0, -1), reason: `"${ref}" is not a name` });
  for (const dir of [userDir(kind, home), shippedDir(kind)]) {
    const p = join(dir, `${ref}.json`);
    if (existsSync(p)) return p;
  }
  throw createError('INVALID_ARGUMENT', {
    name: kind.slice(0, -1),
    reason: `no ${kind.slice(0, -1)} "${ref}" in ${userDir(kind, home)} or ${shippedDir(kind)}`,
  });
}

/** Parsed JSON of a file that exists (located first); its shape is checked by the caller's parser. */
function readJson(path: string, kind: string): unknown {
  const raw = readJsonFileSync(path, z.unknown(), kind);
  if (raw === undefined)
    throw createError('INVALID_ARGUMENT', { name: kind, reason: `${path} does not exist` });
  return raw;
}

const ROOT_OF: Record<'keymaps' | 'themes', string> = { keymaps: 'default', themes: 'dark' };

function loadChain<T>(
  kind: 'keymaps' | 'themes',
  ref: string,
  home: string,
  cwd: string,
  parse: (raw: unknown, src: string, base?: T) => T,
  depth = 0,
): T {
  if (depth > 4)
    throw createError('INVALID_ARGUMENT', { name: kind, reason: `"extends" chain too deep at ${ref}` });
  const path = locate(kind, ref, home, cwd);
  const raw = readJson(path, kind.slice(0, -1)) as { extends?: string; name?: string };
  let base: T | undefined;
  if (raw && typeof raw === 'object' && typeof raw.extends === 'string') {
    // A user file extending its own shipped namesake ("default" overriding "default") reads the shipped one.
    const shipped = join(shippedDir(kind), `${raw.extends}.json`);
    const next = raw.extends === ref && path !== shipped && existsSync(shipped) ? shipped : raw.extends;
    base = loadChain(kind, next, home, cwd, parse, depth + 1);
  } else {
    // Without "extends", a file changes the shipped root (default keymap, dark theme); the root itself stands alone.
    const root = join(shippedDir(kind), `${ROOT_OF[kind]}.json`);
    if (resolve(path) !== resolve(root)) base = loadChain(kind, root, home, cwd, parse, depth + 1);
  }
  return parse(raw, path, base);
}

export function loadKeymap(ref: string, home: string, cwd = process.cwd()): Keymap {
  return loadChain<Keymap>('keymaps', ref, home, cwd, parseKeymap);
}

export function loadTheme(ref: string, home: string, cwd = process.cwd()): Theme {
  return loadChain<Theme>('themes', ref, home, cwd, parseTheme);
}

export type TuiConfig = z.infer<typeof tuiBlockSchema>;

/** The parts of config.json the TUI reads; other blocks ("service"…) belong to their own readers. */
const configTuiPartSchema = z.looseObject({
  tui: configShape.tui,
  keymap: configShape.keymap,
  theme: configShape.theme,
});

/** `{"tui": {"keymap": "vim", "theme": "light"}}` in $KORTTY_HOME/rag/config.json (top-level keys also work). */
export function readTuiConfig(home: string): TuiConfig {
  const raw = readJsonFileSync(configPath(home), configTuiPartSchema, 'configuration');
  if (!raw) return {};
  const pick = (v: string | undefined) => (v ? v : undefined);
  return {
    keymap: pick(raw.tui?.keymap) ?? pick(raw.keymap),
    theme: pick(raw.tui?.theme) ?? pick(raw.theme),
  };
}

/** config.json's unknown top-level keys as one warning line (undefined when there are none). */
export function configNotice(home: string): string | undefined {
  const path = configPath(home);
  return (
    configKeyWarnings(readJsonFileSync(path, z.unknown(), 'configuration'), path).join('; ') || undefined
  );
}
