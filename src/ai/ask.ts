import { join } from 'node:path';
import { createError, isKorttyError } from '../errors.js';
import { type SearchDeps, type SearchRequest, type SearchResult, search } from '../retrieve/search.js';
import { aiDir, korttyHome, profilesPath, runsDir, skillsDir } from '../storage/paths.js';
import { damagedStoreWarning, scanStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import type { ActionKind, AiProfile, Excerpt } from '../types.js';
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
import { assemblePrompt, queryFor } from './prompt.js';
import { createRunRecord, type RunStatus } from './runs.js';
import { appendRun, newRunId } from './runs-file.js';
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
  retrieve?: (req: SearchRequest<StoreConfig>) => Promise<Pick<SearchResult, 'excerpts' | 'block'>>;
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

export async function runAction(input: ActionInput): Promise<ActionResult> {
  const home = input.home ?? korttyHome();
  const pending = input.lastCommand === undefined ? undefined : Promise.resolve(input.lastCommand);
  // Awaited below; a capture that fails while the profile is loading must not go unhandled.
  pending?.catch(() => {});
  const { profile, roles } = await resolveProfile(input.profile, input.action, home);
  const { stores: allStores, damaged } = await scanStores(home);
  const last = pending ? await pending : undefined;
  const query = queryFor({
    prompt: input.prompt,
    selection: input.selection,
    ...(last ? { lastCommand: { capture: last } } : {}),
  });
  for (const d of damaged) input.onWarning?.(damagedStoreWarning(d));
  const stores = storesForAction(input.action, profile.name, allStores, roles);
  const plan = retrievalPlan(profile.retrievalMode);
  const retrieve = input.retrieve ?? ((req: SearchRequest<StoreConfig>) => search(req, input.searchDeps));
  input.onPlan?.({ stores, ...plan });
  const excerpts: Excerpt[] = [];
  if (plan.before && stores.length > 0) {
    const res = await retrieve({ stores, query, contextWindow: profile.contextWindow });
    excerpts.push(...res.excerpts);
    input.onExcerpts?.(res.excerpts);
  }
  const [skills, presets] = await Promise.all([
    loadSkills(skillsDir(home)),
    loadPresets(join(aiDir(home), 'presets')),
  ]);
  // A broken skill is left out of the prompt, and said so.
  for (const p of skills.problems) input.onWarning?.(p.message);
  const preset = presetFor(profile.family, presets);
  const prompt = assemblePrompt({
    action: input.action,
    prompt: input.prompt,
    selection: input.selection,
    ...(last
      ? { lastCommand: { capture: last, question: lastCommandQuestion(preset, presets, last.exitCode) } }
      : {}),
    skills: skills.skills,
    excerpts,
    preset,
    requireCitations: profile.requireCitations,
    retrievalMode: stores.length > 0 ? profile.retrievalMode : 'before',
  });

  const runId = newRunId();
  const backend = input.backend ?? (await createChatBackend(backendConfig(profile)));
  let answer = '';
  let status: RunStatus = 'ok';
  let error: ActionResult['error'];
  let cited: string[] = [];
  try {
    const req = {
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
        answer,
        ...(last
          ? { lastCommand: { exitCode: last.exitCode, truncated: last.truncated, marks: last.marks } }
          : {}),
        ...(last?.redactions ? { redactions: last.redactions } : {}),
      }),
      runsDir(home),
    );
  }
  return { runId, status, answer, excerpts, cited, profile, stores, ...(error ? { error } : {}) };
}
