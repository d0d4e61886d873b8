import { execFile } from 'node:child_process';
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { modelsDir, ragDir, snapshotPath, storeConfigPath, storeDir } from '../../src/storage/paths.js';
import { findStore } from '../../src/store/engine.js';
import { createFakeOpenAI } from '../helpers/fake-openai.js';
import { stopQueryService } from '../helpers/query-service.js';
import { homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';
import { BIN, type CliResult } from '../service/helpers.js';

// Everything kortty-rag creates under $KORTTY_HOME is the owner's alone (directories 0700, files
// 0600) whatever the umask: the real CLI runs in a child under umask 022 and 000 through a
// create/add/update/search/ask/status cycle (the query service it starts included), and every
// path is checked with lstat. Data an older version left open is tightened when opened, and
// `status` warns about it before.

/** The CLI in a child whose umask is `umask` (set by the shell that execs node). */
function cliWithUmask(umask: string, env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      '/bin/sh',
      ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, BIN, ...args],
      { env, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
    child.stdin!.end(stdin);
  });
}

/** Every path below `root` (links not followed) with its permission bits. */
async function walk(root: string): Promise<{ path: string; mode: number; dir: boolean }[]> {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  const visit = async (p: string) => {
    const st = await lstat(p);
    if (st.isSymbolicLink()) return;
    out.push({ path: p, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const n of await readdir(p)) await visit(join(p, n));
  };
  await visit(root);
  return out;
}

/** A home whose pre-placed starter model is already owner-only (so nothing is tightened for us). */
async function privateHome(): Promise<string> {
  const home = await homeWithStarter();
  for (const e of await walk(ragDir(home))) await chmod(e.path, e.dir ? 0o700 : 0o600);
  return home;
}

for (const umask of ['022', '000']) {
  test.serial(`umask ${umask}: every file and directory of a full cycle is owner-only`, async (t) => {
    const home = await privateHome();
    const docs = await tempDir('kortty-priv-docs-');
    await writeTree(docs, { 'kiwi.md': `# Kiwi\n\n${prose('kiwi orchard irrigation', 10, 3)}` });
    const chat = await createFakeOpenAI();
    const env = { ...process.env, KORTTY_HOME: home };
    const run = async (args: string[], stdin?: string) => {
      const r = await cliWithUmask(umask, env, args, stdin);
      t.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return r;
    };
    try {
      await run(['store', 'create', 'Notes', '--model', 'kortty-lexical-starter', '--role', 'text']);
      await run(['source', 'add', '--yes', 'Notes', docs]);
      await writeTree(docs, { 'tar.md': `# tar\n\n${prose('tar archive listing', 10, 5)}` });
      await run(['source', 'update', '--yes', 'Notes']);
      await run(['search', 'kiwi']);
      await run(['search', '--no-service', 'kiwi']);
      await run(['profile', 'add', 'writer', '--base-url', chat.url, '--model', 'm', '--role', 'text']);
      await run(['ask', 'what about the kiwi orchard?']);
      await run(['status']);
      await run(['store', 'list']);
    } finally {
      await stopQueryService(home);
      await chat.close();
    }
    const entries = await walk(home);
    // The cycle wrote what it should have: a store, a snapshot, a run record, the status cache.
    const names = entries.map((e) => e.path);
    const id = (await findStore('Notes', home)).id;
    for (const p of [storeConfigPath(id, home), snapshotPath(id, home), join(ragDir(home), 'status.json')])
      t.true(names.includes(p), p);
    t.true(
      names.some((p) => p.startsWith(join(ragDir(home), 'runs', ''))),
      'a run record',
    );
    const open = entries.filter((e) => (e.mode & 0o077) !== 0).map((e) => `${e.mode.toString(8)} ${e.path}`);
    t.deepEqual(open, [], 'nothing readable, writable or traversable by others');
    t.true(entries.filter((e) => e.dir).every((e) => e.mode === 0o700));
    t.true(
      entries
        .filter((e) => !e.dir && !e.path.endsWith('.sock'))
        .every((e) => e.mode === 0o600 || e.mode === 0o700),
    );
  });
}

test.serial('a store an older version left open is tightened when opened; status warns first', async (t) => {
  const home = await privateHome();
  const docs = await tempDir('kortty-priv-old-');
  await writeTree(docs, { 'kiwi.md': `# Kiwi\n\n${prose('kiwi orchard irrigation', 10, 3)}` });
  const env = { ...process.env, KORTTY_HOME: home };
  t.is(
    (await cliWithUmask('022', env, ['store', 'create', 'Old', '--model', 'kortty-lexical-starter'])).code,
    0,
  );
  t.is((await cliWithUmask('022', env, ['source', 'add', '--yes', 'Old', docs])).code, 0);
  // What v0.2 left under umask 022.
  const id = (await findStore('Old', home)).id;
  for (const e of await walk(ragDir(home))) await chmod(e.path, e.dir ? 0o755 : 0o644);

  const status = await cliWithUmask('022', env, ['status']);
  t.is(status.code, 0, status.stderr);
  t.regex(status.stderr, new RegExp(`warning: ${ragDir(home)} has mode 0755: other users can read`));

  const list = await cliWithUmask('022', env, ['store', 'list']);
  t.is(list.code, 0, list.stderr);
  for (const p of [
    ragDir(home),
    storeDir(id, home),
    storeConfigPath(id, home),
    snapshotPath(id, home),
    modelsDir(home),
  ]) {
    const mode = (await lstat(p)).mode & 0o777;
    t.is(mode & 0o077, 0, `${p} is ${mode.toString(8)}`);
  }
  const again = await cliWithUmask('022', env, ['status']);
  t.notRegex(again.stderr, /other users can read/);
});
