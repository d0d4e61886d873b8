// AI profiles and role assignments (ai/profiles.json): validation, defaults, and which stores
// serve which profile. Pure; reading and writing the file is src/ai/profiles-file.ts.
//
// File format (version 1):
//   { "version": 1,
//     "profiles": [ { "name": "local", "backend": "llama", "model": "/models/qwen2.5-3b.gguf",
//                     "contextWindow": 8192, "family": "qwen", "requireCitations": true,
//                     "retrievalMode": "before" } ],
//     "roles": { "text": "local", "coding": "local" } }
// Defaults: contextWindow 8192, maxTokens min(contextWindow/4, 4096) (at most half the context), family detected from the model name (else "generic"),
// requireCitations false (opt-in, as in the peer spec), retrievalMode "before".
// A missing file means no profiles and no role assignments.

import { z } from 'zod';
import { createError, isKorttyError } from '../errors.js';
import type { AiProfile, ProfilesConfig, Role, RoleAssignments } from '../types.js';
import { checkJson } from '../util/json-check.js';
import { sanitizeLine } from '../util/terminal-text.js';
import { MIN_ANSWER_TOKENS } from './answer-bounds.js';
import { detectFamily, MODEL_FAMILIES } from './families.js';

export const DEFAULT_CONTEXT_WINDOW = 8192;
export const MIN_CONTEXT_WINDOW = 256;
export const MAX_CONTEXT_WINDOW = 16 * 1024 * 1024;
export const ROLES: readonly Role[] = ['text', 'coding'];

/** What each profile in the file may say; defaults are filled in by parseProfilesConfig. */
const profileSchema = z.strictObject({
  name: z
    .string()
    .refine(
      (n) => n.trim() !== '' && n.length <= 64 && !/[\u0000-\u001F\u007F]/.test(n),
      'a non-empty name of at most 64 characters without control characters',
    ),
  backend: z.enum(['llama', 'openai']),
  model: z.string().refine((m) => m.trim() !== '', 'a GGUF path (llama) or a model name (openai)'),
  baseUrl: z.string().optional(),
  contextWindow: z.int().min(MIN_CONTEXT_WINDOW).max(MAX_CONTEXT_WINDOW).optional(),
  family: z.enum(MODEL_FAMILIES).optional(),
  requireCitations: z.boolean().optional(),
  retrievalMode: z.enum(['before', 'tool', 'both']).optional(),
  // Its form is checked after the schema: a key pasted here by mistake must not be echoed.
  apiKeyEnv: z.string().optional(),
  allowInsecureHttp: z.boolean().optional(),
  maxTokens: z.int().min(MIN_ANSWER_TOKENS).max(MAX_CONTEXT_WINDOW).optional(),
});

const roleName = z.string().nullable().optional();

/** ai/profiles.json as written: the structure only (cross-references are checked after). */
export const profilesFileSchema = z.strictObject({
  version: z.literal(1).optional(),
  profiles: z.array(profileSchema).optional(),
  roles: z.strictObject({ text: roleName, coding: roleName }).optional(),
});

/** What a store contributes to role-based attachment (a subset of its store.json). */
export interface StoreAttachment {
  id: string;
  name: string;
  roles: readonly Role[];
  /** The store opted into autonomous workflows (agent, planning, swarm, scheduled). */
  autonomous: boolean;
}

export function emptyProfilesConfig(): ProfilesConfig {
  return { version: 1, profiles: [], roles: {} };
}

/**
 * A schema mismatch as PROFILES_INVALID naming the field (`profiles[1].backend: expected one of
 * "llama", "openai", found the string "gpt"`). Kept apart from FILE_INVALID because the same check
 * guards edits from the CLI and the TUI, where nothing is "damaged" yet.
 */
export function asProfilesError(err: unknown, path: string): unknown {
  if (!isKorttyError(err, 'FILE_INVALID')) return err;
  const d = err.details;
  return createError('PROFILES_INVALID', {
    path: sanitizeLine(path),
    reason: `${d.field}: expected ${d.expected}, found ${d.found}`,
  });
}

/** Validate parsed JSON and fill defaults. `path` only names the file in error messages. */
export function parseProfilesConfig(raw: unknown, path: string): ProfilesConfig {
  let file: z.output<typeof profilesFileSchema>;
  try {
    file = checkJson(raw, profilesFileSchema, path, 'AI profiles');
  } catch (err) {
    throw asProfilesError(err, path);
  }
  return completeProfiles(file, path);
}

/** Defaults and the checks a schema cannot express: unique names, role targets, base URLs. */
export function completeProfiles(file: z.output<typeof profilesFileSchema>, path: string): ProfilesConfig {
  const bad = (reason: string) => createError('PROFILES_INVALID', { path: sanitizeLine(path), reason });
  const profiles = (file.profiles ?? []).map((p) => completeProfile(p, bad));
  const names = new Set<string>();
  for (const p of profiles) {
    if (names.has(p.name)) throw bad(`duplicate profile name "${p.name}"`);
    names.add(p.name);
  }
  const roles: RoleAssignments = {};
  for (const role of ROLES) {
    const v = file.roles?.[role];
    if (v === null || v === undefined) continue;
    if (!names.has(v)) throw bad(`roles.${role} refers to unknown profile "${v}"`);
    roles[role] = v;
  }
  return { version: 1, profiles, roles };
}

function completeProfile(p: z.output<typeof profileSchema>, bad: (r: string) => Error): AiProfile {
  const where = `profile "${p.name}"`;
  const out: AiProfile = {
    name: p.name,
    backend: p.backend,
    model: p.model,
    contextWindow: p.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    family: p.family ?? detectFamily(p.model),
    requireCitations: p.requireCitations ?? false,
    retrievalMode: p.retrievalMode ?? 'before',
  };
  if (p.allowInsecureHttp !== undefined) out.allowInsecureHttp = p.allowInsecureHttp;
  if (p.maxTokens !== undefined) {
    // The answer shares the context with the prompt: half of it at most.
    if (p.maxTokens > out.contextWindow / 2)
      throw bad(`${where}: maxTokens ${p.maxTokens} is more than half of contextWindow ${out.contextWindow}`);
    out.maxTokens = p.maxTokens;
  }
  if (p.apiKeyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.apiKeyEnv)) {
      throw bad(
        `${where}: apiKeyEnv must name an environment variable (the key itself never goes in this file)`,
      );
    }
    out.apiKeyEnv = p.apiKeyEnv;
  }
  if (p.backend === 'openai') {
    if (p.baseUrl === undefined) throw bad(`${where}: baseUrl is required for the openai backend`);
    const reason = checkBaseUrl(p.baseUrl, out.allowInsecureHttp === true);
    if (reason) throw bad(`${where}: baseUrl ${reason}`);
    out.baseUrl = p.baseUrl;
  } else if (p.baseUrl !== undefined) {
    throw bad(`${where}: baseUrl is only used by the openai backend`);
  }
  return out;
}

/** Prompts carry local excerpts, so plain http is refused for hosts other than loopback. */
export function checkBaseUrl(url: string, allowInsecureHttp: boolean): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (u.protocol === 'https:') return undefined;
  if (u.protocol !== 'http:') return `must use http or https, got ${u.protocol}`;
  if (isLoopbackHost(u.hostname) || allowInsecureHttp) return undefined;
  return `uses plain http to ${u.hostname}, which is not loopback; use https or set allowInsecureHttp`;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

export function serializeProfilesConfig(cfg: ProfilesConfig): string {
  return `${JSON.stringify(cfg, null, 2)}\n`;
}

export function getProfile(cfg: ProfilesConfig, name: string): AiProfile {
  const p = cfg.profiles.find((x) => x.name === name);
  if (!p) throw createError('PROFILE_NOT_FOUND', { name });
  return p;
}

export function profileForRole(cfg: ProfilesConfig, role: Role): AiProfile | undefined {
  const name = cfg.roles[role];
  return name === undefined ? undefined : cfg.profiles.find((p) => p.name === name);
}

/** Roles the profile is currently assigned to. */
export function rolesOfProfile(roles: RoleAssignments, profileName: string): Role[] {
  return ROLES.filter((r) => roles[r] === profileName);
}

/**
 * Stores that serve a profile: those attached to a role (Text, Coding) the profile is assigned
 * to. A profile with no role gets no store; a store with no role serves no profile. Input order
 * is kept.
 */
export function storesForProfile<S extends StoreAttachment>(
  profileName: string,
  stores: readonly S[],
  roles: RoleAssignments,
): S[] {
  const served = rolesOfProfile(roles, profileName);
  if (served.length === 0) return [];
  return stores.filter((s) => s.roles.some((r) => served.includes(r)));
}

/** Add a profile, or replace the one with the same name in place (validated as a whole). */
export function upsertProfile(
  cfg: ProfilesConfig,
  profile: Record<string, unknown>,
  path: string,
): ProfilesConfig {
  const i = cfg.profiles.findIndex((p) => p.name === profile.name);
  const profiles: unknown[] = [...cfg.profiles];
  if (i === -1) profiles.push(profile);
  else profiles[i] = profile;
  return parseProfilesConfig({ ...cfg, profiles }, path);
}

/** Assign a profile to a role, or clear the role with `undefined`. */
export function setRole(
  cfg: ProfilesConfig,
  role: Role,
  profileName: string | undefined,
  path: string,
): ProfilesConfig {
  const roles: RoleAssignments = { ...cfg.roles };
  if (profileName === undefined) delete roles[role];
  else roles[role] = profileName;
  return parseProfilesConfig({ ...cfg, roles }, path);
}
