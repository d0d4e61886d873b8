import { link, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { main } from '../../src/cli/main.js';
import { findStore } from '../../src/store/engine.js';
import { captureIO } from '../cli/capture.js';
import { homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';

// A hard link inside a source to a file outside it would index and serve a file the user never
// added; only the link count can be seen, not where the other names are. So a regular file with
// more than one name is skipped (by design, with its reason) unless the source opts in.

async function run(home: string, argv: string[]) {
  const c = captureIO({ env: { ...process.env, KORTTY_HOME: home } });
  const code = await main(argv, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

async function world() {
  const home = await homeWithStarter();
  const outside = await tempDir('kortty-outside-');
  const secret = join(outside, 'secret.md');
  await writeFile(secret, `# Payroll\n\nzanzibar payroll ledger ${prose('zanzibar payroll ledger', 6, 9)}`);
  const src = await tempDir('kortty-links-');
  await writeTree(src, { 'kiwi.md': `# Kiwi\n\n${prose('kiwi orchard irrigation', 6, 3)}` });
  await link(secret, join(src, 'notes.md'));
  return { home, src };
}

test.serial(
  'a hard link to a file outside the source is skipped with its reason, never served',
  async (t) => {
    const { home, src } = await world();
    t.is((await run(home, ['store', 'create', 'Docs', '--model', 'kortty-lexical-starter'])).code, 0);
    const add = await run(home, ['source', 'add', '--yes', 'Docs', src]);
    t.is(add.code, 0, add.err);
    const cfg = await findStore('Docs', home);
    t.is(cfg.sources[0]?.files, 1, 'only kiwi.md is indexed');
    t.regex(add.err, /skipped: hard-link 1/);
    t.regex(add.err, /a hard link \(2 names; the others may lie outside this source\); not read/);
    const hits = await run(home, ['search', '--no-service', '--json', 'zanzibar', 'payroll']);
    t.is(hits.code, 0, hits.err);
    // What is served (the block and its excerpts); the JSON also echoes the query itself.
    const { block, excerpts } = JSON.parse(hits.out) as { block: string; excerpts: unknown[] };
    t.notRegex(JSON.stringify({ block, excerpts }), /zanzibar|notes\.md/);
  },
);

test.serial('--hard-links: the user opts in and the file is indexed', async (t) => {
  const { home, src } = await world();
  t.is((await run(home, ['store', 'create', 'Docs', '--model', 'kortty-lexical-starter'])).code, 0);
  const add = await run(home, ['source', 'add', '--yes', '--hard-links', 'Docs', src]);
  t.is(add.code, 0, add.err);
  const cfg = await findStore('Docs', home);
  t.is(cfg.sources[0]?.files, 2);
  t.true(cfg.sources[0]?.options.hardLinks);
  const hits = await run(home, ['search', '--no-service', '--json', 'zanzibar', 'payroll']);
  t.regex(hits.out, /notes\.md/);
});
