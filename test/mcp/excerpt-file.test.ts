import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { nameRefusal, readExcerptFile } from '../../src/mcp/excerpt-file.js';

// The MCP reader against a hostile folder that swaps a directory and a file for symbolic links to
// outside content in a tight loop, from another process, while it reads.

const MiB = 1024 * 1024;

function hostileFolder() {
  const base = mkdtempSync(join(tmpdir(), 'kortty-excerpt-file-'));
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
  const seen = { reads: 0, ok: 0, refused: 0 };
  const leaked: string[] = [];
  const reasons = new Set<string>();
  try {
    // At least 20,000 reads (with the descriptor walk replaced by plain path opens, outside content
    // got through within that many every time), and until both outcomes were seen: the swapper
    // really raced the reads. The deadline only bounds a starved swapper; no rate is asserted.
    const deadline = Date.now() + 300_000;
    while ((seen.reads < 20000 || seen.ok === 0 || seen.refused === 0) && Date.now() < deadline) {
      for (const [names, inside] of [
        [['dir', 'doc.md'], 'inside\n'],
        [['file.md'], 'inside file\n'],
      ] as const) {
        const r = readExcerptFile(root, names, MiB);
        seen.reads++;
        if (r.ok) {
          if (r.text === inside) seen.ok++;
          else leaked.push(`${names.join('/')}: ${JSON.stringify(r.text)}`);
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
  t.deepEqual(leaked.slice(0, 5), [], `${leaked.length} reads returned content other than the file's own`);
  t.true(seen.ok > 0 && seen.refused > 0, JSON.stringify(seen));
  t.true(
    [...reasons].some((r) => /symbolic link|not a folder|does not exist|no such file/.test(r)),
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
  t.like(readExcerptFile(file, [], MiB), { ok: true, text: 'inside file\n' });
  const reason = (r: ReturnType<typeof readExcerptFile>) => (r.ok ? 'read' : r.reason);
  t.regex(reason(readExcerptFile(join(root, 'filelink'), [], MiB)), /symbolic link/);
  t.regex(
    reason(readExcerptFile(join(root, 'dir', 'doc.md'), [], 3)),
    /over the source's per-file limit of 3/,
  );
  t.is(reason(readExcerptFile(join(outside, 'nothere.md'), [], MiB)), 'no such file');
  execFileSync('mkfifo', [join(root, 'pipe.md')]);
  t.is(reason(readExcerptFile(join(root, 'pipe.md'), [], MiB)), 'not a regular file');
});
