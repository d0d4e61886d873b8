// Prompt assembly in the fixed order of the spec:
//   action contract → AI Skills → <retrieved_context> block → model-family preset → user content
// The first four are the system part; the user's content (terminal selection, wrapped and
// escaped as untrusted data, then the user's prompt) is the user part. Pure: skills and presets
// are loaded by their own I/O shells and passed in.

import { createError } from '../errors.js';
import { type BlockExcerpt, renderContextBlock } from '../retrieve/block.js';
import { neutralizeUserPrompt, normalizeUntrusted, sanitizeUntrusted } from '../retrieve/sanitize.js';
import type { ActionKind, RetrievalMode } from '../types.js';
import { actionContract } from './contracts.js';
import {
  type LastCommandCapture,
  lastCommandFacts,
  lastCommandQuery,
  lastCommandText,
} from './last-command.js';
import { retrievalClass } from './policy.js';
import { type ModelPreset, presetText } from './presets.js';
import { type Skill, skillsForAction, skillsText } from './skills.js';

export const SELECTION_OPEN = '<terminal_selection>';
export const SELECTION_CLOSE = '</terminal_selection>';

export type SectionId = 'contract' | 'skills' | 'context' | 'preset' | 'user';

export interface PromptSection {
  id: SectionId;
  role: 'system' | 'user';
  text: string;
}

export interface PromptInput {
  action: ActionKind;
  /** What the user typed (instructions). */
  prompt?: string;
  /** Selected terminal or snippet text (untrusted data). */
  selection?: string;
  /**
   * The last command and its output (untrusted data, in place of a selection), with the request
   * for it from the presets (used when the user typed no prompt).
   */
  lastCommand?: { capture: LastCommandCapture; question: string };
  /** All loaded skills; those not applying to the action are left out. */
  skills?: readonly Skill[];
  /** Selected excerpts (src/retrieve/bounds.ts); rendered here so the block is always ours. */
  excerpts?: readonly BlockExcerpt[];
  preset: ModelPreset;
  requireCitations?: boolean;
  retrievalMode?: RetrievalMode;
}

export interface AssembledPrompt {
  /** The retrieval query: the user's prompt, else the selection. */
  query: string;
  sections: PromptSection[];
  system: string;
  user: string;
  /** system + blank line + user: what tests and single-string backends see. */
  flat: string;
  /** Markers in the block (`R1`...), for the citation check. */
  markers: string[];
}

/**
 * Query = the user's prompt, or the selected text when there is none (invisible/ANSI noise
 * removed); for a last command, its command line and error lines (after the prompt, if any).
 */
export function queryFor(input: {
  prompt?: string;
  selection?: string;
  lastCommand?: { capture: LastCommandCapture };
}): string {
  if (input.lastCommand) {
    const q = lastCommandQuery(input.lastCommand.capture, input.prompt);
    if (q !== '') return q;
    throw createError('QUERY_EMPTY');
  }
  const prompt = normalizeUntrusted(input.prompt ?? '').trim();
  if (prompt !== '') return prompt;
  const selection = normalizeUntrusted(input.selection ?? '').trim();
  if (selection !== '') return selection;
  throw createError('QUERY_EMPTY');
}

export function assemblePrompt(input: PromptInput): AssembledPrompt {
  const query = queryFor(input);
  const excerpts = input.excerpts ?? [];
  const cls = retrievalClass(input.action);
  if (cls === 'never' && excerpts.length > 0) {
    throw createError('INVALID_ARGUMENT', {
      name: 'excerpts',
      reason: `${input.action} requests never receive knowledge-store excerpts`,
    });
  }
  const mode = input.retrievalMode ?? 'before';
  const toolOffered = cls !== 'never' && mode !== 'before';
  const last = input.lastCommand;
  const selectionText = last ? lastCommandText(last.capture) : (input.selection ?? '');
  const selection = normalizeUntrusted(selectionText).trim() !== '' ? selectionText : '';
  const block = renderContextBlock(excerpts);

  const sections: PromptSection[] = [];
  const add = (id: SectionId, role: PromptSection['role'], text: string) => {
    if (text.trim() !== '') sections.push({ id, role, text });
  };
  add(
    'contract',
    'system',
    actionContract({
      action: input.action,
      hasContext: block !== '',
      exampleMarker: excerpts[0]?.marker,
      hasSelection: selection !== '',
      requireCitations: input.requireCitations === true,
      retrievalMode: mode,
      toolOffered,
    }),
  );
  // Skills and presets are trusted text, but they must not spell our wrappers or control tokens
  // either: the prompt always holds exactly one of each wrapper.
  add(
    'skills',
    'system',
    neutralizeUserPrompt(skillsText(skillsForAction(input.skills ?? [], input.action))),
  );
  add('context', 'system', block);
  add('preset', 'system', neutralizeUserPrompt(presetText(input.preset, block !== '' || toolOffered)));
  add(
    'user',
    'user',
    last
      ? userContent(
          [lastCommandFacts(last.capture), input.prompt?.trim() ? input.prompt : last.question].join('\n'),
          selection,
        )
      : userContent(input.prompt ?? '', selection),
  );

  const system = sections
    .filter((s) => s.role === 'system')
    .map((s) => s.text)
    .join('\n\n');
  const user = sections
    .filter((s) => s.role === 'user')
    .map((s) => s.text)
    .join('\n\n');
  return {
    query,
    sections,
    system,
    user,
    flat: `${system}\n\n${user}`,
    markers: excerpts.map((e) => e.marker),
  };
}

function userContent(prompt: string, selection: string): string {
  const parts: string[] = [];
  if (selection !== '') {
    parts.push(`${SELECTION_OPEN}\n${sanitizeUntrusted(selection).replace(/\n+$/, '')}\n${SELECTION_CLOSE}`);
  }
  const p = neutralizeUserPrompt(prompt).trim();
  if (p !== '') parts.push(p);
  else parts.push('(No separate request: apply the task to the selected text.)');
  return parts.join('\n\n');
}
