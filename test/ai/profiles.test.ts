import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import test from 'ava';
import { detectFamily } from '../../src/ai/families.js';
import {
  emptyProfilesConfig,
  getProfile,
  parseProfilesConfig,
  profileForRole,
  setRole,
  storesForProfile,
  upsertProfile,
} from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { profilesPath } from '../../src/storage/paths.js';
import type { Role } from '../../src/types.js';
import { useTempHome } from '../retrieve/helpers.js';

const home = useTempHome();
const P = '/x/profiles.json';

const local = { name: 'local', backend: 'llama', model: '/models/qwen2.5-3b-instruct-q4_k_m.gguf' };
const remote = {
  name: 'remote',
  backend: 'openai',
  model: 'llama3.1',
  baseUrl: 'http://127.0.0.1:11434/v1',
  contextWindow: 32768,
};

test('a missing file gives the empty default; save then load round-trips with defaults filled', async (t) => {
  t.deepEqual(await loadProfiles(), emptyProfilesConfig());
  const cfg = parseProfilesConfig(
    { profiles: [local, remote], roles: { text: 'local', coding: 'remote' } },
    P,
  );
  await saveProfiles(cfg);
  const onDisk = JSON.parse(readFileSync(profilesPath(), 'utf8'));
  t.is(onDisk.version, 1);
  t.true(profilesPath().startsWith(home));
  const back = await loadProfiles();
  t.deepEqual(back, cfg);
  t.deepEqual(getProfile(back, 'local'), {
    name: 'local',
    backend: 'llama',
    model: local.model,
    contextWindow: 8192,
    family: 'qwen',
    requireCitations: false,
    retrievalMode: 'before',
  });
  t.is(profileForRole(back, 'coding')!.name, 'remote');
  t.throws(() => getProfile(back, 'nope'), {
    code: 'PROFILE_NOT_FOUND',
    message: 'no AI profile "nope"',
  } as never);
});

test('a damaged file is reported with its path and the reason, and saving never writes an invalid config', async (t) => {
  const path = join(home, 'elsewhere', 'profiles.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '{"profiles": [');
  const err = await t.throwsAsync(loadProfiles(path), { code: 'PROFILES_INVALID' } as never);
  t.true(err!.message.startsWith(`${path}: (file): expected JSON, found invalid JSON`), err!.message);
  writeFileSync(path, JSON.stringify({ profiles: [local] }));
  const bad = { version: 1 as const, profiles: [{ ...local, backend: 'gpt' }], roles: {} } as never;
  await t.throwsAsync(saveProfiles(bad, path), { code: 'PROFILES_INVALID' } as never);
  t.is(readFileSync(path, 'utf8'), JSON.stringify({ profiles: [local] }), 'old file untouched');
  t.deepEqual(readdirSync(dirname(path)), ['profiles.json'], 'no temp file left');
});

test('validation names the profile, the field and the reason', (t) => {
  const cases: [unknown, string][] = [
    [[], '(file): expected an object, found an array of 0'],
    [{ version: 2 }, 'version: expected 1, found number 2'],
    [{ profile: [] }, 'profile: expected no such field, found unknown field "profile"'],
    [
      { profiles: [local, { ...local, name: 'b', backend: 'gpt' }] },
      'profiles[1].backend: expected one of "llama", "openai", found the string "gpt"',
    ],
    [
      { profiles: [{ ...local, model: '' }] },
      'profiles[0].model: expected a GGUF path (llama) or a model name (openai), found the string ""',
    ],
    [
      { profiles: [{ ...local, requireCitation: true }] },
      'profiles[0].requireCitation: expected no such field, found unknown field "requireCitation"',
    ],
    [
      { profiles: [{ ...local, contextWindow: 100 }] },
      'profiles[0].contextWindow: expected a number ≥ 256, found number 100',
    ],
    [
      { profiles: [{ ...local, family: 'gpt' }] },
      'profiles[0].family: expected one of "generic", "qwen", "llama", "mistral", "gemma", "phi", "deepseek", found the string "gpt"',
    ],
    [
      { profiles: [{ ...local, retrievalMode: 'after' }] },
      'profiles[0].retrievalMode: expected one of "before", "tool", "both", found the string "after"',
    ],
    [
      { profiles: [{ ...local, requireCitations: 'yes' }] },
      'profiles[0].requireCitations: expected a boolean, found the string "yes"',
    ],
    [
      { profiles: [{ ...local, apiKeyEnv: 'sk-123' }] },
      'profile "local": apiKeyEnv must name an environment variable (the key itself never goes in this file)',
    ],
    [
      { profiles: [{ ...local, baseUrl: 'http://127.0.0.1' }] },
      'profile "local": baseUrl is only used by the openai backend',
    ],
    [
      { profiles: [{ ...remote, baseUrl: undefined }] },
      'profile "remote": baseUrl is required for the openai backend',
    ],
    [
      { profiles: [{ ...remote, baseUrl: 'http://10.0.0.5:8080/v1' }] },
      'profile "remote": baseUrl uses plain http to 10.0.0.5, which is not loopback; use https or set allowInsecureHttp',
    ],
    [
      { profiles: [{ ...remote, baseUrl: 'ftp://x' }] },
      'profile "remote": baseUrl must use http or https, got ftp:',
    ],
    [
      { profiles: [{ ...remote, baseUrl: 'not a url' }] },
      'profile "remote": baseUrl "not a url" is not a URL',
    ],
    [{ profiles: [local, local] }, 'duplicate profile name "local"'],
    [
      { profiles: [{ ...local, name: '' }] },
      'profiles[0].name: expected a non-empty name of at most 64 characters without control characters, found the string ""',
    ],
    [{ profiles: [local], roles: { text: 'ghost' } }, 'roles.text refers to unknown profile "ghost"'],
    [
      { profiles: [local], roles: { vision: 'local' } },
      'roles.vision: expected no such field, found unknown field "vision"',
    ],
    [{ profiles: [local], roles: { text: 3 } }, 'roles.text: expected a string, found number 3'],
  ];
  for (const [raw, reason] of cases) {
    const err = t.throws(() => parseProfilesConfig(raw, P), { code: 'PROFILES_INVALID' } as never);
    t.is(err!.message, `${P}: ${reason}`);
  }
  // Accepted variants.
  for (const baseUrl of [
    'https://api.example.com/v1',
    'http://localhost:1234/v1',
    'http://[::1]:8080/v1',
    'http://127.0.0.2/v1',
  ]) {
    t.notThrows(() => parseProfilesConfig({ profiles: [{ ...remote, baseUrl }] }, P), baseUrl);
  }
  t.notThrows(() =>
    parseProfilesConfig(
      { profiles: [{ ...remote, baseUrl: 'http://10.0.0.5/v1', allowInsecureHttp: true }] },
      P,
    ),
  );
});

test('upsert replaces in place; setRole validates the profile name', (t) => {
  let cfg = parseProfilesConfig({ profiles: [local, remote] }, P);
  cfg = upsertProfile(cfg, { ...local, requireCitations: true }, P);
  t.deepEqual(
    cfg.profiles.map((p) => [p.name, p.requireCitations]),
    [
      ['local', true],
      ['remote', false],
    ],
  );
  cfg = setRole(cfg, 'text', 'remote', P);
  t.is(cfg.roles.text, 'remote');
  cfg = setRole(cfg, 'text', undefined, P);
  t.is(cfg.roles.text, undefined);
  t.throws(() => setRole(cfg, 'coding', 'ghost', P), { code: 'PROFILES_INVALID' } as never);
});

test('model families are detected from file names', (t) => {
  t.is(detectFamily('/m/Qwen2.5-7B-Instruct-Q4_K_M.gguf'), 'qwen');
  t.is(detectFamily('Meta-Llama-3.1-8B-Instruct.gguf'), 'llama');
  t.is(detectFamily('mistral-7b-instruct-v0.3.Q4_K_M.gguf'), 'mistral');
  t.is(detectFamily('codestral-22b.gguf'), 'mistral');
  t.is(detectFamily('gemma-2-9b-it.gguf'), 'gemma');
  t.is(detectFamily('Phi-3.5-mini-instruct.gguf'), 'phi');
  t.is(detectFamily('DeepSeek-R1-Distill-Qwen-7B.gguf'), 'deepseek');
  t.is(detectFamily('delphi-2b.gguf'), 'generic');
  t.is(detectFamily('gpt-4o-mini'), 'generic');
});

test('stores serve the profiles assigned to their roles, and nothing crosses a role boundary', (t) => {
  const stores: { id: string; name: string; roles: Role[]; autonomous: boolean }[] = [
    { id: 'st-text', name: 'Notes', roles: ['text'], autonomous: false },
    { id: 'st-code', name: 'Code', roles: ['coding'], autonomous: false },
    { id: 'st-both', name: 'Both', roles: ['text', 'coding'], autonomous: true },
    { id: 'st-none', name: 'Unattached', roles: [], autonomous: true },
  ];
  const ids = (xs: { id: string }[]) => xs.map((s) => s.id);
  t.deepEqual(ids(storesForProfile('writer', stores, { text: 'writer', coding: 'coder' })), [
    'st-text',
    'st-both',
  ]);
  t.deepEqual(ids(storesForProfile('coder', stores, { text: 'writer', coding: 'coder' })), [
    'st-code',
    'st-both',
  ]);
  t.deepEqual(ids(storesForProfile('solo', stores, { text: 'solo', coding: 'solo' })), [
    'st-text',
    'st-code',
    'st-both',
  ]);
  t.deepEqual(
    storesForProfile('idle', stores, { text: 'writer', coding: 'coder' }),
    [],
    'a profile with no role gets no store',
  );
  t.deepEqual(storesForProfile('writer', stores, {}), []);
  for (const profile of ['writer', 'coder', 'solo', 'idle']) {
    t.false(ids(storesForProfile(profile, stores, { text: 'writer', coding: 'coder' })).includes('st-none'));
  }
});
