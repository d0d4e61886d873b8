import { existsSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { main } from '../../src/cli/main.js';

const run = (argv: string[], io: Parameters<typeof main>[1]) => main(['models', ...argv], io);

import { GiB } from '../../src/embed/catalog.js';
import { getInstalled, verifyInstalled } from '../../src/embed/model-registry.js';
import { modelsDir } from '../../src/storage/paths.js';
import { captureIO, ggufBytes, serveFile, sha256, tempHome } from './helpers.js';

test.before(async () => {
  process.env.KORTTY_HOME = await tempHome('cli');
});

const MiB = 1 << 20;

async function env(label: string, extra: NodeJS.ProcessEnv = {}) {
  const home = await tempHome(label);
  return { home, env: { ...process.env, KORTTY_HOME: home, ...extra } };
}

test('models list --json: catalog, memory fit, preselected and installed models', async (t) => {
  const { home, env: e } = await env('list', { KORTTY_TOTAL_MEMORY_BYTES: String(16 * GiB) });
  const local = join(home, 'mine.gguf');
  await writeFile(local, ggufBytes(4096));
  t.is(await run(['add', local, '--id', 'mine'], captureIO(e).io), 0);

  const c = captureIO(e);
  t.is(await run(['list', '--json'], c.io), 0);
  const listing = JSON.parse(c.stdout());
  t.is(listing.totalMemoryBytes, 16 * GiB);
  t.is(listing.defaultModelId, 'qwen3-embedding-0.6b-q8_0');
  const byId = Object.fromEntries(listing.catalog.map((m: { id: string }) => [m.id, m]));
  t.true(byId['qwen3-embedding-0.6b-q8_0'].preselected);
  t.true(byId['qwen3-embedding-4b-q4_k_m'].offered);
  t.false(byId['qwen3-embedding-8b-q4_k_m'].offered);
  t.false(byId['qwen3-embedding-0.6b-q8_0'].installed);
  t.deepEqual(
    listing.installed.map((r: { id: string; inCatalog: boolean; path: string }) => [
      r.id,
      r.inCatalog,
      r.path,
    ]),
    [['local:mine', false, local]],
  );

  const text = captureIO({ ...e, KORTTY_TOTAL_MEMORY_BYTES: String(8 * GiB) });
  t.is(await run(['list'], text.io), 0);
  t.regex(text.stdout(), /^\*\s+qwen3-embedding-0\.6b-q8_0 .* available$/m);
  t.regex(text.stdout(), /qwen3-embedding-4b-q4_k_m .* needs 16 GiB memory$/m);
  t.regex(text.stdout(), /qwen3-embedding-8b-q4_k_m .* needs 24 GiB memory$/m);
  t.regex(text.stdout(), /kortty-lexical-starter .*matches words, not meaning/);
  t.regex(text.stdout(), /local:mine +\S*mine\.gguf/);
});

test('models install prints plain progress lines off a TTY, then verify and remove', async (t) => {
  const { home, env: e } = await env('install');
  const bytes = ggufBytes(6 * MiB);
  const server = await serveFile(bytes, '/files/tiny-embed.gguf');
  t.teardown(() => server.close());

  const c = captureIO(e);
  t.is(await run(['install', 'tiny', '--url', server.url], c.io), 0);
  const lines = c.stderr().trim().split('\n');
  t.true(lines.length >= 3, c.stderr());
  t.false(c.stderr().includes('\r'), 'no carriage returns off a TTY');
  t.regex(lines.at(-1)!, /^verifying sha256 100\.0%/);
  t.true(
    lines.some((l) => /^downloading 100\.0% +6 MiB \/ 6 MiB$/.test(l)),
    c.stderr(),
  );
  t.regex(
    c.stdout(),
    new RegExp(`^installed tiny: .*tiny-embed\\.gguf \\(6 MiB, sha256 ${sha256(bytes)}\\)`),
  );
  t.is((await getInstalled('tiny', home))?.sha256, sha256(bytes));

  const tty = captureIO(e, true);
  t.is(await run(['verify', 'tiny'], tty.io), 0);
  t.regex(tty.stdout(), /^ok: .*tiny-embed\.gguf matches the sha256 recorded at install/);
  t.true(tty.stderr().includes('\r\x1b[2K'), 'a TTY gets one rewritten status line');

  // A changed file fails verify with a non-zero exit and a message naming the file.
  const path = join(modelsDir(home), 'tiny-embed.gguf');
  const fh = await open(path, 'r+');
  // The file's tail is random: flip the byte there, so the write always changes it.
  await fh.write(Buffer.from([bytes[5 * MiB]! ^ 0xff]), 0, 1, 5 * MiB);
  await fh.close();
  const bad = captureIO(e);
  t.is(await main(['models', 'verify', 'tiny'], bad.io), 1);
  t.regex(
    bad.stderr(),
    new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: model file changed since it was installed`),
  );

  const rm = captureIO(e);
  t.is(await run(['remove', 'tiny', '--json'], rm.io), 0);
  t.is(JSON.parse(rm.stdout()).deletedFile, path);
  t.false(existsSync(path));
});

test('models add refuses a non-GGUF file with exit 1 and the reason; usage errors exit 2', async (t) => {
  const { home, env: e } = await env('add');
  await mkdir(home, { recursive: true });
  const notes = join(home, 'notes.gguf');
  await writeFile(notes, 'plain text\n');
  const c = captureIO(e);
  t.is(await main(['models', 'add', notes], c.io), 1);
  t.regex(
    c.stderr(),
    /notes\.gguf: not a usable GGUF embedding model: starts with "plai", not the GGUF magic/,
  );

  const missing = captureIO(e);
  t.is(await main(['models', 'install'], missing.io), 2);
  t.regex(missing.stderr(), /^kortty-rag models install: missing ID\n\nusage: kortty-rag models install /);
  const unknown = captureIO(e);
  t.is(await run(['frobnicate'], unknown.io), 2);
  t.regex(unknown.stderr(), /usage:/);
  const badFlag = captureIO(e);
  t.is(await run(['list', '--nope'], badFlag.io), 2);
});

test('models install of a failing URL exits 1 naming the URL and status', async (t) => {
  const { env: e } = await env('fail');
  const server = await serveFile(Buffer.alloc(0), '/gone.gguf', { status: 503 });
  t.teardown(() => server.close());
  const c = captureIO(e);
  t.is(await main(['models', 'install', 'gone', '--url', server.url], c.io), 1);
  t.true(c.stderr().includes(`download of ${server.url} failed: HTTP 503`), c.stderr());
});

test('models install kortty-lexical-starter builds the starter offline with the real generator', async (t) => {
  const { home, env: e } = await env('starter');
  const c = captureIO(e);
  t.is(await run(['install', 'kortty-lexical-starter', '--json'], c.io), 0);
  const out = JSON.parse(c.stdout());
  t.is(out.source, 'generated');
  t.is(out.path, join(modelsDir(home), 'kortty-lexical-starter-384.gguf'));
  t.is((await verifyInstalled('kortty-lexical-starter', { home, full: true })).record.sha256, out.sha256);
});
