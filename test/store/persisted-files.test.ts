import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { runAction } from '../../src/ai/ask.js';
import { loadPresets } from '../../src/ai/presets-file.js';
import { emptyProfilesConfig, upsertProfile } from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { parseRunLines, serializeRun } from '../../src/ai/runs.js';
import { loadSkills } from '../../src/ai/skills-file.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { readStatus, refreshStatus } from '../../src/app/status.js';
import { main } from '../../src/cli/main.js';
import type { KorttyError } from '../../src/errors.js';
import { readServiceConfig } from '../../src/service/service-config.js';
import { scanJobFiles } from '../../src/status/job-file.js';
import {
  configPath,
  profilesPath,
  ragDir,
  skillsDir,
  statusPath,
  storeConfigPath,
  storeDir,
} from '../../src/storage/paths.js';
import { createStore, findStore, loadStore } from '../../src/store/engine.js';
import { loadKeymap, loadTheme, readTuiConfig } from '../../src/tui/config-files.js';
import { captureIO } from '../cli/capture.js';
import { createFakeOpenAI } from '../helpers/fake-openai.js';
import { homeWithStarter } from '../helpers/store-env.js';

// Every JSON file kortty-rag reads back, damaged or hand-edited (bad JSON, a field of the wrong
// type, a required field missing, an unknown enum value): the message names the file and the
// field, and nothing drops out of a listing silently.

const MODEL = 'kortty-lexical-starter';

async function run(argv: string[]) {
  const c = captureIO();
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

// biome-ignore lint/suspicious/noExplicitAny: a hand edit may put anything anywhere
type Edit = (j: Record<string, any>) => void;

/** Rewrites a JSON file with `edit` applied to its parsed content. */
async function editJson(path: string, edit: Edit) {
  const j = JSON.parse(await readFile(path, 'utf8'));
  edit(j);
  await writeFile(path, JSON.stringify(j, null, 2));
}

async function threeStores() {
  const home = await homeWithStarter();
  const a = await createStore({ name: 'Alpha', modelId: MODEL }, home);
  const b = await createStore({ name: 'Bravo', modelId: MODEL }, home);
  const c = await createStore({ name: 'Charlie', modelId: MODEL }, home);
  return { home, a, b, c };
}

const storeDamage: [string, Edit, RegExp][] = [
  [
    'wrong type',
    (j) => {
      j.sources = [
        {
          id: 's1',
          path: '/docs',
          kind: 'folder',
          sync: 'manual',
          enabled: true,
          options: { maxFileBytes: 1, include: [], exclude: [], gitignore: true },
          status: 'READY',
          files: '3',
          chunks: 0,
          problems: 0,
          problemList: [],
          hashes: {},
        },
      ];
    },
    /sources\[0\]\.files: expected a number, found the string "3"/,
  ],
  [
    'missing field',
    (j) => {
      delete j.fingerprint.dimension;
    },
    /fingerprint\.dimension: expected a number, found nothing \(missing\)/,
  ],
  [
    'unknown enum value',
    (j) => (j.type = 'cloud'),
    /type: expected one of "local", "qdrant", found the string "cloud"/,
  ],
];

for (const [what, edit, field] of storeDamage) {
  test.serial(
    `store.json with a ${what}: store list shows it as damaged among the good stores`,
    async (t) => {
      const { home, b } = await threeStores();
      await editJson(storeConfigPath(b.id, home), edit);
      const path = storeConfigPath(b.id, home);

      const list = await run(['store', 'list']);
      t.is(list.code, 0, list.err);
      t.notRegex(list.out, /no stores yet/);
      for (const name of ['Alpha', 'Bravo', 'Charlie']) t.regex(list.out, new RegExp(`^${name}\\b`, 'm'));
      t.regex(list.out, /^Bravo .*DAMAGED$/m);
      t.true(list.out.includes(`damaged: ${path}: damaged store configuration: `), list.out);
      t.regex(list.out, field);

      const json = JSON.parse((await run(['store', 'list', '--json'])).out) as {
        name?: string;
        damaged?: boolean;
      }[];
      t.deepEqual(
        json.map((s) => [s.name, s.damaged ?? false]),
        [
          ['Alpha', false],
          ['Charlie', false],
          ['Bravo', true],
        ],
      );

      // Other commands on that store fail with the same message; the good stores still work.
      const show = await run(['store', 'show', 'Bravo']);
      t.is(show.code, 1);
      t.true(show.err.includes(path), show.err);
      t.regex(show.err, field);
      const err = await t.throwsAsync<KorttyError>(loadStore(b.id, home));
      t.is(err?.code, 'FILE_INVALID');
      t.is((await findStore('Alpha', home)).name, 'Alpha');
    },
  );
}

test.serial('bad JSON in store.json is a damaged store configuration, not a damaged snapshot', async (t) => {
  const { home, a } = await threeStores();
  await writeFile(storeConfigPath(a.id, home), '{"version": 1, "id": ');
  const err = await t.throwsAsync<KorttyError>(findStore(a.id, home));
  t.is(err?.code, 'FILE_INVALID');
  t.notRegex(err?.message ?? '', /snapshot/);
  t.regex(
    err?.message ?? '',
    /store\.json: damaged store configuration: \(file\): expected JSON, found invalid JSON/,
  );
  // Without a readable name, the store is listed by its directory name.
  const list = await run(['store', 'list']);
  t.regex(list.out, new RegExp(`^${a.id} .*DAMAGED$`, 'm'));
});

test.serial('status counts a damaged store and shows it as an error naming file and field', async (t) => {
  const { home, c } = await threeStores();
  await editJson(storeConfigPath(c.id, home), (j) => (j.roles = ['text', 'poetry']));
  const info = await refreshStatus(home);
  t.is(info.stores, 3);
  t.is(info.state, 'error');
  t.is(info.errors.length, 1);
  t.is(info.errors[0]!.source, storeConfigPath(c.id, home));
  t.regex(info.errors[0]!.reason, /roles\[1\]: expected one of "text", "coding", found the string "poetry"/);
  const r = await run(['status', '--format', 'plain']);
  t.is(r.code, 0, r.err);
  t.regex(r.out, /error 1/);
});

test.serial('a damaged status.json is shown once as an error and rebuilt from the stores', async (t) => {
  const { home } = await threeStores();
  await refreshStatus(home);
  await editJson(statusPath(home), (j) => (j.state = 'sleepy'));
  const first = await readStatus(home);
  t.is(first.state, 'error');
  t.regex(
    first.errors[0]!.reason,
    /status\.json: damaged status cache: state: expected one of .*found the string "sleepy"/,
  );
  t.is(first.errors[0]!.source, statusPath(home));
  const again = await readStatus(home);
  t.is(again.state, 'idle', 'rebuilt');
  t.deepEqual(again.errors, []);
});

test.serial('a damaged job.json is reported by status, not skipped', async (t) => {
  const { home, a } = await threeStores();
  await refreshStatus(home);
  const path = join(storeDir(a.id, home), 'job.json');
  await writeFile(
    path,
    JSON.stringify({
      storeId: a.id,
      state: 'thinking',
      documents: 0,
      documentsTotal: 0,
      chunks: 0,
      problems: 0,
      percent: 5,
      pid: process.pid,
      storeName: 'Alpha',
      updatedAt: 1,
    }),
  );
  const { damaged, jobs } = await scanJobFiles(home);
  t.deepEqual(jobs, []);
  t.is(damaged.length, 1);
  t.regex(
    damaged[0]!.message,
    /job\.json: damaged job progress file: state: expected one of .*found the string "thinking"/,
  );
  const info = await readStatus(home);
  t.is(info.state, 'error');
  t.true(info.errors.some((e) => e.source === path && /state: expected/.test(e.reason)));
  await writeFile(path, '{"storeId":');
  t.regex((await scanJobFiles(home)).damaged[0]!.message, /\(file\): expected JSON, found invalid JSON/);
});

test.serial('config.json: the service block and the tui block are checked field by field', async (t) => {
  const home = await homeWithStarter();
  await mkdir(ragDir(home), { recursive: true });
  const path = configPath(home);
  const failsIn = async (readers: ('service' | 'tui')[], text: string, re: RegExp) => {
    await writeFile(path, text);
    for (const reader of readers) {
      const err =
        reader === 'service'
          ? await t.throwsAsync<KorttyError>(readServiceConfig(home))
          : t.throws<KorttyError>(() => readTuiConfig(home));
      t.is(err?.code, 'FILE_INVALID', `${reader}: ${text}`);
      t.true(err!.message.startsWith(`${path}: damaged configuration: `), err!.message);
      t.regex(err!.message, re);
    }
  };
  await failsIn(
    ['service', 'tui'],
    '{"service": {"enabled": "yes"}',
    /\(file\): expected JSON, found invalid JSON/,
  );
  await failsIn(['service', 'tui'], '[]', /\(file\): expected an object, found an array of 0/);
  await failsIn(
    ['service'],
    '{"service": {"idleMinutes": "5"}}',
    /service\.idleMinutes: expected a number, found the string "5"/,
  );
  await failsIn(
    ['service'],
    '{"service": {"startTimeout": 5}}',
    /service\.startTimeout: expected no such field/,
  );
  await failsIn(['tui'], '{"tui": {"keymap": 3}}', /tui\.keymap: expected a string, found number 3/);
  await failsIn(
    ['tui'],
    '{"tui": {"colour": "red"}}',
    /tui\.colour: expected no such field, found unknown field "colour"/,
  );
  // Each reader leaves the other's block alone.
  await writeFile(path, '{"tui": {"keymap": "vim"}, "service": {"idleMinutes": 2}}');
  t.is((await readServiceConfig(home)).idleMinutes, 2);
  t.is(readTuiConfig(home).keymap, 'vim');
});

test.serial('config.json: status warns about an unknown top-level key and still answers', async (t) => {
  const home = await homeWithStarter();
  await mkdir(ragDir(home), { recursive: true });
  const path = configPath(home);
  await writeFile(path, JSON.stringify({ servcie: { enabled: false }, tui: { keymap: 'vim' } }));
  const r = await run(['status', '--format', 'plain']);
  t.is(r.code, 0, r.err);
  t.is(r.out, 'RAG no stores\n');
  t.is(
    r.err,
    `kortty-rag status: ${path}: unknown key "servcie" ignored (known: service, tui, keymap, theme, last)\n`,
  );
  // --json stays parseable; the warning is on stderr.
  const j = await run(['status', '--json']);
  t.is(j.code, 0, j.err);
  t.notThrows(() => JSON.parse(j.out));
  t.regex(j.err, /unknown key "servcie"/);
  // Unknown keys are not errors for the readers: an older kortty-rag runs on a newer config.
  t.is(readTuiConfig(home).keymap, 'vim');
  t.true((await readServiceConfig(home)).enabled);
  // A damaged block is named too (file and field), and status still answers.
  await writeFile(path, JSON.stringify({ tui: { keymap: 3 } }));
  const d = await run(['status']);
  t.is(d.code, 0, d.err);
  t.regex(
    d.err,
    new RegExp(`${path}: damaged configuration: tui\\.keymap: expected a string, found number 3`),
  );
  await writeFile(path, JSON.stringify({ service: {}, tui: {} }));
  t.is((await run(['status'])).err, '');
});

test.serial('a damaged keymap or theme names its file and field', async (t) => {
  const home = await homeWithStarter();
  for (const kind of ['keymaps', 'themes']) await mkdir(join(ragDir(home), kind), { recursive: true });
  const km = join(ragDir(home), 'keymaps', 'mine.json');
  await writeFile(km, '{"bindings": {"app.quit": ["q"}}');
  t.regex(
    t.throws(() => loadKeymap('mine', home))!.message,
    new RegExp(`^${km}: damaged keymap: \\(file\\): expected JSON, found invalid JSON`),
  );
  await writeFile(km, JSON.stringify({ bindings: { 'app.quit': 7 } }));
  t.regex(
    t.throws(() => loadKeymap('mine', home))!.message,
    /mine\.json: damaged keymap: bindings\["app\.quit"\]: expected /,
  );
  await writeFile(km, JSON.stringify({ name: 'mine' }));
  t.regex(
    t.throws(() => loadKeymap('mine', home))!.message,
    /bindings: expected a record, found nothing \(missing\)/,
  );

  const th = join(ragDir(home), 'themes', 'mine.json');
  await writeFile(th, JSON.stringify({ roles: { title: { bold: 'yes' } } }));
  t.regex(
    t.throws(() => loadTheme('mine', home))!.message,
    new RegExp(`^${th}: damaged theme: roles\\.title\\.bold: expected a boolean, found the string "yes"`),
  );
  await writeFile(th, JSON.stringify({ roles: { title: { blink: true } } }));
  t.regex(t.throws(() => loadTheme('mine', home))!.message, /roles\.title\.blink: expected no such field/);
});

test('a damaged profiles file names the file and the field', async (t) => {
  const home = await homeWithStarter();
  await mkdir(join(home, 'p'), { recursive: true });
  const path = join(home, 'p', 'profiles.json');
  await writeFile(path, '{"profiles": [');
  const e1 = await t.throwsAsync<KorttyError>(loadProfiles(path));
  t.is(e1?.code, 'PROFILES_INVALID');
  t.true(e1!.message.startsWith(`${path}: (file): expected JSON, found invalid JSON`), e1!.message);
  const ok = { name: 'a', backend: 'llama', model: 'm.gguf' };
  const cases: [unknown, string][] = [
    [
      { profiles: [ok, { name: 'b', backend: 'gpt', model: 'm' }] },
      'profiles[1].backend: expected one of "llama", "openai", found the string "gpt"',
    ],
    [
      { profiles: [{ name: 'a', backend: 'llama' }] },
      'profiles[0].model: expected a string, found nothing (missing)',
    ],
    [{ profiles: [ok], roles: { text: ['a'] } }, 'roles.text: expected a string, found an array of 1'],
    [{ profiles: [{ ...ok, contextWindow: '8k' }] }, 'profiles[0].contextWindow: expected a number'],
    // A cross-reference the schema cannot see keeps its own message.
    [{ profiles: [ok], roles: { coding: 'b' } }, 'roles.coding refers to unknown profile "b"'],
  ];
  for (const [content, reason] of cases) {
    await writeFile(path, JSON.stringify(content));
    const err = await t.throwsAsync<KorttyError>(loadProfiles(path));
    t.is(err?.code, 'PROFILES_INVALID');
    t.true(err!.message.startsWith(`${path}: ${reason}`), err!.message);
  }
});

test('a damaged model-family preset names the file and the field', async (t) => {
  const home = await homeWithStarter();
  const dir = join(home, 'presets');
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'qwen.json');
  const good = { family: 'qwen', displayName: 'Q', systemRole: true, instructions: '', citationHint: '' };
  const cases: [unknown, RegExp][] = [
    [{ ...good, systemRole: 'no' }, /systemRole: expected a boolean, found the string "no"/],
    [{ ...good, stop: '<|im_end|>' }, /stop: expected an array, found the string "<\|im_end\|>"/],
    [{ ...good, family: 'gpt' }, /family: expected one of "generic", .*found the string "gpt"/],
  ];
  for (const [content, re] of cases) {
    await writeFile(path, JSON.stringify(content));
    const err = await t.throwsAsync<KorttyError>(loadPresets(dir));
    t.is(err?.code, 'PRESET_INVALID');
    t.true(err!.message.startsWith(`${path}: model-family preset not usable: `), err!.message);
    t.regex(err!.message, re);
  }
});

test.serial(
  'a damaged AI Skill names its file and front-matter field, and ask says it left it out',
  async (t) => {
    const home = await homeWithStarter();
    await mkdir(skillsDir(home), { recursive: true });
    const bad = join(skillsDir(home), 'shell.md');
    await writeFile(bad, '---\nactions: ask, hack\n---\nPrefer POSIX sh.\n');
    await writeFile(join(skillsDir(home), 'tone.md'), 'Answer calmly.\n');
    const { skills, problems } = await loadSkills(skillsDir(home));
    t.deepEqual(
      skills.map((s) => s.name),
      ['tone'],
    );
    t.is(problems.length, 1);
    t.regex(
      problems[0]!.message,
      new RegExp(`^${bad}: AI Skill not usable: unknown action "hack" in front matter`),
    );
    // The action still runs without it, and says so.
    const fake = await createFakeOpenAI();
    const deps = createSearchDeps(home);
    try {
      const cfg = upsertProfile(
        emptyProfilesConfig(),
        { name: 'p', backend: 'openai', baseUrl: fake.url, model: 'fake' },
        profilesPath(home),
      );
      await saveProfiles(cfg, profilesPath(home));
      const warnings: string[] = [];
      const res = await runAction({
        action: 'ask',
        prompt: 'hello',
        home,
        profile: 'p',
        searchDeps: deps,
        onWarning: (m) => warnings.push(m),
      });
      t.is(res.status, 'ok');
      t.true(
        warnings.some((w) => w.includes(bad) && /unknown action "hack"/.test(w)),
        warnings.join('\n'),
      );
    } finally {
      await deps.close();
      await fake.close();
    }
  },
);

test('a damaged run record line names the log file, the line and the field', (t) => {
  const good = serializeRun({
    v: 1,
    id: 'r1',
    time: '2026-01-01T00:00:00.000Z',
    action: 'ask',
    profile: 'p',
    stores: [],
    query: 'q',
    excerpts: [],
    cited: [],
    status: 'ok',
  });
  const bad = good.replace('"status":"ok"', '"status":"maybe"');
  const missing = good.replace('"cited":[],', '');
  const { records, damaged } = parseRunLines(`${good}${bad}${missing}{"v":1,\n`, '/h/runs/2026-01-01.jsonl');
  t.is(records.length, 1);
  t.deepEqual(
    damaged.map((d) => d.line),
    [2, 3, 4],
  );
  t.true(damaged.every((d) => d.file === '/h/runs/2026-01-01.jsonl'));
  t.regex(
    damaged[0]!.reason,
    /^damaged run record: status: expected one of "ok", "rejected", "failed", found the string "maybe"/,
  );
  t.regex(damaged[1]!.reason, /^damaged run record: cited: expected an array, found nothing \(missing\)/);
  t.is(damaged[2]!.reason, 'not a run record');
});

test('file text is shown through the terminal sanitizer', async (t) => {
  const home = await homeWithStarter();
  const s = await createStore({ name: 'Esc', modelId: MODEL }, home);
  await editJson(storeConfigPath(s.id, home), (j) => (j.type = '\u001b]52;c;aGk=\u0007'));
  const err = await t.throwsAsync<KorttyError>(loadStore(s.id, home));
  t.false(err!.message.includes('\u001b'), err!.message);
  t.regex(err!.message, /type: expected one of "local", "qdrant", found the string "\\u001b\]52/);
});
