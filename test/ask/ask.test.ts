import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runAction } from '../../src/ai/ask.js';
import { setRole, upsertProfile } from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { readRuns } from '../../src/ai/runs-file.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { profilesPath, runsDir } from '../../src/storage/paths.js';
import { addSources, createStore, findStore } from '../../src/store/engine.js';
import type { ActionKind } from '../../src/types.js';
import { createFakeOpenAI, defaultReply, requestText } from '../helpers/fake-openai.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// AI actions end to end with the real generated embedding model, real snapshots and the
// OpenAI-compatible loopback backend: role/store/enabled-source isolation, policy, citation
// enforcement and run records.

async function world(reply?: Parameters<typeof createFakeOpenAI>[0]) {
  const home = await homeWithStarter();
  const fake = await createFakeOpenAI(reply);
  const mk = async (name: string, topic: string, roles: ('text' | 'coding')[], autonomous = false) => {
    const root = await mkdtemp(join(tmpdir(), `kortty-ask-${name}-`));
    await writeTree(root, { [`${topic}.md`]: prose(topic, 20, name.length) });
    await createStore({ name, modelId: 'kortty-lexical-starter', roles, autonomous }, home);
    await addSources(name, [{ kind: 'folder', path: root }], { ports: countingPorts(home) }, home);
    return root;
  };
  const textRoot = await mk('TextDocs', 'volcanoes', ['text']);
  const codingRoot = await mk('CodeDocs', 'volcanoes', ['coding']);
  const looseRoot = await mk('Loose', 'volcanoes', []);
  const autoRoot = await mk('Auto', 'volcanoes', ['text'], true);
  let cfg = await loadProfiles(profilesPath(home));
  for (const [name, req] of [
    ['writer', true],
    ['coder', false],
  ] as const) {
    cfg = upsertProfile(
      cfg,
      {
        name,
        backend: 'openai',
        baseUrl: fake.url,
        model: 'fake',
        contextWindow: 8192,
        family: 'generic',
        requireCitations: req,
        retrievalMode: 'before',
      },
      profilesPath(home),
    );
  }
  cfg = setRole(cfg, 'text', 'writer', profilesPath(home));
  cfg = setRole(cfg, 'coding', 'coder', profilesPath(home));
  await saveProfiles(cfg, profilesPath(home));
  const deps = createSearchDeps(home);
  const ask = (action: ActionKind, extra: { profile?: string; selection?: string } = {}) =>
    runAction({ action, prompt: 'tell me about volcanoes', home, searchDeps: deps, ...extra });
  return { home, fake, deps, ask, roots: { textRoot, codingRoot, looseRoot, autoRoot } };
}

test('ordinary action: only stores attached to the profile’s role; answer cites; run recorded', async (t) => {
  const w = await world();
  try {
    const res = await w.ask('ask');
    t.is(res.status, 'ok');
    const paths = res.excerpts.map((e) => e.path);
    t.true(paths.some((p) => p.startsWith(w.roots.textRoot)));
    t.false(
      paths.some((p) => p.startsWith(w.roots.codingRoot)),
      'a store of the other role never appears',
    );
    t.false(
      paths.some((p) => p.startsWith(w.roots.looseRoot)),
      'an unattached store never appears',
    );
    t.deepEqual(res.cited, ['R1']);
    const sent = requestText(w.fake.requests.at(-1)!.body);
    t.is(sent.split('<retrieved_context>').length - 1, 1);
    t.false(sent.includes(w.roots.codingRoot));
    const runs = await readRuns({ dir: runsDir(w.home) });
    t.is(runs.records.length, 1);
    t.deepEqual(runs.records[0]!.cited, ['R1']);
    t.is(runs.records[0]!.excerpts[0]!.marker, 'R1');
    t.truthy(runs.records[0]!.excerpts[0]!.contentSha256);
  } finally {
    await w.deps.close();
    await w.fake.close();
  }
});

test('the coding role’s profile sees only coding stores; a disabled source never appears', async (t) => {
  const w = await world();
  try {
    const res = await w.ask('fix');
    t.is(res.profile.name, 'coder');
    t.true(res.excerpts.length > 0);
    t.true(res.excerpts.every((e) => e.path.startsWith(w.roots.codingRoot)));
    const { setSourceEnabled } = await import('../../src/store/engine.js');
    const code = await findStore('CodeDocs', w.home);
    await setSourceEnabled('CodeDocs', code.sources[0]!.id, false, w.home);
    const again = await w.ask('fix');
    t.is(again.excerpts.length, 0);
  } finally {
    await w.deps.close();
    await w.fake.close();
  }
});

test('policy: agent prompts only get opted-in stores; diagram and vision get nothing', async (t) => {
  const w = await world();
  try {
    const agent = await w.ask('agent');
    t.true(agent.excerpts.length > 0);
    t.true(agent.excerpts.every((e) => e.path.startsWith(w.roots.autoRoot)));
    for (const action of ['diagram', 'vision'] as const) {
      const r = await w.ask(action);
      t.is(r.excerpts.length, 0, action);
      t.false(requestText(w.fake.requests.at(-1)!.body).includes('<retrieved_context>'), action);
    }
  } finally {
    await w.deps.close();
    await w.fake.close();
  }
});

test('citation enforcement rejects no marker and an unretrieved marker, keeps the raw answer', async (t) => {
  let n = 0;
  const w = await world({
    reply: (body) => {
      n++;
      if (n === 1) return 'Volcanoes erupt. No sources needed.';
      if (n === 2) return 'Volcanoes erupt [R9].';
      return defaultReply(body);
    },
  });
  try {
    const none = await w.ask('ask');
    t.is(none.status, 'rejected');
    t.is(none.error?.code, 'CITATION_MISSING');
    t.is(none.answer, 'Volcanoes erupt. No sources needed.');
    const forged = await w.ask('ask');
    t.is(forged.status, 'rejected');
    t.is(forged.error?.code, 'CITATION_UNKNOWN');
    t.regex(forged.error!.message, /\[R9\]/);
    const good = await w.ask('ask');
    t.is(good.status, 'ok');
    const runs = await readRuns({ dir: runsDir(w.home) });
    t.deepEqual(
      runs.records.map((r) => r.status),
      ['rejected', 'rejected', 'ok'],
    );
    t.is(runs.records[0]!.answer, 'Volcanoes erupt. No sources needed.');
  } finally {
    await w.deps.close();
    await w.fake.close();
  }
});
