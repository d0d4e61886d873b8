import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { nameRefusal, readInsideRoot } from '../../src/mcp/safe-open.js';

// The MCP reader against a hostile folder that swaps a directory and a file for symbolic links to
// outside content in a tight loop, from another process, while it reads.

const MiB = 1024 * 1024;

function hostileFolder() {
  const base = mkdtempSync(join(tmpdir(), 'kortty-safe-open-'));
  const root = join(base, 'source');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'dir'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'dir', 'doc.md'), 'inside\n');
  writeFileSync(join(root, 'file.md'), 'inside file\n');
  writeFileSync(join(outside, 'doc.md'), 'OUTSIDE\n');
  symlinkSync(outside, join(root, 'dirlink'));
  symlinkSync(join(outside, 'doc.md'), join(root, 'filelink'));
  return { root, outside };
}

// Swaps dir <-> dirlink and file.md <-> filelink with renames (each step atomic) until killed.
const SWAPPER = `
const fs = require('node:fs');
const r = process.argv[1];
const swap = (a, b) => { fs.renameSync(r + '/' + a, r + '/.t'); fs.renameSync(r + '/' + b, r + '/' + a); fs.renameSync(r + '/.t', r + '/' + b); };
for (;;) { swap('dir', 'dirlink'); swap('file.md', 'filelink'); }
`;

test('a directory or file swapped for a link during reads never lets outside content through', async (t) => {
  const { root } = hostileFolder();
  const child = spawn(process.execPath, ['-e', SWAPPER, root], { stdio: 'ignore' });
  const seen = { ok: 0, refused: 0 };
  const reasons = new Set<string>();
  try {
    const deadline = Date.now() + 120_000;
    // Until both outcomes were seen many times. Measured here: with the /proc check removed, outside
    // content got through within these 20,000 reads every time.
    while ((seen.ok < 20000 || seen.refused < 2000) && Date.now() < deadline) {
      for (const [names, inside] of [
        [['dir', 'doc.md'], 'inside\n'],
        [['file.md'], 'inside file\n'],
      ] as const) {
        const r = readInsideRoot(root, names, MiB);
        if (r.ok) {
          t.is(r.text, inside);
          seen.ok++;
        } else {
          reasons.add(r.reason);
          seen.refused++;
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    child.kill('SIGKILL');
  }
  t.true(seen.ok >= 20000 && seen.refused >= 2000, JSON.stringify(seen));
  t.true(
    [...reasons].some((r) => /symbolic link|outside its source|changed while/.test(r)),
    [...reasons].join('; '),
  );
});

test('names: no empty, dot, dot-dot, hidden or excluded parts; text formats only', (t) => {
  t.is(nameRefusal(['notes', 'a.md']), null);
  t.regex(nameRefusal(['..', 'a.md'])!, /"\.\."/);
  t.regex(nameRefusal(['a', '', 'b.md'])!, /empty/);
  t.regex(nameRefusal(['.', 'b.md'])!, /"\."/);
  t.regex(nameRefusal(['.git', 'config.md'])!, /hidden/);
  t.regex(nameRefusal(['node_modules', 'x.md'])!, /excluded directory/);
  t.is(nameRefusal(['build.md']), null, 'an excluded directory name is fine as a file name');
  t.regex(nameRefusal(['a.png'])!, /not a supported text format/);
  t.regex(nameRefusal(['a.pdf'])!, /by marker/);
  t.regex(nameRefusal(['a.docx'])!, /by marker/);
});

test('a file source is read as its own root; a link or a FIFO in its place is refused', (t) => {
  const { root, outside } = hostileFolder();
  const file = join(root, 'file.md');
  t.like(readInsideRoot(file, [], MiB), { ok: true, text: 'inside file\n' });
  const reason = (r: ReturnType<typeof readInsideRoot>) => (r.ok ? 'read' : r.reason);
  t.regex(reason(readInsideRoot(join(root, 'filelink'), [], MiB)), /symbolic link/);
  t.regex(
    reason(readInsideRoot(join(root, 'dir', 'doc.md'), [], 3)),
    /over the source's per-file limit of 3/,
  );
  t.is(reason(readInsideRoot(join(outside, 'nothere.md'), [], MiB)), 'no such file');
  execFileSync('mkfifo', [join(root, 'pipe.md')]);
  t.is(reason(readInsideRoot(join(root, 'pipe.md'), [], MiB)), 'not a regular file');
});
