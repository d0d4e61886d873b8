// Which actions retrieve, and from which stores. Pure.
//   ordinary   (ask, explain, fix, summarize, translate, command): every store serving the profile
//   autonomous (agent, planning, swarm, scheduled): only stores that opted into autonomous
//              workflows, so background automation never widens its local-data scope silently
//   never      (diagram: built from the source alone; vision: an image prompt makes a poor query)

import { createError } from '../errors.js';
import type { ActionKind, RoleAssignments } from '../types.js';
import { type StoreAttachment, storesForProfile } from './profiles.js';

export type RetrievalClass = 'ordinary' | 'autonomous' | 'never';

export const ACTION_CLASSES: Readonly<Record<ActionKind, RetrievalClass>> = {
  ask: 'ordinary',
  explain: 'ordinary',
  fix: 'ordinary',
  summarize: 'ordinary',
  translate: 'ordinary',
  command: 'ordinary',
  agent: 'autonomous',
  planning: 'autonomous',
  swarm: 'autonomous',
  scheduled: 'autonomous',
  diagram: 'never',
  vision: 'never',
};

export const ACTION_KINDS = Object.keys(ACTION_CLASSES) as ActionKind[];

export function isActionKind(s: unknown): s is ActionKind {
  return typeof s === 'string' && Object.hasOwn(ACTION_CLASSES, s);
}

/** For CLI/config input: the action, or ACTION_UNKNOWN naming the valid ones. */
export function parseActionKind(s: string): ActionKind {
  if (!isActionKind(s)) throw createError('ACTION_UNKNOWN', { action: s, expected: ACTION_KINDS.join(', ') });
  return s;
}

export function retrievalClass(action: ActionKind): RetrievalClass {
  const c = isActionKind(action) ? ACTION_CLASSES[action] : undefined;
  if (c === undefined) throw createError('ACTION_UNKNOWN', { action, expected: ACTION_KINDS.join(', ') });
  return c;
}

/** Of the stores serving the action's profile, those the action may retrieve from. */
export function retrievalStoresFor<S extends Pick<StoreAttachment, 'autonomous'>>(
  action: ActionKind,
  stores: readonly S[],
): S[] {
  switch (retrievalClass(action)) {
    case 'ordinary':
      return [...stores];
    case 'autonomous':
      return stores.filter((s) => s.autonomous === true);
    case 'never':
      return [];
  }
}

/** Roles, then policy: the stores an action run with `profileName` searches. */
export function storesForAction<S extends StoreAttachment>(
  action: ActionKind,
  profileName: string,
  stores: readonly S[],
  roles: RoleAssignments,
): S[] {
  return retrievalStoresFor(action, storesForProfile(profileName, stores, roles));
}

/**
 * MCP clients (coding agents in the terminal) run unattended tool loops: they are autonomous
 * workflows, so they get the autonomous class's stores.
 */
export const MCP_ACTION: ActionKind = 'agent';

export type McpStoreAccess<S> =
  | { ok: true; store: S }
  | { ok: false; reason: 'not-found' | 'not-autonomous' | 'not-served'; store?: S };

const named = <S extends Pick<StoreAttachment, 'id' | 'name'>>(stores: readonly S[], ref: string) =>
  stores.find((s) => s.id === ref) ?? stores.find((s) => s.name === ref);

/**
 * What an MCP server may show: the stores MCP_ACTION may retrieve from, narrowed to `served`
 * (the server's --store names) when given. Narrowing never widens: a served store without the
 * opt-in stays hidden.
 */
export function mcpVisibleStores<S extends StoreAttachment>(
  stores: readonly S[],
  served?: readonly string[],
): S[] {
  const allowed = retrievalStoresFor(MCP_ACTION, stores);
  if (!served || served.length === 0) return allowed;
  const keep = new Set(served.map((ref) => named(stores, ref)?.id).filter((id) => id !== undefined));
  return allowed.filter((s) => keep.has(s.id));
}

/** Whether an MCP client may use the store it asked for by name (or id), and if not, why. */
export function mcpStoreAccess<S extends StoreAttachment>(
  ref: string,
  stores: readonly S[],
  served?: readonly string[],
): McpStoreAccess<S> {
  const store = named(stores, ref);
  if (!store) return { ok: false, reason: 'not-found' };
  if (retrievalStoresFor(MCP_ACTION, [store]).length === 0)
    return { ok: false, reason: 'not-autonomous', store };
  if (served && served.length > 0 && !served.some((r) => named(stores, r)?.id === store.id))
    return { ok: false, reason: 'not-served', store };
  return { ok: true, store };
}
