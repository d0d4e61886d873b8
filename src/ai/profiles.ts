// AI profiles and role assignments (ai/profiles.json): validation, defaults, and which stores
// serve which profile. Pure; reading and writing the file is src/ai/profiles-file.ts.
//
// File format (version 1):
//   { "version": 1,
//     "profiles": [ { "name": "local", "backend": "llama", "model": "/models/qwen2.5-3b.gguf",
//                     "contextWindow": 8192, "family": "qwen", "requireCitations": true,
//                     "retrievalMode": "before" } ],
//     "roles": { "text": "local", "coding": "local" } }
// Defaults: contextWindow 8192, family detected from the model name (else "generic"),
// requireCitations false (opt-in, as in the peer spec), retrievalMode "before".
// A missing file means no profiles and no role assignments.

import { createError } from '../errors.js';
import type {
  AiProfile,
  ChatBackendKind,
  ProfilesConfig,
  RetrievalMode,
  Role,
  RoleAssignments,
} from '../types.js';
import { detectFamily, isModelFamily, MODEL_FAMILIES } from './families.js';

export const DEFAULT_CONTEXT_WINDOW = 8192;
export const MIN_CONTEXT_WINDOW = 256;
export const MAX_CONTEXT_WINDOW = 16 * 1024 * 1024;
export const ROLES: readonly Role[] = ['text', 'coding'];
const BACKENDS: readonly ChatBackendKind[] = ['llama', 'openai'];
const MODES: readonly RetrievalMode[] = ['before', 'tool', 'both'];
const PROFILE_FIELDS = new Set([
  'name',
  'backend',
  'model',
  'baseUrl',
  'contextWindow',
  'family',
  'requireCitations',
  'retrievalMode',
  'apiKeyEnv',
  'allowInsecureHttp',
]);

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

/** Validate parsed JSON and fill defaults. `path` only names the file in error messages. */
export function parseProfilesConfig(raw: unknown, path: string): ProfilesConfig {
  const bad = (reason: string) => createError('PROFILES_INVALID', { path, reason });
  if (!isObject(raw)) throw bad('top level must be a JSON object');
  for (const k of Object.keys(raw))
    if (!['version', 'profiles', 'roles'].includes(k)) throw bad(`unknown field "${k}"`);
  if (raw.version !== undefined && raw.version !== 1)
    throw bad(`unsupported version ${JSON.stringify(raw.version)}`);
  const list = raw.profiles ?? [];
  if (!Array.isArray(list)) throw bad('"profiles" must be an array');
  const profiles = list.map((p, i) => parseProfile(p, `profiles[${i}]`, bad));
  const names = new Set<string>();
  for (const p of profiles) {
    if (names.has(p.name)) throw bad(`duplicate profile name "${p.name}"`);
    names.add(p.name);
  }
  const rolesRaw = raw.roles ?? {};
  if (!isObject(rolesRaw))
    throw bad('"roles" must be an object like {"text": "profile", "coding": "profile"}');
  const roles: RoleAssignments = {};
  for (const [k, v] of Object.entries(rolesRaw)) {
    if (!(ROLES as string[]).includes(k)) throw bad(`unknown role "${k}" (roles are ${ROLES.join(', ')})`);
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') throw bad(`roles.${k} must be a profile name`);
    if (!names.has(v)) throw bad(`roles.${k} refers to unknown profile "${v}"`);
    roles[k as Role] = v;
  }
  return { version: 1, profiles, roles };
}

function parseProfile(p: unknown, at: string, bad: (r: string) => Error): AiProfile {
  if (!isObject(p)) throw bad(`${at} must be an object`);
  for (const k of Object.keys(p)) if (!PROFILE_FIELDS.has(k)) throw bad(`${at}: unknown field "${k}"`);
  const name = p.name;
  if (
    typeof name !== 'string' ||
    name.trim() === '' ||
    name.length > 64 ||
    /[\u0000-\u001F\u007F]/.test(name)
  ) {
    throw bad(`${at}.name must be a non-empty name of at most 64 characters without control characters`);
  }
  const where = `profile "${name}"`;
  if (!BACKENDS.includes(p.backend as ChatBackendKind)) {
    throw bad(`${where}: backend must be "llama" or "openai", got ${JSON.stringify(p.backend)}`);
  }
  const backend = p.backend as ChatBackendKind;
  if (typeof p.model !== 'string' || p.model.trim() === '') {
    throw bad(`${where}: model must be a GGUF path (llama) or a model name (openai)`);
  }
  const out: AiProfile = {
    name,
    backend,
    model: p.model,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    family: detectFamily(p.model),
    requireCitations: false,
    retrievalMode: 'before',
  };
  if (p.contextWindow !== undefined) {
    const cw = p.contextWindow;
    if (
      typeof cw !== 'number' ||
      !Number.isInteger(cw) ||
      cw < MIN_CONTEXT_WINDOW ||
      cw > MAX_CONTEXT_WINDOW
    ) {
      throw bad(
        `${where}: contextWindow must be an integer from ${MIN_CONTEXT_WINDOW} to ${MAX_CONTEXT_WINDOW}, got ${JSON.stringify(cw)}`,
      );
    }
    out.contextWindow = cw;
  }
  if (p.family !== undefined) {
    if (!isModelFamily(p.family)) {
      throw bad(
        `${where}: family must be one of ${MODEL_FAMILIES.join(', ')}, got ${JSON.stringify(p.family)}`,
      );
    }
    out.family = p.family;
  }
  for (const flag of ['requireCitations', 'allowInsecureHttp'] as const) {
    if (p[flag] === undefined) continue;
    if (typeof p[flag] !== 'boolean') throw bad(`${where}: ${flag} must be true or false`);
    out[flag] = p[flag] as boolean;
  }
  if (p.retrievalMode !== undefined) {
    if (!MODES.includes(p.retrievalMode as RetrievalMode)) {
      throw bad(
        `${where}: retrievalMode must be "before", "tool" or "both", got ${JSON.stringify(p.retrievalMode)}`,
      );
    }
    out.retrievalMode = p.retrievalMode as RetrievalMode;
  }
  if (p.apiKeyEnv !== undefined) {
    if (typeof p.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.apiKeyEnv)) {
      throw bad(
        `${where}: apiKeyEnv must name an environment variable (the key itself never goes in this file)`,
      );
    }
    out.apiKeyEnv = p.apiKeyEnv;
  }
  if (backend === 'openai') {
    if (typeof p.baseUrl !== 'string') throw bad(`${where}: baseUrl is required for the openai backend`);
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
