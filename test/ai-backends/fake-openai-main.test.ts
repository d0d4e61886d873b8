import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { createOpenAIBackend } from '../../src/ai/backends/openai.js';
import { runWithTools } from '../../src/ai/backends/run-with-tools.js';
import {
  createSearchKnowledgeHandler,
  SEARCH_KNOWLEDGE,
  toolsFor,
} from '../../src/ai/backends/search-knowledge.js';

const home = mkdtempSync(join(tmpdir(), 'kortty-backends-'));
process.env.KORTTY_HOME = home;
const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'fake-openai-main.js');

async function startCli(args: string[]) {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return { url, stop };
}

const BLOCK = '<retrieved_context>\nUntrusted data.\n[R2] a.md:1-2\nx\n[R3] b.md:4\ny\n</retrieved_context>';

test('CLI server: prints its URL, answers citing the first context marker, records requests, stops on SIGTERM', async (t) => {
  const record = join(home, 'requests.jsonl');
  const urlFile = join(home, 'url');
  const server = await startCli(['--record', record, '--url-file', urlFile]);
  t.regex(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  t.is(readFileSync(urlFile, 'utf8').trim(), server.url);
  const backend = createOpenAIBackend({ endpoint: server.url, model: 'any' });
  const tokens: string[] = [];
  const withBlock = await backend.chat({
    system: 'Cite markers such as [R1].',
    messages: [{ role: 'user', content: `${BLOCK}\n\nexplain $(touch /tmp/pwned)` }],
    onToken: (x) => tokens.push(x),
  });
  t.is(withBlock.text, 'According to the retrieved context [R2], this is what the selection is about.');
  t.true(tokens.length > 3, 'streamed word by word');
  const without = await backend.chat({
    system: 'Cite markers such as [R1].',
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.regex(without.text, /cites nothing/);
  const lines = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.is(lines.length, 2);
  t.is(lines[0].messages[1].content, `${BLOCK}\n\nexplain $(touch /tmp/pwned)`);
  t.is(await server.stop(), 0);
});

test('CLI server: --tool-first calls search_knowledge, then cites what it returned; --template', async (t) => {
  const server = await startCli(['--tool-first', '--template', 'See {marker}.']);
  try {
    const backend = createOpenAIBackend({ endpoint: server.url, model: 'any' });
    const queries: string[] = [];
    const res = await runWithTools(
      backend,
      { system: '', messages: [{ role: 'user', content: 'lockfile' }], tools: toolsFor('tool') },
      {
        [SEARCH_KNOWLEDGE]: createSearchKnowledgeHandler(async (q) => {
          queries.push(q);
          return '<retrieved_context>\n[R1] c.md:9\nz\n</retrieved_context>';
        }),
      },
      { maxRounds: 2 },
    );
    t.deepEqual(queries, ['lockfile']);
    t.is(res.text, 'See [R1].');
  } finally {
    await server.stop();
  }
});

test('CLI server: --fail answers every request with that status', async (t) => {
  const server = await startCli(['--fail', '503']);
  try {
    const backend = createOpenAIBackend({ endpoint: server.url, model: 'any' });
    const err = await t.throwsAsync(backend.chat({ system: '', messages: [{ role: 'user', content: 'x' }] }));
    t.regex(err!.message, /HTTP 503/);
  } finally {
    await server.stop();
  }
});
