import test from 'ava';
import { LINE_CASES, PAGES, RUN_CASES } from '../../bench/selection-cases.js';
import { BASELINE, misses, renderSetReport } from '../../bench/selection-report.js';
import {
  assembleProxy,
  assembleSelection,
  descriptionQuestion,
  frameSelection,
  judgementOf,
  PROMPT,
  pageNames,
  SCROLLBACK_LINES,
  scrub,
  shellQuote,
} from '../../bench/selection-set.js';
import { buildTextbookIndex, rankTextbook, textbookTokens } from '../../bench/textbook-bm25.js';

// The pure parts of the selection evaluation set (bench/selection-set.ts) and the textbook BM25
// baseline (bench/textbook-bm25.ts), on small inputs.

test('the case lists are consistent: unique ids, every judged page in the corpus list', (t) => {
  const ids = [...RUN_CASES, ...LINE_CASES].map((c) => c.id);
  t.is(new Set(ids).size, ids.length);
  const pages = new Set(PAGES);
  for (const c of [...RUN_CASES, ...LINE_CASES]) t.true(pages.has(c.page), c.id);
  t.deepEqual([...PAGES], [...PAGES].sort(), 'the corpus list is sorted');
  t.true(RUN_CASES.length + LINE_CASES.length >= 80);
});

test('shellQuote quotes only the words a shell would split or expand', (t) => {
  t.is(
    shellQuote(['tar', '-xzf', 'a b.tar', "it's", '{print $1}', 'host:/dst/']),
    `tar -xzf 'a b.tar' 'it'\\''s' '{print $1}' host:/dst/`,
  );
});

test('scrub removes the temp root and the real home, drops blank edges, fixes clocks, elapsed times and thread ids', (t) => {
  const raw = [
    '',
    '--2026-12-04 05:22:29--  http://127.0.0.1:1/x',
    "/root/.pyenv/bin/python3: can't open file '/tmp/kortty-eval-sel-AbC/project/home/user/proj/manage.py': [Errno 2]",
    "curl: (7) Failed to connect to 127.0.0.1 port 1 after 3 ms: Couldn't connect to server",
    '40F7A1BB787F0000:error:80000002:system library:file_open:No such file or directory',
    '',
  ].join('\r\n');
  t.is(
    scrub(raw, '/tmp/kortty-eval-sel-AbC/project', '/root'),
    [
      '--2026-03-14 09:27:05--  http://127.0.0.1:1/x',
      "/home/user/.pyenv/bin/python3: can't open file '/home/user/proj/manage.py': [Errno 2]",
      "curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
      '40D7E1BB787F0000:error:80000002:system library:file_open:No such file or directory',
    ].join('\n'),
  );
});

test('frames: output, prompt, coloured prompt, CI log and scrollback', (t) => {
  const out =
    'tar: x.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now';
  t.is(frameSelection('output', 'tar -xf x.tar', out), out);
  t.is(frameSelection('prompt', 'tar -xf x.tar', out), `${PROMPT}tar -xf x.tar\n${out}`);
  const colored = frameSelection('color-prompt', 'tar -xf x.tar', out);
  t.true(colored.startsWith('\x1b[01;32muser@devbox\x1b[00m:'));
  t.true(colored.endsWith(`$ tar -xf x.tar\n${out}`));
  t.is(
    frameSelection('ci-log', 'tar -xf x.tar', out),
    [
      '2026-03-14T09:27:05.210Z + tar -xf x.tar',
      '2026-03-14T09:27:05.347Z tar: x.tar: Cannot open: No such file or directory',
      '2026-03-14T09:27:05.484Z tar: Error is not recoverable: exiting now',
    ].join('\n'),
  );
  const filler = Array.from({ length: 500 }, (_, i) => `-rw-r--r-- 1 user user 0 Mar 14 09:26 f${i}.ts`).join(
    '\n',
  );
  const screen = frameSelection('scrollback', 'tar -xf x.tar', out, filler).split('\n');
  t.is(screen.length, SCROLLBACK_LINES);
  t.is(screen[0], '-rw-r--r-- 1 user user 0 Mar 14 09:26 f0.ts');
  t.deepEqual(screen.slice(-3), [`${PROMPT}tar -xf x.tar`, ...out.split('\n')]);
});

test('assembleSelection: sorted by id, lines after runs, missing pages and programs noted', (t) => {
  const runs = [
    { id: 'z-run', page: 'tar', argv: ['tar', '-xf', 'a.tar'], frame: 'prompt' as const },
    { id: 'a-run', page: 'gzip', argv: ['gzip', '-d', 'x.gz'], frame: 'output' as const },
    { id: 'b-run', page: 'gcc', argv: ['gcc', 'x.c'], frame: 'output' as const },
    { id: 'c-run', page: 'tar', argv: ['tar', '-tf', 'b.tar'], frame: 'output' as const },
    {
      id: 'd-run',
      page: 'tar',
      argv: ['tar', '-tf', 'c.tar'],
      shown: 'tar -tf *.tar',
      frame: 'prompt' as const,
    },
    { id: 'e-run', page: 'rsync', argv: ['rsync', 'a', 'b'], frame: 'output' as const },
  ];
  const lines = [
    { id: 'line-b', page: 'tar', line: 'tar -czf b.tgz dir' },
    { id: 'line-a', page: 'gcc', line: 'gcc -O2 x.c' },
  ];
  const outputs = new Map([
    ['z-run', 'tar: a.tar: Cannot open'],
    ['a-run', 'gzip: x.gz: not in gzip format'],
    ['b-run', 'gcc: fatal error'],
    ['c-run', ''],
    ['d-run', 'tar: This does not look like a tar archive'],
  ]);
  const { queries, notes } = assembleSelection(runs, lines, new Set(['tar', 'gzip', 'rsync']), {
    outputs,
    filler: '',
  });
  t.deepEqual(
    queries.map((q) => [q.id, q.kind, q.page, q.text]),
    [
      ['a-run', 'output', 'gzip', 'gzip: x.gz: not in gzip format'],
      ['d-run', 'prompt', 'tar', `${PROMPT}tar -tf *.tar\ntar: This does not look like a tar archive`],
      ['z-run', 'prompt', 'tar', `${PROMPT}tar -xf a.tar\ntar: a.tar: Cannot open`],
      ['line-b', 'line', 'tar', 'tar -czf b.tgz dir'],
    ],
  );
  t.deepEqual(notes, [
    'b-run: skipped, no man page for gcc',
    'c-run: skipped, tar printed nothing',
    'e-run: skipped, rsync is not installed',
    'line-a: skipped, no man page for gcc',
  ]);
  t.deepEqual([...judgementOf(queries[1]!)], [['tar', 1]]);
});

test('a subcommand page is judged as right as the program’s, where the corpus has it', (t) => {
  const runs = [
    { id: 'log', page: 'git', also: ['git-log'], argv: ['git', 'log'], frame: 'prompt' as const },
    { id: 'push', page: 'git', also: ['git-push'], argv: ['git', 'push'], frame: 'prompt' as const },
  ];
  const lines = [{ id: 'line-log', page: 'git', also: ['git-log'], line: 'git log --all' }];
  const outputs = new Map([
    ['log', 'fatal: not a git repository'],
    ['push', 'fatal: not a git repository'],
  ]);
  const { queries } = assembleSelection(
    runs,
    lines,
    new Set(['git']),
    { outputs, filler: '' },
    new Set(['git', 'git-log']),
  );
  t.deepEqual(
    queries.map((q) => [q.id, [...judgementOf(q)]]),
    [
      [
        'log',
        [
          ['git', 1],
          ['git-log', 1],
        ],
      ],
      // git-push is not in the corpus: no ranking could find it, so it is not judged.
      ['push', [['git', 1]]],
      [
        'line-log',
        [
          ['git', 1],
          ['git-log', 1],
        ],
      ],
    ],
  );
});

const MAWK = [
  'MAWK(1)                    USER COMMANDS                    MAWK(1)',
  '',
  'NAME',
  '       mawk - pattern scanning and text processing language',
  '',
  'DESCRIPTION',
  '       mawk is an interpreter for the AWK Programming Language.  The AWK',
  '       language is useful for manipulation of data files.',
  '',
  '       Second paragraph.',
  '',
  'OPTIONS',
  '       -W version',
].join('\n');

test('the question proxy: the first DESCRIPTION sentence with every name of the program masked', (t) => {
  t.deepEqual(pageNames('awk', MAWK), ['awk', 'mawk']);
  t.is(
    descriptionQuestion('awk', MAWK),
    'the program is an interpreter for the the program Programming Language.',
  );
  // Too short a first sentence takes the next one too; hyphenated words are not names.
  const ls =
    'NAME\n       ls - list\n\nDESCRIPTION\n       List ls files.  Sort entries of ls-like tools by name.\n';
  t.is(descriptionQuestion('ls', ls), 'List the program files. Sort entries of ls-like tools by name.');
  t.is(descriptionQuestion('x', 'NAME\n       x - y\n'), undefined, 'no DESCRIPTION');
  const { queries, notes } = assembleProxy([
    { name: 'zz', text: 'NAME\nzz - nothing\n' },
    { name: 'awk', text: MAWK },
  ]);
  t.deepEqual(
    queries.map((q) => [q.id, q.set, q.page]),
    [['proxy-awk', 'proxy', 'awk']],
  );
  t.deepEqual(notes, ['proxy zz: skipped, no usable DESCRIPTION sentence']);
  // A sentence several pages open with judges none of them: each question starts after it.
  const gnu = (name: string, what: string) =>
    `NAME\n       ${name} - x\n\nDESCRIPTION\n       This manual page documents the GNU version of ${name}.  ${name} ${what}.\n`;
  const boiler = assembleProxy([
    { name: 'find', text: gnu('find', 'searches the directory tree rooted at each starting point') },
    { name: 'rm', text: gnu('rm', 'removes each specified file, but not directories by default') },
  ]);
  t.deepEqual(
    boiler.queries.map((q) => q.text),
    [
      'the program searches the directory tree rooted at each starting point.',
      'the program removes each specified file, but not directories by default.',
    ],
  );
  // Alone, the page keeps its first sentence (it is the page's own, as far as the set knows).
  t.is(
    descriptionQuestion('rm', gnu('rm', 'removes files')),
    'This manual page documents the GNU version of the program.',
  );
});

test('textbook BM25: lowercase ASCII words, Okapi scores by hand, ties to the lower ordinal', (t) => {
  t.deepEqual(textbookTokens('Cannot open: No_such-file 42x'), [
    'cannot',
    'open',
    'no',
    'such',
    'file',
    '42x',
  ]);
  // lengths 2, 3, 4 (avg 3), N = 3
  const idx = buildTextbookIndex(['a b', 'a a c', 'c d e f']);
  const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
  const norm = (len: number) => 1.2 * (0.25 + (0.75 * len) / 3);
  const s = (tf: number, df: number, len: number) => (idf(df) * tf * 2.2) / (tf + norm(len));
  const hits = rankTextbook(idx, 'A a c', 10);
  const expected = [
    { chunk: 1, score: s(2, 2, 3) + s(1, 2, 3) },
    { chunk: 2, score: s(1, 2, 4) },
    { chunk: 0, score: s(1, 2, 2) },
  ].sort((x, y) => y.score - x.score);
  t.deepEqual(
    hits.map((h) => h.chunk),
    expected.map((e) => e.chunk),
  );
  for (const [i, h] of hits.entries()) t.true(Math.abs(h.score - expected[i]!.score) < 1e-12);
  t.deepEqual(rankTextbook(idx, 'zzz', 10), [], 'no matching term, no hits');
  const tie = buildTextbookIndex(['x y', 'x y']);
  t.deepEqual(
    rankTextbook(tie, 'x', 1).map((h) => h.chunk),
    [0],
  );
});

test('the set report: quality per system, Δ against the baseline and of shaping, misses', (t) => {
  const queries = [
    { id: 'q1', set: 'selection' as const, kind: 'output' as const, page: 'tar', text: 'tar: x' },
    { id: 'q2', set: 'selection' as const, kind: 'line' as const, page: 'git', text: 'git log' },
  ];
  const run = {
    title: 'Tiny',
    queries,
    systems: [
      {
        name: BASELINE,
        shape: null,
        ranked: [['gzip', 'tar'], ['git']],
        bounded: [['gzip', 'tar'], ['git']],
      },
      { name: 'default', shape: true, ranked: [['tar'], ['git']], bounded: [['tar'], ['git']] },
      {
        name: 'default',
        shape: false,
        ranked: [['gzip'], ['ls', 'git']],
        bounded: [['gzip'], ['ls', 'git']],
      },
    ],
  };
  const report = renderSetReport(run);
  t.true(report.includes('| textbook BM25 | — | 1.000 | 0.750 |'), report);
  t.true(report.includes('| default | on | 1.000 | 1.000 | 1.000 |'), report);
  // shaping on against off: MRR 0.25 → 1 (+0.750), recall@6 0.5 → 1 (+0.500)
  t.true(report.includes('| default: shaping on vs off | MRR | 0.250 | 1.000 | +0.750 |'), report);
  t.true(report.includes('| default: shaping on vs off | recall@6 | 0.500 | 1.000 | +0.500 |'), report);
  t.true(report.includes('| default (shaping on) vs textbook BM25 | MRR | 0.750 | 1.000 | +0.250 |'), report);
  t.deepEqual(misses(run, run.systems[0]!), ['q1 (output) tar: rank 2; top gzip, tar']);
  t.deepEqual(misses(run, run.systems[2]!), [
    'q1 (output) tar: not found; top gzip',
    'q2 (line) git: rank 2; top ls, git',
  ]);
});
