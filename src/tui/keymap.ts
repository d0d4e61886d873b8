import { z } from 'zod';
import { createError } from '../errors.js';
import { checkJson } from '../util/json-check.js';
import { ACTION_NAMES, ACTIONS, type ActionName, CHAINS, isAction } from './actions.js';

// Keymaps are data (keymaps/*.json): named action → keys. Keys use the terminal library's names
// ("q", "S-a" for A, "C-c", "M-n", "escape", "enter", "space", "up", "pagedown", "f1"); friendlier
// spellings ("ctrl+c", "alt+n", "A", "esc", "return") are accepted and normalised. A key may be a
// sequence, keys separated by spaces ("C-x C-c", as in Emacs): its first keys are a prefix that
// waits for the rest. Pure.

export interface Keymap {
  name: string;
  source: string;
  keys: Record<ActionName, string[]>;
}

/** A keymap file's shape; which actions and keys are valid is checked by parseKeymap. */
export const keymapFileSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  extends: z.string().optional(),
  bindings: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});
export type KeymapFile = z.infer<typeof keymapFileSchema>;

const ALIASES: Record<string, string> = {
  esc: 'escape',
  return: 'enter',
  ret: 'enter',
  cr: 'enter',
  ' ': 'space',
  spc: 'space',
  pgup: 'pageup',
  pgdn: 'pagedown',
  pgdown: 'pagedown',
  bs: 'backspace',
  del: 'delete',
  ins: 'insert',
};

const NAMED = new Set([
  'escape',
  'enter',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
]);

/** Canonical key name, or undefined when the spec is not a key. */
export function normalizeKey(spec: string): string | undefined {
  if (spec.length === 1) {
    if (/[A-Z]/.test(spec)) return `S-${spec.toLowerCase()}`;
    if (spec === ' ') return 'space';
    return spec.charCodeAt(0) > 0x20 && spec.charCodeAt(0) !== 0x7f ? spec : undefined;
  }
  const m = /^((?:(?:c|ctrl|control|m|alt|meta|s|shift)[-+])*)(.+)$/i.exec(spec);
  if (!m) return undefined;
  const mods = m[1]!.toLowerCase();
  let base = m[2]!;
  const ctrl = /(^|[-+])(c|ctrl|control)[-+]/.test(`-${mods}`);
  const meta = /(^|[-+])(m|alt|meta)[-+]/.test(`-${mods}`);
  let shift = /(^|[-+])(s|shift)[-+]/.test(`-${mods}`);
  if (base.length === 1 && /[A-Z]/.test(base)) {
    shift = !ctrl; // "ctrl+C" means ctrl+c: terminals cannot tell them apart
    base = base.toLowerCase();
  } else if (base.length > 1) {
    base = ALIASES[base.toLowerCase()] ?? base.toLowerCase();
    if (!NAMED.has(base)) return undefined;
  }
  if (base.length === 1 && base.charCodeAt(0) <= 0x20) return undefined;
  if (ctrl && !/^[a-z]$/.test(base) && !NAMED.has(base)) return undefined;
  return `${ctrl ? 'C-' : ''}${meta ? 'M-' : ''}${shift ? 'S-' : ''}${base}`;
}

/** Canonical key or key sequence ("C-x C-c"), or undefined when a part is not a key. */
export function normalizeKeySpec(spec: string): string | undefined {
  if (spec === ' ') return 'space';
  const parts = spec.trim().split(/\s+/);
  if (parts.length === 0 || parts[0] === '') return undefined;
  const keys = parts.map(normalizeKey);
  return keys.every(Boolean) ? keys.join(' ') : undefined;
}

/** How a key (or a key sequence) is shown in hints and the help overlay. */
export function keyLabel(key: string): string {
  if (key.includes(' ')) return key.split(' ').map(keyLabel).join(' ');
  const arrows: Record<string, string> = { up: '↑', down: '↓', left: '←', right: '→' };
  const names: Record<string, string> = {
    escape: 'esc',
    pageup: 'pgup',
    pagedown: 'pgdn',
    backspace: 'bksp',
  };
  let k = key;
  let prefix = '';
  while (/^[CMS]-./.test(k)) {
    const mod = k[0];
    k = k.slice(2);
    if (mod === 'C') prefix += 'ctrl-';
    else if (mod === 'M') prefix += 'alt-';
    else if (k.length === 1) k = k.toUpperCase();
    else prefix += 'shift-';
  }
  return prefix + (arrows[k] ?? names[k] ?? k);
}

export function parseKeymap(raw: unknown, source: string, base?: Keymap): Keymap {
  const bad = (reason: string) => createError('INVALID_ARGUMENT', { name: `keymap ${source}`, reason });
  const file = checkJson(raw, keymapFileSchema, source, 'keymap');
  const keys = {} as Record<ActionName, string[]>;
  for (const [action, spec] of Object.entries(file.bindings)) {
    if (!isAction(action)) throw bad(`unknown action "${action}"`);
    const specs = Array.isArray(spec) ? spec : [spec];
    keys[action] = specs.map((s) => {
      const k = typeof s === 'string' ? normalizeKeySpec(s) : undefined;
      if (!k) throw bad(`action "${action}": ${JSON.stringify(s)} is not a key`);
      return k;
    });
  }
  for (const a of ACTION_NAMES) {
    keys[a] ??= base?.keys[a] ?? [];
    if (keys[a].length === 0) throw bad(`action "${a}" has no key`);
  }
  const km: Keymap = { name: file.name ?? baseName(source), source, keys };
  const conflicts = keymapConflicts(km);
  if (conflicts.length > 0) throw bad(conflicts.join('; '));
  return km;
}

/**
 * Keys that mean two actions on one screen (see CHAINS), and keys bound on their own that also
 * start a sequence there (the sequence could never be typed).
 */
export function keymapConflicts(km: Keymap): string[] {
  const out = new Set<string>();
  for (const [screen, chain] of Object.entries(CHAINS)) {
    const seen = new Map<string, ActionName>();
    for (const a of ACTION_NAMES) {
      if (!(chain as string[]).includes(ACTIONS[a].context)) continue;
      for (const k of km.keys[a]) {
        const prev = seen.get(k);
        if (prev && prev !== a) out.add(`key ${keyLabel(k)} means both ${prev} and ${a} (${screen})`);
        else seen.set(k, a);
      }
    }
    for (const [k, a] of seen) {
      for (const [longer, b] of seen) {
        if (longer.startsWith(`${k} `))
          out.add(`key ${keyLabel(k)} (${a}) is also the start of ${keyLabel(longer)} (${b}) (${screen})`);
      }
    }
  }
  return [...out];
}

/** The action a key (or a complete key sequence) triggers in a chain of contexts, first context first. */
export function actionForKey(km: Keymap, chain: readonly string[], key: string): ActionName | undefined {
  for (const ctx of chain) {
    for (const a of ACTION_NAMES) {
      if (ACTIONS[a].context === ctx && km.keys[a].includes(key)) return a;
    }
  }
  return undefined;
}

export type KeyMatch = { action: ActionName } | { prefix: string } | { unbound: string } | undefined;

/**
 * What the keys typed so far mean: an action, the prefix of a sequence (wait for the next key),
 * a sequence that goes nowhere (`unbound`, after a prefix), or nothing (a single unbound key).
 */
export function matchKeys(km: Keymap, chain: readonly string[], typed: readonly string[]): KeyMatch {
  const seq = typed.join(' ');
  const action = actionForKey(km, chain, seq);
  if (action) return { action };
  for (const a of ACTION_NAMES) {
    if (!chain.includes(ACTIONS[a].context)) continue;
    if (km.keys[a].some((k) => k.startsWith(`${seq} `))) return { prefix: seq };
  }
  return typed.length > 1 ? { unbound: seq } : undefined;
}

const baseName = (source: string) => source.replace(/^.*\//, '').replace(/\.json$/, '');
