import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runAction } from '../../src/ai/ask.js';
import { parseProfilesConfig } from '../../src/ai/profiles.js';
import { saveProfiles } from '../../src/ai/profiles-file.js';
import { readRuns } from '../../src/ai/runs-file.js';
import { fitToTokens, SELECTION_MAX_BYTES } from '../../src/ai/selection-bounds.js';
import { createSearchDeps } from '../../src/app/search-deps.js';
import { countTokens, getTokenizer } from '../../src/chunk/tokenizer.js';
import { profilesPath, runsDir } from '../../src/storage/paths.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { createFakeOpenAI, requestText } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { countingPorts, freshHome, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// The selection is bounded before anything uses it: at most 512 KiB is read (so /dev/zero ends at
// once), then it is cut to the tokens the model's context leaves it. The cut is said on stderr (the
// popup shows it) and recorded in the run record; the model gets a request that fits its context.

const CONTEXT = 8192;

async function saveProfile(home: string, url: string): Promise<void> {
  const cfg = parseProfilesConfig(
    {
      version: 1,
      profiles: [{ name: 'remote', backend: 'openai', baseUrl: url, model: 'm', contextWindow: CONTEXT }],
      roles: { text: 'remote', coding: 'remote' },
    },
    profilesPath(home),
  );
  await saveProfiles(cfg, profilesPath(home));
}

test('ask --file /dev/zero ends at once with the byte cut said', async (t) => {
  const fake = await createFakeOpenAI({ reply: () => 'fine' });
  try {
    const home = await freshHome();
    await saveProfile(home, fake.url);
    const run = await runCli(['ask', '--no-service', '--file', '/dev/zero', 'what is this'], {
      env: { KORTTY_HOME: home },
    });
    t.is(run.code, 0, run.stderr);
    t.regex(
      run.stderr,
      new RegExp(
        `the selection was cut: read only its first ${SELECTION_MAX_BYTES} bytes \\(the ${SELECTION_MAX_BYTES}-byte cap\\)`,
      ),
    );
    t.true(run.peakRssMiB < 250, `peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
    t.is(fake.requests.length, 1);
    t.true(JSON.stringify(fake.requests[0]!.body).length < 64 * 1024);
    t.log(`/dev/zero: ${run.ms.toFixed(0)} ms, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
  } finally {
    await fake.close();
  }
});

test('a 10 MB stdin selection is cut to fit the context; retrieval, the request and the run record see the cut', async (t) => {
  const fake = await createFakeOpenAI();
  try {
    const home = await homeWithStarter();
    const root = await mkdtemp(join(tmpdir(), 'kortty-sel-'));
    await writeTree(root, { 'volcanoes.md': prose('volcanoes', 20, 3) });
    await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
    await addSources('Docs', [{ kind: 'folder', path: root }], { ports: countingPorts(home) }, home);
    await saveProfile(home, fake.url);
    // Numbered lines, so what reached the model shows which part of the selection it was.
    let selection = '';
    for (let i = 0; selection.length < 10 * 1024 * 1024; i++)
      selection += `line ${i}: volcanoes erupt basalt and ash over the caldera\n`;
    const run = await runCli(['ask', '--no-service', '--stdin'], {
      env: { KORTTY_HOME: home },
      stdin: selection,
      timeoutMs: 120_000,
    });
    t.is(run.code, 0, run.stderr);
    t.regex(
      run.stderr,
      /the selection was cut: read only its first 524288 bytes \(the 524288-byte cap\); kept its first \d+ tokens of more than \d+ to fit the \d+-token room the model's context leaves it/,
    );
    const body = fake.requests.at(-1)!.body;
    const sent = countTokens(requestText(body));
    t.true(sent + (body.max_tokens as number) <= CONTEXT, `${sent} prompt tokens + ${body.max_tokens}`);
    const text = requestText(body);
    t.true(text.includes('line 0: volcanoes'));
    t.false(text.includes('line 9000:'), 'only the head of the selection');
    t.regex(text, /<retrieved_context>[\s\S]*\[R1\]/);
    const [rec] = (await readRuns({ dir: runsDir(home), last: 1 })).records;
    t.true(rec!.selectionCut!.bytesCut);
    t.true(rec!.selectionCut!.keptTokens! > 100);
    t.true(rec!.selectionCut!.keptTokens! <= rec!.selectionCut!.slotTokens!);
    t.true(rec!.query.length < 64 * 1024, 'retrieval used the cut selection');
    const listed = await runCli(['runs', '--last', '1'], { env: { KORTTY_HOME: home } });
    t.regex(listed.stdout, /selection cut: first 524288 bytes read; \d+ bytes \(\d+ tokens\) sent/);
    // Loading the embedding model and embedding a query of a few thousand tokens peaks near 500 MiB
    // here; the whole 10 MB selection went to retrieval and to the model before.
    t.true(run.peakRssMiB < 700, `peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
    t.log(
      `10 MB stdin: ${run.ms.toFixed(0)} ms, peak RSS ${run.peakRssMiB.toFixed(0)} MiB, ${sent} prompt tokens`,
    );
  } finally {
    await fake.close();
  }
});

test('a 90 MB selection handed to the action in-process is cut by tokens without reading it all', async (t) => {
  const fake = await createFakeOpenAI({ reply: () => 'fine' });
  try {
    const home = await freshHome();
    await saveProfile(home, fake.url);
    const selection = 'é volcanoes erupt '.repeat(5_300_000);
    t.true(selection.length > 90_000_000);
    const deps = createSearchDeps(home);
    const res = await runAction({ action: 'explain', selection, home, searchDeps: deps });
    await deps.close();
    t.is(res.status, 'ok');
    t.true(res.selectionCut!.tokensAtLeast);
    t.false(res.selectionCut!.bytesCut);
    const body = fake.requests[0]!.body;
    t.true(countTokens(requestText(body)) + (body.max_tokens as number) <= CONTEXT);
  } finally {
    await fake.close();
  }
});

test('the token cut ends on a character boundary and keeps the head', (t) => {
  const tok = getTokenizer();
  const text = '日本語のテキスト '.repeat(2000);
  const fit = fitToTokens(text, 100, tok);
  t.true(fit.cut);
  t.true(fit.tokens <= 100 && fit.tokens > 80);
  t.true(text.startsWith(fit.text));
  t.false(fit.text.includes('\uFFFD'));
  const short = fitToTokens('a few words', 100, tok);
  t.deepEqual([short.cut, short.text], [false, 'a few words']);
});
