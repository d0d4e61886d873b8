// AI Skills: the user's own instruction snippets, one Markdown file each in ai/skills/
// (src/storage/paths.ts skillsDir). Trusted (the user wrote them), so they are not escaped,
// but they are placed after the action contract and cannot remove it. Pure; loading is
// src/ai/skills-file.ts.
//
// Optional front matter limits a skill to some actions:
//   ---
//   actions: ask, explain
//   ---
//   Prefer POSIX sh in examples.
// Without it the skill applies to every action.

import { createError } from '../errors.js';
import type { ActionKind } from '../types.js';
import { isActionKind } from './policy.js';

export const MAX_SKILL_BYTES = 32 * 1024;

export interface Skill {
  /** File name without `.md`. */
  name: string;
  /** Actions it applies to; undefined = all. */
  actions?: ActionKind[];
  text: string;
}

export function parseSkill(name: string, source: string, path: string): Skill {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (!fm) return { name, text: text.trim() };
  const skill: Skill = { name, text: text.slice(fm[0].length).trim() };
  for (const line of fm[1]!.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^\s*([A-Za-z]+)\s*:\s*(.*)$/.exec(line);
    if (!m)
      throw createError('SKILL_INVALID', {
        path,
        reason: `front matter line ${JSON.stringify(line)} is not "key: value"`,
      });
    const [, key, value] = m;
    if (key !== 'actions')
      throw createError('SKILL_INVALID', { path, reason: `unknown front matter key "${key}"` });
    const actions = value!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const a of actions) {
      if (!isActionKind(a))
        throw createError('SKILL_INVALID', { path, reason: `unknown action "${a}" in front matter` });
    }
    skill.actions = actions as ActionKind[];
  }
  return skill;
}

export function skillsForAction(skills: readonly Skill[], action: ActionKind): Skill[] {
  return skills.filter((s) => s.text !== '' && (s.actions === undefined || s.actions.includes(action)));
}

/** The AI Skills section of a prompt ('' when none apply). */
export function skillsText(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return [
    "AI Skills (the user's standing instructions):",
    ...skills.map((s) => `## ${s.name}\n${s.text}`),
  ].join('\n\n');
}
