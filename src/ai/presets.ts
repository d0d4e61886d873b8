// Model-family prompt presets: data files (src/ai/presets/<family>.json), validated here. Pure.
//
//   { "family": "qwen", "displayName": "...", "systemRole": true,
//     "instructions": "always added", "citationHint": "added only when a context block is present",
//     "stop": ["<|im_end|>"],
//     "lastCommand": { "succeeded": "…", "failed": "…", "unknown": "…" } }
// `systemRole: false` tells chat backends the family's template has no system turn (Gemma,
// DeepSeek-R1): the system text is then prepended to the first user turn, order unchanged.

import { z } from 'zod';
import { createError, isKorttyError } from '../errors.js';
import { parseJsonText } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { MODEL_FAMILIES } from './families.js';

export const presetSchema = z.strictObject({
  family: z.enum(MODEL_FAMILIES),
  displayName: z.string(),
  systemRole: z.boolean(),
  instructions: z.string(),
  citationHint: z.string(),
  /** Extra stop strings for backends that need them. */
  stop: z.array(z.string().min(1)).default([]),
  /**
   * The request of "ask about the last command", by its exit code (0, non-zero, unknown). A
   * family without it uses the generic preset's.
   */
  lastCommand: z
    .strictObject({ succeeded: z.string().min(1), failed: z.string().min(1), unknown: z.string().min(1) })
    .optional(),
});

export type ModelPreset = z.output<typeof presetSchema>;

/** A schema mismatch as PRESET_INVALID naming the field and what was expected. */
function asPresetError(err: unknown, path: string): unknown {
  if (!isKorttyError(err, 'FILE_INVALID')) return err;
  const d = err.details;
  return createError('PRESET_INVALID', {
    path: sanitizeLine(path),
    reason: `${d.field}: expected ${d.expected}, found ${d.found}`,
  });
}

/** A preset file's text (or bytes) parsed and checked. */
export function parsePresetText(text: string | Uint8Array, path: string): ModelPreset {
  try {
    return parseJsonText(text, presetSchema, path, 'model-family preset');
  } catch (err) {
    throw asPresetError(err, path);
  }
}

/** The preset for a family; falls back to `generic`, which must exist. */
export function presetFor(family: string, presets: ReadonlyMap<string, ModelPreset>): ModelPreset {
  const p = presets.get(family) ?? presets.get('generic');
  if (!p) throw createError('PRESET_NOT_FOUND', { family, known: [...presets.keys()].join(', ') || 'none' });
  return p;
}

/** The request for a last command that exited with this code (null: not known). */
export function lastCommandQuestion(
  preset: ModelPreset,
  presets: ReadonlyMap<string, ModelPreset>,
  exitCode: number | null,
): string {
  const texts = preset.lastCommand ?? presets.get('generic')?.lastCommand;
  if (!texts)
    throw createError('PRESET_INVALID', {
      path: `${preset.family}.json`,
      reason: 'lastCommand: missing (and no generic preset has it)',
    });
  return exitCode === null ? texts.unknown : exitCode === 0 ? texts.succeeded : texts.failed;
}

/** The preset section of a prompt. */
export function presetText(preset: ModelPreset, withContext: boolean): string {
  return [preset.instructions, withContext ? preset.citationHint : '']
    .filter((s) => s.trim() !== '')
    .join(' ');
}
