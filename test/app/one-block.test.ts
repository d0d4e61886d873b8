import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { setRole, upsertProfile } from '../../src/ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../src/ai/profiles-file.js';
import { ask } from '../../src/app/ask.js';
import { CONTEXT_CLOSE, CONTEXT_OPEN } from '../../src/retrieve/block.js';
import { profilesPath } from '../../src/storage/paths.js';
import { createFakeOpenAI, type FakeOpenAI, requestText } from '../helpers/fake-openai.js';
import { stopQueryService } from '../helpers/query-service.js';
import { homeWithStarter, prose } from '../helpers/store-env.js';
import { BIN, connect, makeStore, textOf } from '../mcp/harness.js';

// The four entry points that hand out a <retrieved_context> block (`search`, the query service,
// `ask` and the MCP tool) get it from the one query-to-block function, so for the same query over
// the same stores they hand out the same bytes. Real processes, the real generated model, real
// snapshots; only the chat server is the loopback fake.

const exec = promisify(execFile);
const QUERY = 'kiwi orchard irrigation at dawn';
const CONTEXT_WINDOW = 32768; // search's default bound: the profile gives ask the same one

let home: string;
let fake: FakeOpenAI;

test.before(async () => {
  home = await homeWithStarter();
  await makeStore(
    home,
    'Notes',
    {
      'kiwi.md':
        '# Kiwi orchard\nThe kiwi orchard irrigation runs at dawn every Tuesday.\nDrip lines are flushed monthly.\n',
      'deploy.md': prose('deploy', 20),
      'tar.txt': 'tar -tf archive.tar lists an archive.\n',
      'more/kiwi-notes.md': prose('kiwi', 12),
    },
    { roles: ['text'], autonomous: true },
  );
  fake = await createFakeOpenAI({ reply: () => 'An answer citing [R1].' });
  let cfg = await loadProfiles(profilesPath(home));
  cfg = upsertProfile(
    cfg,
    {
      name: 'writer',
      backend: 'openai',
      baseUrl: fake.url,
      model: 'fake',
      contextWindow: CONTEXT_WINDOW,
      family: 'generic',
      requireCitations: false,
      retrievalMode: 'before',
    },
    profilesPath(home),
  );
  cfg = setRole(cfg, 'text', 'writer', profilesPath(home));
  await saveProfiles(cfg, profilesPath(home));
});

test.after.always(async () => {
  await stopQueryService(home);
  await fake?.close();
});

const cli = async (args: string[]) => {
  const r = await exec(process.execPath, [BIN, ...args], { env: { ...process.env, KORTTY_HOME: home } });
  return { stdout: r.stdout, stderr: r.stderr };
};

test('search, the query service, ask and MCP hand out byte-identical blocks for the same query', async (t) => {
  const inProcess = await cli(['search', '--json', '--no-service', QUERY]);
  const fromCli = JSON.parse(inProcess.stdout) as {
    block: string;
    shapedQuery?: string;
    failedStores: unknown[];
  };
  t.true(fromCli.block.startsWith(CONTEXT_OPEN), fromCli.block);
  t.regex(fromCli.block, /kiwi\.md/);
  t.is(typeof fromCli.shapedQuery, 'string');
  t.deepEqual(fromCli.failedStores, []);

  const warm = await cli(['search', '--json', '--verbose', QUERY]);
  t.regex(warm.stderr, /answered by the query service/, 'the service answered');
  const fromService = JSON.parse(warm.stdout) as { block: string; shapedQuery?: string };
  t.is(fromService.block, fromCli.block);
  t.is(fromService.shapedQuery, fromCli.shapedQuery);

  const warnings: string[] = [];
  const res = await ask({
    home,
    action: 'ask',
    prompt: QUERY,
    useService: false,
    warn: (m) => warnings.push(m),
    onWarning: (m) => warnings.push(m),
  });
  t.is(res.status, 'ok', JSON.stringify(res.error));
  const sent = requestText(fake.requests.at(-1)!.body);
  const start = sent.indexOf(CONTEXT_OPEN);
  const end = sent.indexOf(CONTEXT_CLOSE) + CONTEXT_CLOSE.length;
  t.true(start >= 0 && end > start, sent);
  t.is(sent.slice(start, end), fromCli.block);
  t.deepEqual(warnings, []);

  const mcp = await connect(home);
  try {
    const r = await mcp.client.callTool({ name: 'search_knowledge', arguments: { query: QUERY } });
    t.falsy(r.isError, textOf(r));
    t.is(textOf(r), fromCli.block);
    t.is((r.structuredContent as { shapedQuery?: string }).shapedQuery, fromCli.shapedQuery);
  } finally {
    await mcp.close();
  }
});
