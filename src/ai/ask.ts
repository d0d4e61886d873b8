import { join } from 'node:path';
import { countTokens, getTokenizer } from '../chunk/tokenizer.js';
import { createError, isKorttyError } from '../errors.js';
import { contextBudget } from '../retrieve/bounds.js';
import { sanitizeUntrusted } from '../retrieve/sanitize.js';
import {
  type SearchDeps,
  type SearchRequest,
  type SearchResult,
  search,
  storeFailureWarning,
} from '../retrieve/search.js';
import { aiDir, korttyHome, profilesPath, runsDir, skillsDir } from '../storage/paths.js';
import { damagedStoreWarning, scanStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import type { ActionKind, AiProfile, Excerpt } from '../types.js';
import { answerTokens } from './answer-bounds.js';
import { backendConfig, createChatBackend } from './backends/create-backend.js';
import {
  createSearchKnowledgeHandler,
  retrievalPlan,
  SEARCH_KNOWLEDGE,
  toolsFor,
} from './backends/search-knowledge.js';
import type { ChatBackend } from './backends/types.js';
import { checkCitations } from './citations.js';
import type { LastCommandCapture } from './last-command.js';
import { storesForAction } from './policy.js';
import { lastCommandQuestion, presetFor } from './presets.js';
import { loadPresets } from './presets-file.js';
import { getProfile, profileForRole } from './profiles.js';
import { loadProfiles } from './profiles-file.js';
import { assemblePrompt, type PromptInput, queryFor } from './prompt.js';
import { createRunRecord, type RunStatus } from './runs.js';
import { appendRun, newRunId } from './runs-file.js';
import { describeCut, fitToTokens, type SelectionCut, selectionSlot } from './selection-bounds.js';
import { loadSkills } from './skills-file.js';

// One AI action end to end: profile → stores (roles, then policy) → retrieval → prompt in the
// fixed order → chat backend (streamed) → citation check → run record. I/O shell over the pure
// modules; the CLI (`kortty-rag ask`), the tmux popup and the TUI call this.

/** Actions that prefer the Coding role's profile when no profile is named. */
const CODING_ACTIONS: ReadonlySet<ActionKind> = new Set(['fix', 'command']);

export interface ActionInput {
  action: ActionKind;
  prompt?: string;
  selection?: string;
  /** The selection was longer than the byte cap when read (the faces read it; see app/selection.ts). */
  selectionCut?: SelectionCut;
  /**
   * The last command (redacted and bounded by the caller), asked about in place of a selection;
   * a promise while it is still being captured, which overlaps loading the profile and stores.
   */
  lastCommand?: LastCommandInput | PromiseLike<LastCommandInput>;
  profile?: string;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  home?: string;
  /** Injected for tests; default a real backend built from the profile. */
  backend?: ChatBackend;
  searchDeps: SearchDeps<StoreConfig>;
  /** One retrieval; default `search(req, searchDeps)`. The CLI routes it through the query service. */
  /** `warnings` name the stores left out of that retrieval (damaged, unreachable). */
  retrieve?: (req: SearchRequest<StoreConfig>) => Promise<Retrieved>;
  /** Called once the stores are chosen, before any retrieval, model load or chat request. */
  onPlan?: (plan: { stores: readonly StoreConfig[]; before: boolean; tool: boolean }) => void;
  /** The excerpts retrieved before the answer (tool-call retrievals are not reported here). */
  onExcerpts?: (excerpts: readonly Excerpt[]) => void;
  /** A store or AI Skill left out because its file is damaged (the text names the file and why). */
  onWarning?: (message: string) => void;
}

export interface LastCommandInput extends LastCommandCapture {
  marks?: boolean;
  /** What the caller redacted from it, for the run record (kinds and counts). */
  redactions?: readonly { kind: string; count: number }[];
}

export interface ActionResult {
  runId: string;
  status: RunStatus;
  answer: string;
  excerpts: Excerpt[];
  cited: string[];
  profile: AiProfile;
  stores: StoreConfig[];
  /** Set when the selection was cut (bytes when read, tokens to fit the model's context). */
  selectionCut?: SelectionCut;
  /** Set when the action failed or the answer was rejected (the raw answer stays in `answer`). */
  error?: { code: string; message: string };
}

export async function resolveProfile(
  name: string | undefined,
  action: ActionKind,
  home = korttyHome(),
): Promise<{ profile: AiProfile; roles: Awaited<ReturnType<typeof loadProfiles>>['roles'] }> {
  const cfg = await loadProfiles(profilesPath(home));
  if (name) return { profile: getProfile(cfg, name), roles: cfg.roles };
  const role = CODING_ACTIONS.has(action) ? 'coding' : 'text';
  const profile = profileForRole(cfg, role) ?? profileForRole(cfg, role === 'coding' ? 'text' : 'coding');
  if (!profile) {
    throw createError('PROFILE_NOT_FOUND', {
      name: `for the ${role} role (add one: kortty-rag profile add NAME --base-url URL --model M --role ${role})`,
    });
  }
  return { profile, roles: cfg.roles };
}

type Retrieved = Pick<SearchResult, 'excerpts' | 'block'> & { warnings?: string[] };

/** An in-process search as a retrieval: its left-out stores become warnings. */
export async function searchRetrieval(
  req: SearchRequest<StoreConfig>,
  deps: SearchDeps<StoreConfig>,
): Promise<Retrieved> {
  const res = await search(req, deps);
  return { ...res, warnings: res.failedStores.map(storeFailureWarning) };
}

export async function runAction(input: ActionInput): Promise<ActionResult> {
  const home = input.home ?? korttyHome();
  const pending = input.lastCommand === undefined ? undefined : Promise.resolve(input.lastCommand);
  // Awaited below; a capture that fails while the profile is loading must not go unhandled.
  pending?.catch(() => {});
  const { profile, roles } = await resolveProfile(input.profile, input.action, home);
  const { stores: allStores, damaged } = await scanStores(home);
  const last = pending ? await pending : undefined;
  for (const d of damaged) input.onWarning?.(damagedStoreWarning(d));
  const stores = storesForAction(input.action, profile.name, allStores, roles);
  const plan = retrievalPlan(profile.retrievalMode);
  const [skills, presets] = await Promise.all([
    loadSkills(skillsDir(home)),
    loadPresets(join(aiDir(home), 'presets')),
  ]);
  // A broken skill is left out of the prompt, and said so.
  for (const p of skills.problems) input.onWarning?.(p.message);
  const preset = presetFor(profile.family, presets);
  const promptInput = {
    action: input.action,
    prompt: input.prompt,
    ...(last
      ? { lastCommand: { capture: last, question: lastCommandQuestion(preset, presets, last.exitCode) } }
      : {}),
    skills: skills.skills,
    preset,
    requireCitations: profile.requireCitations,
    retrievalMode: stores.length > 0 ? profile.retrievalMode : ('before' as const),
  };
  // The selection is cut to its room in the context before anything uses it: retrieval, the
  // prompt and the run record see the same bounded text.
  const fitted = fitSelection(input, promptInput, profile, stores.length > 0);
  const selection = fitted.text;
  const selectionCut = fitted.cut;
  if (selectionCut) input.onWarning?.(describeCut(selectionCut));
  const query = queryFor({
    prompt: input.prompt,
    selection,
    ...(last ? { lastCommand: { capture: last } } : {}),
  });
  const retrieveRaw =
    input.retrieve ?? ((req: SearchRequest<StoreConfig>) => searchRetrieval(req, input.searchDeps));
  // Each left-out store is said once per action, however many tool calls retrieve.
  const said = new Set<string>();
  const retrieve = async (req: SearchRequest<StoreConfig>) => {
    const res = await retrieveRaw(req);
    for (const w of res.warnings ?? []) {
      if (said.has(w)) continue;
      said.add(w);
      input.onWarning?.(w);
    }
    return res;
  };
  input.onPlan?.({ stores, ...plan });
  const excerpts: Excerpt[] = [];
  if (plan.before && stores.length > 0) {
    const res = await retrieve({ stores, query, contextWindow: profile.contextWindow });
    excerpts.push(...res.excerpts);
    input.onExcerpts?.(res.excerpts);
  }
  const prompt = assemblePrompt({ ...promptInput, selection, excerpts });

  const runId = newRunId();
  const backend = input.backend ?? (await createChatBackend(backendConfig(profile)));
  let answer = '';
  let status: RunStatus = 'ok';
  let error: ActionResult['error'];
  let cited: string[] = [];
  try {
    const req = {
      maxTokens: answerTokens(profile),
      system: prompt.system,
      messages: [{ role: 'user' as const, content: prompt.user }],
      signal: input.signal,
      onToken: (t: string) => {
        answer += t;
        input.onToken?.(t);
      },
    };
    if (plan.tool && stores.length > 0) {
      // Tool-mode excerpts continue the marker sequence after the up-front block's.
      const handler = createSearchKnowledgeHandler(async (q) => {
        const res = await retrieve({
          stores,
          query: q,
          contextWindow: profile.contextWindow,
          firstMarker: excerpts.length + 1,
        });
        excerpts.push(...res.excerpts);
        return res.block || 'No matching excerpts.';
      });
      const { runWithTools } = await import('./backends/run-with-tools.js');
      const out = await runWithTools(
        backend,
        { ...req, tools: toolsFor(profile.retrievalMode) },
        { [SEARCH_KNOWLEDGE]: handler },
        { maxRounds: 3 },
      );
      answer = out.text;
    } else {
      const out = await backend.chat(req);
      answer = out.text;
    }
    cited = checkCitations(
      answer,
      excerpts.map((e) => e.marker),
      { requireCitations: profile.requireCitations },
    ).cited;
  } catch (err) {
    status =
      isKorttyError(err, 'CITATION_MISSING') || isKorttyError(err, 'CITATION_UNKNOWN')
        ? 'rejected'
        : 'failed';
    error = { code: isKorttyError(err) ? err.code : 'CHAT_BACKEND_FAILED', message: (err as Error).message };
  } finally {
    if (!input.backend) await backend.close().catch(() => {});
  }
  if (excerpts.length > 0) {
    await appendRun(
      createRunRecord({
        id: runId,
        time: new Date(),
        action: input.action,
        profile: profile.name,
        backend: profile.backend,
        model: profile.model,
        retrievalMode: profile.retrievalMode,
        stores: stores.map((s) => ({ id: s.id, name: s.name })),
        query,
        excerpts,
        cited,
        status,
        ...(error ? { reason: error } : {}),
        ...(selectionCut ? { selectionCut } : {}),
        answer,
        ...(last
          ? { lastCommand: { exitCode: last.exitCode, truncated: last.truncated, marks: last.marks } }
          : {}),
        ...(last?.redactions ? { redactions: last.redactions } : {}),
      }),
      runsDir(home),
    );
  }
  return {
    runId,
    status,
    answer,
    excerpts,
    cited,
    profile,
    stores,
    ...(selectionCut ? { selectionCut } : {}),
    ...(error ? { error } : {}),
  };
}

/**
 * The selection cut to the tokens the context leaves it: the answer's max_tokens, the retrieved
 * block's full budget when the action retrieves (it is not known yet), and the rest of the prompt
 * as assembled without the selection. A byte cut made when it was read is carried along.
 */
function fitSelection(
  input: Pick<ActionInput, 'selection' | 'selectionCut'>,
  promptInput: Omit<PromptInput, 'selection' | 'excerpts'>,
  profile: AiProfile,
  retrieves: boolean,
): { text: string | undefined; cut?: SelectionCut } {
  const raw = input.selection;
  if (raw === undefined || raw === '')
    return { text: raw, ...(input.selectionCut ? { cut: input.selectionCut } : {}) };
  const rest = assemblePrompt({
    ...promptInput,
    prompt: promptInput.prompt?.trim() ? promptInput.prompt : 'x',
  });
  const slot = selectionSlot({
    contextWindow: profile.contextWindow,
    answerTokens: answerTokens(profile),
    blockTokens: retrieves ? contextBudget({ contextWindow: profile.contextWindow }) : 0,
    promptTokens: countTokens(rest.flat),
  });
  // Escaping can lengthen the text a little: measure what the model gets, and cut again if needed.
  let fit = fitToTokens(raw, slot, getTokenizer());
  const sent = (text: string) => countTokens(sanitizeUntrusted(text));
  for (let i = 0; i < 3 && sent(fit.text) > slot; i++) {
    const shrink = Math.floor((fit.tokens * slot) / sent(fit.text)) - 1;
    fit = {
      ...fitToTokens(fit.text, Math.max(1, shrink), getTokenizer()),
      tokensBefore: fit.tokensBefore,
      atLeast: fit.atLeast,
    };
  }
  if (!fit.cut) return { text: raw, ...(input.selectionCut ? { cut: input.selectionCut } : {}) };
  const cut: SelectionCut = {
    ...(input.selectionCut ?? { bytesCut: false, readBytes: Buffer.byteLength(raw) }),
    keptBytes: Buffer.byteLength(fit.text),
    keptTokens: fit.tokens,
    tokensTotal: fit.tokensBefore,
    ...(fit.atLeast ? { tokensAtLeast: true } : {}),
    slotTokens: slot,
  };
  return { text: fit.text, cut };
}
