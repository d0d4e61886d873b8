import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ragDir, statusPath } from '../../src/storage/paths.js';
import { findStore } from '../../src/store/engine.js';
import { homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';
import { BIN, type CliResult, cli } from '../service/helpers.js';

// Failures of the data directory itself: a status cache that cannot be written never turns a
// committed command into a failure and leaves no temp file; a home the user cannot write is
// named as such, with what to do, instead of a bare errno from whichever mkdir came first.

test('a status cache that cannot be written: the command still succeeds, warns, leaves no temp', async (t) => {
  const home = await homeWithStarter();
  // A directory where status.json should be: every rename of the cache onto it fails.
  await mkdir(statusPath(home), { recursive: true });
  const docs = await tempDir('kortty-cache-docs-');
  await writeTree(docs, { 'kiwi.md': `# Kiwi\n\n${prose('kiwi orchard irrigation', 6, 3)}` });
  const env = { ...process.env, KORTTY_HOME: home };

  const created = await cli(env, ['store', 'create', 'Notes', '--model', 'kortty-lexical-starter']);
  t.is(created.code, 0, created.stderr);
  t.regex(created.stderr, /warning: the status cache was not updated \(EISDIR/);
  const added = await cli(env, ['source', 'add', '--yes', 'Notes', docs]);
  t.is(added.code, 0, added.stderr);
  t.regex(added.stderr, /warning: the status cache was not updated/);
  t.is((await findStore('Notes', home)).sources[0]?.status, 'READY');
  const temps = (await readdir(ragDir(home))).filter(
    (n) => /^status\.json\..*\.tmp$/.test(n) || n.startsWith('.tmp-'),
  );
  t.deepEqual(temps, []);
});

/** The CLI as a user who cannot write `home` (as root: the unprivileged `nobody`). */
function cliAsOther(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    ).stdin!.end();
  });
}

test('a read-only home is reported as such, naming the directory and the way out', async (t) => {
  const root = await tempDir('kortty-ro-');
  await chmod(root, 0o755);
  const home = join(root, 'home');
  await mkdir(home, { mode: 0o555 });
  await chmod(home, 0o555);
  const env = { ...process.env, KORTTY_HOME: home, HOME: root };
  for (const args of [
    ['store', 'create', 'Notes', '--model', 'kortty-lexical-starter'],
    ['profile', 'add', 'w', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
  ]) {
    const r = await cliAsOther(env, args);
    t.is(r.code, 1, r.stderr);
    t.regex(
      r.stderr,
      new RegExp(
        `^kortty-rag [a-z ]+: the data directory ${home} is not writable \\(${home} is read-only to this user: EACCES on mkdir .*\\); make it writable or set KORTTY_HOME to a writable directory\\n$`,
      ),
      args.join(' '),
    );
  }
  // A KORTTY_HOME that does not exist yet, below the read-only folder: the same message.
  const deeper = join(home, 'a', 'b');
  const r = await cliAsOther({ ...env, KORTTY_HOME: deeper }, ['store', 'create', 'Notes']);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, new RegExp(`the data directory ${deeper} is not writable \\(${home} is read-only`));
});
