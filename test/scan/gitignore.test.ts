import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { scanSource } from '../../src/scan/scan-source.js';
import { acceptedPaths, put, row, tempTree, useTempHome } from './tree.js';

// The .gitignore handling must agree with git itself: the accepted files of a scan are compared
// with `git ls-files --cached --others --exclude-standard` on the same tree. Trees contain only
// files that pass every other rule (allowlisted suffixes, UTF-8 text, no hidden names besides the
// ignore files, no excluded directories), so any difference comes from ignore handling.

const home = useTempHome();

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    // No user or system configuration (core.excludesFile, core.ignoreCase…) may leak in.
    env: {
      PATH: process.env.PATH,
      HOME: home.dir,
      XDG_CONFIG_HOME: home.dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  });
}

function gitListed(cwd: string): string[] {
  return git(cwd, 'ls-files', '--cached', '--others', '--exclude-standard', '-z')
    .split('\0')
    .filter((p) => p !== '' && !p.split('/').some((part) => part.startsWith('.')))
    .sort();
}

const FILES = [
  'README.md',
  'notes.txt',
  'debug.log',
  'keep.log',
  'root-only.txt',
  '#hash.md',
  'file1.txt',
  'fileA.txt',
  'docs/guide.md',
  'docs/root-only.txt',
  'docs/draft.md',
  'docs/api/index.md',
  'docs/api/draft.md',
  'docs/tmp/scratch.txt',
  'logs/today.log',
  'logs/keep.log',
  'src/main.py',
  'src/gen/out.py',
  'src/gen/keep.py',
  'src/tmp/a.txt',
  'src/deep/tmp/b.txt',
  'src/deep/x/y/z.md',
  'src/anchored.md',
  'src/sub/anchored.md',
  'cache/data.json',
  'cache/important.json',
  'a/b/c/d.md',
  'a/x.md',
  'trailing.md',
];

const IGNORES: Record<string, string> = {
  '.gitignore': [
    '# comment line',
    '*.log',
    '!keep.log',
    '/root-only.txt',
    '\\#hash.md',
    'file[0-9].txt',
    'logs/',
    '!logs/keep.log', // cannot re-include: the parent directory is excluded
    '**/tmp/*.txt',
    'a/**/d.md',
    'cache/*',
    '!cache/important.json',
    'trailing.md   ',
  ].join('\n'),
  'docs/.gitignore': ['draft.md', '!api/draft.md', '/tmp/'].join('\n'),
  'src/.gitignore': ['gen/*', '!gen/keep.py', '/anchored.md', 'deep/**/z.md'].join('\n'),
  'src/deep/.gitignore': ['!tmp/b.txt'].join('\n'),
};

async function buildRepo(
  t: Parameters<typeof tempTree>[0],
  files: string[],
  ignores: Record<string, string>,
  exclude = '',
) {
  const root = await tempTree(t);
  for (const f of files) put(root, f, `content of ${f}\n`);
  for (const [f, text] of Object.entries(ignores)) put(root, f, `${text}\n`);
  git(root, 'init', '-q');
  if (exclude) fs.writeFileSync(join(root, '.git/info/exclude'), `${exclude}\n`);
  return root;
}

test('accepted files equal git ls-files --exclude-standard on a tree with nested .gitignore files', async (t) => {
  const root = await buildRepo(t, FILES, IGNORES, 'notes.txt');
  const expected = gitListed(root);
  const review = await scanSource({ root, kind: 'folder' });
  t.deepEqual(acceptedPaths(review).sort(), expected);
  // The comparison is not vacuous: git ignores a good share of the tree, for several reasons.
  t.true(expected.length < FILES.length - 10);
  t.is(row(review, 'logs/').reason, 'gitignored');
  t.is(row(review, 'logs/').explanation, `ignored by ${join(root, '.gitignore')} (pattern "logs/")`);
  t.is(
    row(review, 'notes.txt').explanation,
    `ignored by ${join(root, '.git/info/exclude')} (pattern "notes.txt")`,
  );
  t.is(row(review, '.git/').reason, 'excluded-dir');
  const all = await scanSource({ root, kind: 'folder', options: { gitignore: false } });
  t.deepEqual(acceptedPaths(all).sort(), [...FILES].sort());
});

test('a source root inside a repository applies the ignore files above it, as git does', async (t) => {
  const root = await buildRepo(t, FILES, IGNORES);
  const sub = join(root, 'src');
  const expected = gitListed(sub); // git prints paths relative to the cwd
  const review = await scanSource({ root: sub, kind: 'folder' });
  t.deepEqual(acceptedPaths(review).sort(), expected);
  t.is(
    row(review, 'tmp/a.txt').explanation,
    `ignored by ${join(root, '.gitignore')} (pattern "**/tmp/*.txt")`,
  );
  t.true(acceptedPaths(review).includes('deep/tmp/b.txt'));
});

test('random nested ignore rules agree with git', async (t) => {
  const names = ['a.md', 'b.txt', 'c.py', 'keep.md', 'x.log'];
  const dirs = ['', 'd1/', 'd1/d2/', 'd3/', 'd3/d1/'];
  const pool = [
    '*.md',
    '!keep.md',
    '*.txt',
    'd1/',
    'd2',
    '/a.md',
    'd1/*.py',
    '**/d2/*',
    '!**/keep.md',
    'd3/**',
    '!d3/d1/',
    '*',
    '!*/',
    '!*.py',
    'd*/',
    '/d3',
    '**/x.log',
    '!x.log',
    'b.*',
    '[ab].*',
    '?.py',
  ];
  const files = dirs.flatMap((d) => names.map((n) => d + n));
  const rules = fc.array(fc.constantFrom(...pool), { maxLength: 4 });
  const samples = fc.sample(fc.tuple(rules, rules, rules, rules), { numRuns: 16, seed: 20241 });
  const sizes = new Set<number>();
  for (const [i, [top, d1, d3, d1d2]] of samples.entries()) {
    const ignores = {
      '.gitignore': top.join('\n'),
      'd1/.gitignore': d1.join('\n'),
      'd3/.gitignore': d3.join('\n'),
      'd1/d2/.gitignore': d1d2.join('\n'),
    };
    const root = await buildRepo(t, files, ignores);
    const review = await scanSource({ root, kind: 'folder' });
    const expected = gitListed(root);
    sizes.add(expected.length);
    t.deepEqual(acceptedPaths(review).sort(), expected, `sample ${i}: ${JSON.stringify(ignores)}`);
  }
  t.true(sizes.size >= 6, `the samples ignore varied amounts (${[...sizes].join(', ')})`);
});
