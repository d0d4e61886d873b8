// Loads model-family presets. Built-in presets ship as JSON next to the sources
// (src/ai/presets/); tsc does not copy JSON, so from dist/src/ai/ they are found at
// ../../../src/ai/presets/. A user directory given by the caller overrides built-ins by family.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createError } from '../errors.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { MODEL_FAMILIES } from './families.js';
import { type ModelPreset, parsePresetText } from './presets.js';

export function builtinPresetsDir(): string {
  const candidates = [
    new URL('./presets/', import.meta.url),
    new URL('../../../src/ai/presets/', import.meta.url),
  ];
  for (const u of candidates) {
    const dir = fileURLToPath(u);
    if (existsSync(join(dir, 'generic.json'))) return dir;
  }
  throw createError('PRESET_NOT_FOUND', {
    family: 'generic',
    known: `none (looked in ${candidates.map((u) => fileURLToPath(u)).join(', ')})`,
  });
}

/** Presets by family: built-ins, then `overrideDir/<family>.json` where present. */
export async function loadPresets(
  overrideDir?: string,
  env: FsEnv = nodeFsEnv,
): Promise<Map<string, ModelPreset>> {
  const out = new Map<string, ModelPreset>();
  const dirs = [builtinPresetsDir(), ...(overrideDir ? [overrideDir] : [])];
  for (const dir of dirs) {
    for (const family of MODEL_FAMILIES) {
      const path = join(dir, `${family}.json`);
      let bytes: Buffer;
      try {
        bytes = await env.readFile(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw createError('PRESET_INVALID', { path, reason: (err as Error).message }, err);
      }
      const preset = parsePresetText(bytes, path);
      if (preset.family !== family)
        throw createError('PRESET_INVALID', {
          path,
          reason: `family: "${preset.family}" does not match the file name`,
        });
      // An override written before the last-command texts existed keeps the built-in ones.
      const prev = out.get(family);
      out.set(
        family,
        preset.lastCommand || !prev?.lastCommand ? preset : { ...preset, lastCommand: prev.lastCommand },
      );
    }
  }
  return out;
}
