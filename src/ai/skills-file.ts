// Loads AI Skills from ai/skills/*.md. A missing directory means no skills. A bad file (too
// large, not UTF-8, bad front matter) is reported and skipped; the others still load, so one
// broken snippet never blocks every AI action.

import { join } from 'node:path';
import { createError, isKorttyError, type KorttyError } from '../errors.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { skillsDir } from '../storage/paths.js';
import { MAX_SKILL_BYTES, parseSkill, type Skill } from './skills.js';

export interface LoadedSkills {
  /** Sorted by file name (code-unit order), so prompts are deterministic. */
  skills: Skill[];
  problems: KorttyError[];
}

export async function loadSkills(dir: string = skillsDir(), env: FsEnv = nodeFsEnv): Promise<LoadedSkills> {
  let names: string[];
  try {
    names = await env.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { skills: [], problems: [] };
    throw createError('IO_FAILED', { path: dir, op: 'readdir', reason: (err as Error).message }, err);
  }
  const files = names
    .filter((n) => /\.md$/i.test(n) && !n.startsWith('.'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const skills: Skill[] = [];
  const problems: KorttyError[] = [];
  for (const file of files) {
    const path = join(dir, file);
    try {
      const bytes = await env.readFile(path);
      if (bytes.length > MAX_SKILL_BYTES) {
        throw createError('SKILL_INVALID', {
          path,
          reason: `${bytes.length} bytes; the limit is ${MAX_SKILL_BYTES}`,
        });
      }
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw createError('SKILL_INVALID', { path, reason: 'not valid UTF-8' });
      }
      skills.push(parseSkill(file.replace(/\.md$/i, ''), text, path));
    } catch (err) {
      problems.push(
        isKorttyError(err)
          ? err
          : createError('SKILL_INVALID', { path, reason: (err as Error).message }, err),
      );
    }
  }
  return { skills, problems };
}
