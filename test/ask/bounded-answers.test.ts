import test from 'ava';
import { runAction } from '../../src/ai/ask.js';
import { parseProfilesConfig } from '../../src/ai/profiles.js';
import { saveProfiles } from '../../src/ai/profiles-file.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { profilesPath } from '../../src/storage/paths.js';
import { createFakeOpenAI, HOSTILE_MODES } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { freshHome } from '../helpers/store-env.js';

// Answers are bounded: `max_tokens` goes out with every request, and a server that ignores it (an
// endless stream), never ends an event, or sends one 100 MB event is cut at a cap the error names,
// with the `ask` process's peak memory staying small.

/** Peak RSS of the whole `ask` process (Node itself takes ~60-90 MiB here). */
const RSS_BOUND_MIB = 300;

async function homeWithProfile(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const home = await freshHome();
  const cfg = parseProfilesConfig(
    {
      version: 1,
      profiles: [
        { name: 'remote', backend: 'openai', baseUrl: url, model: 'm', contextWindow: 8192, ...extra },
      ],
      roles: { text: 'remote', coding: 'remote' },
    },
    profilesPath(home),
  );
  await saveProfiles(cfg, profilesPath(home));
  return home;
}

test('max_tokens is sent: min(context/4, 4096) by default, the profile’s own when set', async (t) => {
  const fake = await createFakeOpenAI({ reply: () => 'short answer' });
  try {
    for (const [extra, want] of [
      [{}, 2048],
      [{ contextWindow: 65536 }, 4096],
      [{ contextWindow: 1024 }, 256],
      [{ maxTokens: 300 }, 300],
    ] as const) {
      const home = await homeWithProfile(fake.url, extra);
      const deps = createSearchDeps(home);
      const res = await runAction({ action: 'ask', prompt: 'hello', home, searchDeps: deps });
      await deps.close();
      t.is(res.status, 'ok');
      t.is(fake.requests.at(-1)!.body.max_tokens, want, JSON.stringify(extra));
    }
  } finally {
    await fake.close();
  }
});

test('a profile’s maxTokens is validated: at least 16, at most half the context', async (t) => {
  const bad = (extra: Record<string, unknown>) =>
    t.throws(
      () =>
        parseProfilesConfig(
          {
            profiles: [
              { name: 'p', backend: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', ...extra },
            ],
          },
          '/h/ai/profiles.json',
        ),
      { code: 'PROFILES_INVALID' } as never,
    );
  t.regex(bad({ maxTokens: 8 })!.message, /profiles\[0\]\.maxTokens/);
  t.regex(bad({ maxTokens: 'lots' })!.message, /profiles\[0\]\.maxTokens/);
  t.regex(bad({ contextWindow: 4096, maxTokens: 3000 })!.message, /maxTokens 3000 is more than half/);
});

for (const mode of HOSTILE_MODES) {
  test(`a hostile server (${mode}) ends ask with the cap’s error, and ask’s memory stays bounded`, async (t) => {
    const fake = await createFakeOpenAI({ reply: () => ({ hostile: mode }) });
    try {
      const home = await homeWithProfile(fake.url);
      const run = await runCli(['ask', '--no-service', 'hello'], { env: { KORTTY_HOME: home } });
      t.is(run.code, 1, run.stderr);
      const cap =
        mode === 'endless'
          ? /the answer passed the 65536-character cap \(the server ignored max_tokens\?\); stopped reading/
          : /an event-stream event longer than 1048576 characters \(the per-event cap.*\); stopped reading/;
      t.regex(run.stderr, cap);
      t.true(run.peakRssMiB < RSS_BOUND_MIB, `peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
      t.log(`${mode}: exit after ${run.ms.toFixed(0)} ms, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
      t.is(fake.requests[0]!.body.max_tokens, 2048);
    } finally {
      await fake.close();
    }
  });
}
