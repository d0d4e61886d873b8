import test from 'ava';
import {
  ACTION_KINDS,
  MCP_ACTION,
  mcpStoreAccess,
  mcpVisibleStores,
  parseActionKind,
  retrievalClass,
  retrievalStoresFor,
  storesForAction,
} from '../../src/ai/policy.js';
import type { ActionKind, Role } from '../../src/types.js';
import { useTempHome } from '../retrieve/helpers.js';

useTempHome();

const expected: Record<ActionKind, { optIn: boolean; noOptIn: boolean }> = {
  ask: { optIn: true, noOptIn: true },
  explain: { optIn: true, noOptIn: true },
  fix: { optIn: true, noOptIn: true },
  summarize: { optIn: true, noOptIn: true },
  translate: { optIn: true, noOptIn: true },
  command: { optIn: true, noOptIn: true },
  agent: { optIn: true, noOptIn: false },
  planning: { optIn: true, noOptIn: false },
  swarm: { optIn: true, noOptIn: false },
  scheduled: { optIn: true, noOptIn: false },
  diagram: { optIn: false, noOptIn: false },
  vision: { optIn: false, noOptIn: false },
};

test('policy matrix: every action kind × autonomous opt-in', (t) => {
  t.deepEqual([...ACTION_KINDS].sort(), Object.keys(expected).sort());
  const optedIn = { id: 'in', autonomous: true };
  const notOptedIn = { id: 'out', autonomous: false };
  for (const action of ACTION_KINDS) {
    const got = retrievalStoresFor(action, [optedIn, notOptedIn]).map((s) => s.id);
    const want = [...(expected[action].optIn ? ['in'] : []), ...(expected[action].noOptIn ? ['out'] : [])];
    t.deepEqual(got, want, action);
    t.deepEqual(retrievalStoresFor(action, []), [], action);
  }
  t.is(retrievalClass('ask'), 'ordinary');
  t.is(retrievalClass('swarm'), 'autonomous');
  t.is(retrievalClass('vision'), 'never');
});

test('roles then policy: an autonomous action never reaches a store of another role or one without opt-in', (t) => {
  const stores: { id: string; name: string; roles: Role[]; autonomous: boolean }[] = [
    { id: 'text-auto', name: 'a', roles: ['text'], autonomous: true },
    { id: 'text-manual', name: 'b', roles: ['text'], autonomous: false },
    { id: 'code-auto', name: 'c', roles: ['coding'], autonomous: true },
    { id: 'none-auto', name: 'd', roles: [], autonomous: true },
  ];
  const roles = { text: 'writer', coding: 'coder' };
  const ids = (a: ActionKind, p: string) => storesForAction(a, p, stores, roles).map((s) => s.id);
  t.deepEqual(ids('ask', 'writer'), ['text-auto', 'text-manual']);
  t.deepEqual(ids('agent', 'writer'), ['text-auto']);
  t.deepEqual(ids('scheduled', 'coder'), ['code-auto']);
  t.deepEqual(ids('diagram', 'writer'), []);
  t.deepEqual(ids('vision', 'coder'), []);
  t.deepEqual(ids('ask', 'nobody'), []);
});

test('unknown actions are refused with the list of valid ones', (t) => {
  t.is(parseActionKind('explain'), 'explain');
  const err = t.throws(() => parseActionKind('hack'), { code: 'ACTION_UNKNOWN' } as never);
  t.regex(err!.message, /unknown AI action "hack"; expected one of ask, explain, fix/);
  t.throws(() => parseActionKind('toString'), { code: 'ACTION_UNKNOWN' } as never);
  t.throws(() => retrievalClass('constructor' as ActionKind), { code: 'ACTION_UNKNOWN' } as never);
});

test('MCP clients are autonomous workflows: only opted-in stores, --store narrows and never widens', (t) => {
  t.is(retrievalClass(MCP_ACTION), 'autonomous');
  const stores = [
    { id: 'a', name: 'Auto', roles: ['text'] as Role[], autonomous: true },
    { id: 'b', name: 'Plain', roles: ['text'] as Role[], autonomous: false },
    { id: 'c', name: 'Other', roles: [] as Role[], autonomous: true },
  ];
  t.deepEqual(
    mcpVisibleStores(stores).map((s) => s.name),
    ['Auto', 'Other'],
  );
  t.deepEqual(
    mcpVisibleStores(stores, ['Plain', 'c']).map((s) => s.name),
    ['Other'],
  );
  t.deepEqual(mcpVisibleStores(stores, ['Plain']), []);
  t.deepEqual(mcpVisibleStores(stores, ['Nope']), []);
  t.like(mcpStoreAccess('Auto', stores), { ok: true });
  t.like(mcpStoreAccess('a', stores), { ok: true });
  t.like(mcpStoreAccess('Plain', stores), { ok: false, reason: 'not-autonomous' });
  t.like(mcpStoreAccess('Plain', stores, ['Plain']), { ok: false, reason: 'not-autonomous' });
  t.like(mcpStoreAccess('Other', stores, ['Auto']), { ok: false, reason: 'not-served' });
  t.like(mcpStoreAccess('Other', stores, ['c']), { ok: true });
  t.like(mcpStoreAccess('Nope', stores), { ok: false, reason: 'not-found' });
});
