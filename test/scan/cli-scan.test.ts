import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Review } from '../../src/types.js';
import { put, snapshotTree, tempTree, useTempHome } from './tree.js';

const home = useTempHome();

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));

function capture(cwd: string) {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (c) => {
    chunks.out += c;
  });
  err.on('data', (c) => {
    chunks.err += c;
  });
  const io: CliIO = { stdout: out, stderr: err, stdin: new PassThrough(), env: process.env, cwd };
  return { io, chunks };
}

async function sampleTree(t: Parameters<typeof tempTree>[0]) {
  const root = await tempTree(t);
  put(root, 'docs/guide.md', '# Guide\n');
  put(root, 'docs/notes.txt', 'notes\n');
  put(root, 'src/app.py', 'print("hi")\n');
  put(root, 'data.xlsx', 'PK');
  put(root, 'node_modules/x/index.js', 'x');
  put(root, 'latin1.txt', Buffer.from('caf\xe9', 'latin1'));
  put(root, 'app.log', 'log\n');
  put(root, '.gitignore', '*.log\n');
  return root;
}

test('scan --json prints the review and writes nothing', async (t) => {
  const root = await sampleTree(t);
  const before = snapshotTree(root);
  const { io, chunks } = capture(root);
  const code = await main(['scan', '.', '--json'], io);
  t.is(code, 0, chunks.err);
  const review = JSON.parse(chunks.out) as Review;
  t.is(review.root, root);
  t.deepEqual(
    review.rows.filter((r) => r.status === 'new').map((r) => r.relPath),
    ['docs/guide.md', 'docs/notes.txt', 'src/app.py'],
  );
  t.is(review.summary.skipped.gitignored, 1);
  t.deepEqual(snapshotTree(root), before);
  t.deepEqual(fs.readdirSync(home.dir), [], 'a dry run creates nothing under KORTTY_HOME');
});

test('scan prints a table with one line per row and a summary; options are honoured', async (t) => {
  const root = await sampleTree(t);
  put(root, 'bad\nname.md');
  const { io, chunks } = capture(root);
  const code = await main(
    ['scan', root, '--include', 'docs/**', '--exclude', '*.txt', '--no-gitignore', '--max-file-size', '2'],
    io,
  );
  t.is(code, 0, chunks.err);
  const lines = chunks.out.trimEnd().split('\n');
  t.is(lines[0], `== ${root} (folder)`);
  t.regex(lines[1]!, /^STATUS\s+SIZE\s+FORMAT\s+PATH\s+NOTE$/);
  const body = lines.slice(
    2,
    lines.findIndex((l) => l.startsWith('visited ')),
  );
  t.is(body.length, 9); // one line per row: the newline in a name cannot split a row
  t.regex(chunks.out, /\nnew\s+8 B\s+markdown\s+docs\/guide\.md\n/);
  t.regex(chunks.out, /skipped\s+6 B\s+text\s+docs\/notes\.txt\s+excluded-by-glob: /);
  t.regex(chunks.out, /skipped\s+4 B\s+log\s+app\.log\s+not-included: /); // --no-gitignore: not gitignored
  t.regex(chunks.out, /bad\\nname\.md\s+bad-name: name contains a line break/);
  t.regex(chunks.out, /data\.xlsx\s+unsupported-format: Office document \(\.xlsx\) is not indexed in v1/);
  t.regex(
    chunks.out,
    /visited 9 · to index: 1 new, 0 changed · unchanged 0 · removed 0 · skipped 8 · accepted 8 B\n/,
  );
  t.regex(chunks.out, /accepted formats: Markup: markdown 1 \(8 B\)\n/);
});

test('scan of several paths prints one review each; bad arguments are refused with codes', async (t) => {
  const root = await sampleTree(t);
  const a = capture(root);
  t.is(await main(['scan', 'docs', 'src/app.py', '--json'], a.io), 0);
  const reviews = JSON.parse(a.chunks.out) as Review[];
  t.deepEqual(
    reviews.map((r) => [r.root, r.rows.length]),
    [
      [join(root, 'docs'), 2],
      [join(root, 'src/app.py'), 1],
    ],
  );
  const b = capture(root);
  // Past its declared range: a usage error naming the option and the range, before any scan.
  t.is(await main(['scan', root, '--max-file-size', '2048'], b.io), 2);
  t.regex(b.chunks.err, /--max-file-size "2048": must be a number from 1 to 1024 \(MiB\)/);
  const c = capture(root);
  t.is(await main(['scan', 'missing'], c.io), 1);
  t.regex(c.chunks.err, /missing: source root does not exist/);
  const d = capture(root);
  t.is(await main(['scan', '--bogus', root], d.io), 2);
  const e = capture(root);
  t.is(await main(['scan'], e.io), 2);
  t.regex(e.chunks.err, /^kortty-rag scan: missing PATH\n/);
});

test('a FIFO in a folder never blocks the scan (real process with a deadline)', async (t) => {
  const root = await tempTree(t);
  put(root, 'a.md');
  execFileSync('mkfifo', [join(root, 'b.md')]);
  execFileSync('mkfifo', [join(root, 'c.txt')]);
  // Nothing ever writes to the FIFOs: opening one for reading without O_NONBLOCK would hang.
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'scan', root, '--json'], {
    timeout: 30_000,
    env: { ...process.env, KORTTY_HOME: home.dir },
  });
  const review = JSON.parse(stdout) as Review;
  t.deepEqual(
    review.rows.map((r) => [r.relPath, r.reason ?? r.status]),
    [
      ['a.md', 'new'],
      ['b.md', 'special-file'],
      ['c.txt', 'special-file'],
    ],
  );
});
