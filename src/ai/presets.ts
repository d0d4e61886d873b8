// Model-family prompt presets: data files (src/ai/presets/<family>.json), validated here. Pure.
//
//   { "family": "qwen", "displayName": "...", "systemRole": true,
//     "instructions": "always added", "citationHint": "added only when a context block is present",
//     "stop": ["<|im_end|>"] }
// `systemRole: false` tells chat backends the family's template has no system turn (Gemma,
// DeepSeek-R1): the system text is then prepended to the first user turn, order unchanged.

import { createError } from '../errors.js';
import { isModelFamily, MODEL_FAMILIES, type ModelFamily } from './families.js';

export interface ModelPreset {
  family: ModelFamily;
  displayName: string;
  systemRole: boolean;
  instructions: string;
  citationHint: string;
  /** Extra stop strings for backends that need them. */
  stop: string[];
}

const FIELDS = ['family', 'displayName', 'systemRole', 'instructions', 'citationHint', 'stop'];

export function parsePreset(raw: unknown, path: string): ModelPreset {
  const bad = (reason: string) => createError('PRESET_INVALID', { path, reason });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('must be a JSON object');
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!FIELDS.includes(k)) throw bad(`unknown field "${k}"`);
  if (!isModelFamily(r.family)) throw bad(`family must be one of ${MODEL_FAMILIES.join(', ')}`);
  for (const k of ['displayName', 'instructions', 'citationHint'] as const) {
    if (typeof r[k] !== 'string') throw bad(`${k} must be a string`);
  }
  if (typeof r.systemRole !== 'boolean') throw bad('systemRole must be true or false');
  const stop = r.stop ?? [];
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string' && s.length > 0)) {
    throw bad('stop must be an array of non-empty strings');
  }
  return {
    family: r.family,
    displayName: r.displayName as string,
    systemRole: r.systemRole,
    instructions: r.instructions as string,
    citationHint: r.citationHint as string,
    stop: stop as string[],
  };
}

/** The preset for a family; falls back to `generic`, which must exist. */
export function presetFor(family: string, presets: ReadonlyMap<string, ModelPreset>): ModelPreset {
  const p = presets.get(family) ?? presets.get('generic');
  if (!p) throw createError('PRESET_NOT_FOUND', { family, known: [...presets.keys()].join(', ') || 'none' });
  return p;
}

/** The preset section of a prompt. */
export function presetText(preset: ModelPreset, withContext: boolean): string {
  return [preset.instructions, withContext ? preset.citationHint : '']
    .filter((s) => s.trim() !== '')
    .join(' ');
}
