// Reads and writes ai/profiles.json. Thin I/O shell over src/ai/profiles.ts.

import { dirname } from 'node:path';
import type { z } from 'zod';
import { createError } from '../errors.js';
import { atomicWrite } from '../storage/atomic-write.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { profilesPath } from '../storage/paths.js';
import type { ProfilesConfig } from '../types.js';
import { parseJsonText } from '../util/json-check.js';
import {
  asProfilesError,
  completeProfiles,
  emptyProfilesConfig,
  parseProfilesConfig,
  profilesFileSchema,
  serializeProfilesConfig,
} from './profiles.js';

/** The validated configuration; a missing file gives the empty default (no profiles, no roles). */
export async function loadProfiles(
  path: string = profilesPath(),
  env: FsEnv = nodeFsEnv,
): Promise<ProfilesConfig> {
  let bytes: Buffer;
  try {
    bytes = await env.readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyProfilesConfig();
    throw createError('IO_FAILED', { path, op: 'read', reason: (err as Error).message }, err);
  }
  let file: z.output<typeof profilesFileSchema>;
  try {
    file = parseJsonText(bytes, profilesFileSchema, path, 'AI profiles');
  } catch (err) {
    throw asProfilesError(err, path);
  }
  return completeProfiles(file, path);
}

/** Validate, then replace the file atomically (temp file, fsync, verify, rename, dir fsync). */
export async function saveProfiles(
  cfg: ProfilesConfig,
  path: string = profilesPath(),
  env: FsEnv = nodeFsEnv,
): Promise<void> {
  const checked = parseProfilesConfig(cfg, path);
  const text = serializeProfilesConfig(checked);
  await env.mkdir(dirname(path));
  await atomicWrite(path, Buffer.from(text, 'utf8'), {
    env,
    verify: (bytes) => {
      if (bytes.toString('utf8') !== text)
        throw createError('IO_FAILED', { path, op: 'verify', reason: 'read-back differs' });
    },
  });
}
