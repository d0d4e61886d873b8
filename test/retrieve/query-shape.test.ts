import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { QUERY_WORD_BUDGET, shapeQuery } from '../../src/retrieve/query-shape.js';
import { runProgram, scratchDirs } from '../helpers/run-program.js';

// Selection → query on what real programs print: each case runs the program and shapes its real
// output (with a prompt line in front where a user would have selected one).

const dirs = scratchDirs('kortty-shape-');
test.after.always(() => dirs.removeAll());
const scratch = () => dirs.make();
const run = runProgram;

const lines = (s: string) => s.split('\n');

test('a question keeps its subject; only the words that make it a question go', (t) => {
  for (const [q, shaped, n] of [
    ['how do I extract a tar archive?', 'extract a tar archive?', 3],
    [
      'What does rsync --delete do when the destination has extra files?',
      'rsync --delete the destination has extra files?',
      4,
    ],
    [
      'Why would git say "not a git repository" in my home directory',
      'git say "not a git repository" in home directory',
      3,
    ],
    ['Is there a way to show hidden files?', 'Is there a to show hidden files?', 1],
    ['How to convert 0x1F to decimal in bash', 'to convert 0x1F to decimal in bash', 1],
    // A contraction is its words: a question word's (`what's`, `I'd`) goes whole and a possessive's
    // `'s` goes (left whole, the tokenizer would search a stray `s` or `d`); a negation stays as
    // manuals write it.
    ["How’d I — what's the way I'd list (my) sockets?", '— the list sockets?', 6],
    ["Why doesn't tar keep the owner? Why won't it?", "doesn't tar keep the owner? won't it?", 2],
    ["what's the difference between sed's -i and -e?", 'the difference between sed -i and -e?', 1],
    ["why isn't my cron job's output mailed?", "isn't cron job output mailed?", 2],
    ["How do I clone GitHub's mirror of O'Reilly's repo?", "clone GitHub mirror of O'Reilly repo?", 3],
    // A negated auxiliary is part of what the user wants: `do not overwrite` keeps its `do`.
    ['How do I do not overwrite newer files?', 'do not overwrite newer files?', 3],
    ['Why does tar not keep the owner?', 'tar not keep the owner?', 2],
    ['Why must I not use rm -rf /?', 'not use rm -rf /?', 3],
    // `am` is the question's verb, and git-am's page is titled `am`.
    ['what kernel version am I running', 'kernel version running', 3],
  ] as const) {
    const s = shapeQuery(q);
    t.is(s.query, shaped, q);
    t.deepEqual(s.commands, []);
    t.is(s.dropped.question, n, q);
    t.true(
      Object.entries(s.dropped).every(([k, v]) => k === 'question' || v === 0),
      q,
    );
  }
  // Not questions: a statement, an imperative, C++'s what(), a program's own prompt, a lone word.
  for (const q of [
    'difference between hard links and symbolic links',
    'Do not overwrite newer files',
    "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
    "rm: remove regular empty file 'notes.txt'?",
    'how',
  ]) {
    const s = shapeQuery(q);
    t.is(s.dropped.question, 0, q);
    t.is(
      s.query,
      q
        .split('\n')
        .map((l) => l.replace(/\s+/g, ' ').trim())
        .join('\n'),
      q,
    );
  }
  // A command line is never a question, whatever its words.
  t.is(shapeQuery('$ git log --format="what did I do?"').query, 'git log --format="what did I do?"');
  // Several lines stay several lines; each question loses its own question words.
  const two = shapeQuery('  what is a dangling   symlink?\n\nand how do I find them?  ');
  t.is(two.query, 'is a dangling symlink?\nand find them?');
  t.is(two.dropped.question, 4);
  // A question of question words alone leaves nothing, and search() then searches the text as it was.
  t.is(shapeQuery('How do I?').query, '');
});

test('ls on a missing path: the prompt goes, the command and the real error line stay', (t) => {
  const err = run('ls', ['/nonexistent-kortty']);
  t.regex(err, /^ls: .*nonexistent-kortty/);
  for (const prompt of [
    'user@host:~$ ',
    '[user@host ~]$ ',
    'user@host ~ % ',
    '➜  ~ ',
    '$ ',
    '(venv) user@host:~/src$ ',
    // git's prompt helper: the branch and its state.
    'user@host:~/app (main)$ ',
    'user@host:~/app (feature/x *+|MERGING)$ ',
  ]) {
    const s = shapeQuery(`${prompt}ls /nonexistent-kortty\n${err}`);
    t.is(s.query, `ls /nonexistent-kortty\n${err}`, prompt);
    t.deepEqual(s.commands, ['ls /nonexistent-kortty']);
    t.is(s.dropped.prompts, 1);
  }
  // The program name leads the query: `prog: message` is kept whole.
  t.true(shapeQuery(err).query.startsWith('ls: '));
});

test('git outside a repository and tar on a malformed archive keep their real messages and program names', async (t) => {
  const dir = await scratch();
  const git = run('git', ['status'], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: dir } });
  t.regex(git, /not a git repository/);
  t.is(shapeQuery(`user@host:${dir}$ git status\n${git}`).query, `git status\n${git}`);

  const bad = join(dir, 'broken.tar');
  await writeFile(bad, 'this is not a tar archive\n'.repeat(40));
  const tar = run('tar', ['-tf', bad]);
  t.regex(tar, /^tar: /m);
  const s = shapeQuery(`$ tar -tf ${bad}\n${tar}`);
  t.deepEqual(lines(s.query), [`tar -tf ${bad}`, ...lines(tar)]);
  for (const l of lines(s.query).slice(1)) t.true(l.startsWith('tar: '), l);
});

test('ANSI colours from grep and git are dropped, the text between them kept', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'log.txt'), 'ok\nerror: disk quota exceeded\nok\n');
  const coloured = run('grep', ['--color=always', 'error', join(dir, 'log.txt')]);
  t.true(coloured.includes('\x1b['), 'grep really coloured its output');
  const s = shapeQuery(coloured);
  t.is(s.query, 'error: disk quota exceeded');
  t.true(s.dropped.escapes >= 2);

  run('git', ['init', '-q', dir]);
  const status = run('git', ['-c', 'color.status=always', 'status', '--short'], { cwd: dir });
  t.true(status.includes('\x1b['), status);
  t.is(shapeQuery(status).query, '?? log.txt');
  // OSC hyperlinks and titles go too; the linked text stays.
  t.is(
    shapeQuery('\x1b]0;title\x07see \x1b]8;;file:///etc/hosts\x1b\\/etc/hosts\x1b]8;;\x1b\\ for names').query,
    'see /etc/hosts for names',
  );
});

test('timestamps in the formats date, syslog and loggers print are dropped', (t) => {
  const iso = run('date', ['--iso-8601=ns']);
  const rfc = run('date', ['-R']);
  const ctime = run('date', ['+%a %b %e %H:%M:%S %Z %Y']);
  const syslog = run('date', ['+%b %e %H:%M:%S']);
  const clock = run('date', ['+[%H:%M:%S]']);
  const s = shapeQuery(
    [
      `${iso} ERROR worker stopped`,
      `${syslog} build-host sshd[${process.pid}]: Failed password for root`,
      `${clock} WARN disk almost full`,
      `backup finished at ${ctime}`,
      `Date: ${rfc}`,
      '[  12.345678] usb 1-1: device descriptor read/64, error -71',
    ].join('\n'),
  );
  t.deepEqual(lines(s.query), [
    'ERROR worker stopped',
    'sshd: Failed password for root',
    'WARN disk almost full',
    'backup finished at',
    'Date:',
    'usb 1-1: device descriptor read/64, error -71',
  ]);
  t.is(s.dropped.timestamps, 6);
  // The syslog host name goes with its timestamp; a pid of five or more digits is a long number.
  t.false(s.query.includes('build-host'));
});

test('hex addresses, hashes, UUIDs and long numbers are dropped; paths, flags and short numbers stay', async (t) => {
  const maps = (await readFile('/proc/self/maps', 'utf8')).split('\n').find((l) => l.includes('/'))!;
  const s = shapeQuery(maps);
  const path = maps.slice(maps.indexOf('/'));
  t.true(s.query.endsWith(path), s.query);
  t.false(/[0-9a-f]{8}/.test(s.query.replace(path, '')), s.query);
  // Addresses with a letter are hex; all-digit offsets, devices' inodes are long numbers.
  t.true(s.dropped.hex + s.dropped.numbers >= 3, JSON.stringify(s.dropped));

  const uuid = (await readFile('/proc/sys/kernel/random/uuid', 'utf8')).trim();
  const u = shapeQuery(`mount: /dev/disk/by-uuid/${uuid}: can't find in /etc/fstab`);
  t.is(u.query, "mount: /dev/disk/by-uuid/ : can't find in /etc/fstab");
  t.is(u.dropped.uuids, 1);

  const dir = await scratch();
  run('git', ['init', '-q', dir]);
  run('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'first'], {
    cwd: dir,
  });
  const head = run('git', ['rev-parse', 'HEAD'], { cwd: dir });
  const g = shapeQuery(`error: pathspec 'x' did not match; HEAD is ${head} (${head.slice(0, 7)})`);
  t.is(g.query, "error: pathspec 'x' did not match; HEAD is");
  // The short hash is all digits one time in 27: then it is a long number.
  t.is(g.dropped.hex + g.dropped.numbers, 2);

  const n = shapeQuery(
    'Out of memory: Killed process 123456 (node) total-vm:10485760kB\ncurl: (22) The requested URL returned error: 502 after 3 retries; rsync -avz --delete src/ host:dst/',
  );
  t.deepEqual(lines(n.query), [
    'Out of memory: Killed process (node) total-vm:10485760kB',
    'curl: (22) The requested URL returned error: 502 after 3 retries; rsync -avz --delete src/ host:dst/',
  ]);
  t.is(n.dropped.numbers, 1);
});

test('line-number gutters from grep -n, cat -n and compilers are dropped', async (t) => {
  const dir = await scratch();
  const file = join(dir, 'main.c');
  await writeFile(file, 'int main(void) {\n  retrun 0;\n}\n');
  const grep = run('grep', ['-n', 'retrun', file]);
  t.is(grep, '2:  retrun 0;');
  t.is(shapeQuery(grep).query, 'retrun 0;');
  const cat = run('cat', ['-n', file]);
  // A line of punctuation alone (`}`) matches nothing: it goes too.
  t.is(shapeQuery(cat).query, 'int main(void) {\nretrun 0;');
  t.is(shapeQuery(cat).dropped.gutters, 3);
  const rustc = [
    'error[E0425]: cannot find function `foo` in this scope',
    ' --> src/main.rs:2:5',
    '  |',
    '2 |     foo();',
    '  |     ^^^ not found in this scope',
  ].join('\n');
  t.deepEqual(lines(shapeQuery(rustc).query), [
    'error[E0425]: cannot find function `foo` in this scope',
    '--> src/main.rs:2:5',
    'foo();',
    '^^^ not found in this scope',
  ]);
});

test('REPL prompts and a real Python traceback', (t) => {
  const py = run('python3', ['-c', 'import kortty_no_such_module']);
  t.regex(py, /ModuleNotFoundError/);
  const s = shapeQuery(`>>> import kortty_no_such_module\n${py}`);
  t.deepEqual(s.commands, ['import kortty_no_such_module']);
  t.is(lines(s.query)[0], 'import kortty_no_such_module');
  t.is(lines(s.query).at(-1), "ModuleNotFoundError: No module named 'kortty_no_such_module'");
  for (const [sel, q] of <[string, string][]>[
    ['In [3]: df.groupby("a")', 'df.groupby("a")'],
    ['PS C:\\Users\\me> Get-ChildItem -Recurse', 'Get-ChildItem -Recurse'],
    ['irb(main):001:0> require "json"', 'require "json"'],
    ['mysql> SELECT 1;', 'SELECT 1;'],
    ['➜  kortty git:(main) ✗ git push --force', 'git push --force'],
    ['❯ cargo build', 'cargo build'],
    ['user@host ~/src> make', 'make'],
  ]) {
    t.is(shapeQuery(sel).query, q, sel);
  }
});

test('repeated lines count once, also when only their numbers differ', (t) => {
  const out = run('sh', [
    '-c',
    'for i in 1 2 3 4 5; do echo "attempt $i/5: connect to 127.0.0.1 port 9 failed: Connection refused"; done',
  ]);
  t.is(lines(out).length, 5);
  const s = shapeQuery(out);
  t.is(s.query, 'attempt 1/5: connect to 127.0.0.1 port 9 failed: Connection refused');
  t.is(s.dropped.repeats, 4);
});

/** Function names without digits, so every frame of the trace is a different line. */
function name(i: number): string {
  let s = '';
  for (let n = i; ; n = Math.floor(n / 26) - 1) {
    s = String.fromCharCode(97 + (n % 26)) + s;
    if (n < 26) break;
  }
  return `step_${s}`;
}

test('a real 500-frame stack trace is bounded to the word budget and keeps its headline and end', async (t) => {
  const dir = await scratch();
  const frames = 520;
  const src = [
    'Error.stackTraceLimit = Infinity;',
    ...Array.from({ length: frames }, (_, i) =>
      i === frames - 1
        ? `function ${name(i)}() { throw new TypeError('config.port is undefined'); }`
        : `function ${name(i)}() { ${name(i + 1)}(); }`,
    ),
    `${name(0)}();`,
  ].join('\n');
  await writeFile(join(dir, 'deep.js'), src);
  const trace = run('node', [join(dir, 'deep.js')]);
  const traceLines = lines(trace);
  t.true(traceLines.length > 500, `${traceLines.length} lines`);
  const s = shapeQuery(`$ node deep.js\n${trace}`);
  t.true(s.words <= QUERY_WORD_BUDGET, `${s.words} words`);
  t.true(s.query.split(/\s+/u).length <= QUERY_WORD_BUDGET);
  const q = lines(s.query);
  t.is(q[0], 'node deep.js', 'the command line comes first');
  t.true(q.includes('TypeError: config.port is undefined'), s.query);
  t.is(q.at(-1), traceLines.at(-1), 'the last line of the selection');
  t.true(s.dropped.budget > 450);
  t.is(s.keptLines, q.length);
  // Kept lines stay in the order they were selected.
  const at = q.map((l) => traceLines.findIndex((x) => x.trim() === l));
  t.deepEqual(
    at.slice(1),
    [...at.slice(1)].sort((a, b) => a - b),
  );
});

test('a long scrollback keeps its command and error lines within the budget', async (t) => {
  const dir = await scratch();
  const tree = join(dir, 'tree');
  await mkdir(tree);
  for (let i = 0; i < 300; i++) await writeFile(join(tree, `file-${name(i)}.txt`), 'x');
  const out = run('sh', ['-c', `cd ${dir} && tar -cvf out.tar tree missing-dir 2>&1`]);
  t.true(lines(out).length > 300);
  const s = shapeQuery(`user@host:~$ tar -cvf out.tar tree missing-dir\n${out}`);
  t.true(s.words <= QUERY_WORD_BUDGET);
  const q = lines(s.query);
  t.is(q[0], 'tar -cvf out.tar tree missing-dir');
  t.true(
    q.some((l) => /^tar: missing-dir: Cannot stat: No such file or directory/.test(l)),
    s.query,
  );
  t.true(
    q.some((l) => /^tar: Exiting with failure status/.test(l)),
    s.query,
  );
});

test('a selection of only noise shapes to an empty query; 10,000 lines keep their error line', (t) => {
  const noise = shapeQuery(`${run('date', [])}\n$ \n  12 | \n0x7ffd1234abcd`);
  t.is(noise.query, '');
  t.is(noise.keptLines, 0);
  t.is(noise.words, 0);
  const big = Array.from({ length: 10_000 }, (_, i) => `${name(i)} copied ok`).join('\n');
  const s = shapeQuery(`${big}\nfatal: disk full`);
  t.is(s.lines, 10_001);
  t.true(s.query.includes('fatal: disk full'));
  t.true(s.words <= QUERY_WORD_BUDGET);
});

test('programs: the command words and the `prog:` of real output, leading program first', async (t) => {
  const dir = await scratch();
  // `prog: message` and `prog (child): message` lines name the program that printed them.
  const bad = join(dir, 'site.tar.gz');
  await writeFile(bad, 'not gzip\n');
  const tar = run('tar', ['-xzf', bad]);
  t.regex(tar, /^gzip: stdin: not in gzip format$/m);
  // gzip printed a line too; tar's error lines make tar the leading program.
  t.deepEqual(shapeQuery(tar).programs, ['tar', 'gzip']);
  // A program run by its path prints the path: the program is its last part.
  const byPath = run('/usr/bin/tar', ['-tf', join(dir, 'missing.tar')]);
  t.regex(byPath, /^\/usr\/bin\/tar: .*missing\.tar: Cannot open/m);
  t.deepEqual(shapeQuery(byPath).programs, ['tar']);
  const sh = run('/bin/sh', ['-c', 'kortty-no-such-command']);
  t.regex(sh, /^\/bin\/sh: (?:line )?1: kortty-no-such-command: (?:command )?not found$/);
  t.deepEqual(shapeQuery(sh).programs, ['kortty-no-such-command', 'sh']);
  // A login shell's argv[0] is its name after a dash.
  const login = spawnSync('bash', ['-c', 'cd /nonexistent-kortty'], {
    argv0: '-bash',
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  }).stderr.trim();
  t.regex(login, /^-bash: line 1: cd: \/nonexistent-kortty: No such file or directory$/);
  // The shell's error names the command it ran (here a builtin), then the shell.
  t.deepEqual(shapeQuery(login).programs, ['cd', 'bash']);
  const killed = spawnSync('bash', ['-c', `kill ${spawnSync('true').pid}`], {
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  }).stderr.trim();
  t.regex(killed, /^bash: line 1: kill: \(\d+\) - No such process$/);
  t.deepEqual(shapeQuery(killed).programs, ['kill', 'bash']);
  // A shell's warning and its own syntax errors name no command.
  t.deepEqual(shapeQuery(run('bash', ['-c', 'echo $((1+))'])).programs, ['bash']);
  // A shell's error in a script names the shell, not the script; awk's `awk: line 1:` stays awk's.
  await writeFile(join(dir, 'install.sh'), 'if true; then\n  echo ok\nfi fi\n');
  const bashScript = run('bash', ['install.sh'], { cwd: dir });
  t.regex(bashScript, /^install\.sh: line 3: syntax error near unexpected token `fi'$/m);
  t.deepEqual(shapeQuery(bashScript).programs, ['bash']);
  const dashScript = run('sh', [join(dir, 'install.sh')]);
  t.regex(dashScript, /install\.sh: 3: Syntax error: "fi" unexpected/);
  t.deepEqual(shapeQuery(dashScript).programs, ['sh']);
  const awk = run('awk', ['BEGIN {']);
  t.regex(awk, /^awk: /);
  t.deepEqual(shapeQuery(awk).programs, ['awk']);
  // Output forms that are one program's without naming it: make's `file:N: *** …`, wget's first
  // line for a URL (its timestamp is the mark, and is dropped from the query after).
  await writeFile(join(dir, 'broken.mk'), 'all:\n    echo no tab\n');
  const make = run('make', ['-f', 'broken.mk'], { cwd: dir });
  t.regex(make, /^broken\.mk:2: \*\*\* missing separator\. {2}Stop\.$/);
  t.deepEqual(shapeQuery(make).programs, ['make']);
  const wget = run('wget', ['--tries=1', '--no-config', 'http://127.0.0.1:1/release.tar.gz']);
  t.regex(wget, /^--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d-- {2}http:\/\/127\.0\.0\.1:1\/release\.tar\.gz$/m);
  t.deepEqual(shapeQuery(wget).programs, ['wget']);
  t.deepEqual(shapeQuery(`2026-03-14T09:27:05.347Z ${wget.split('\n')[0]}`).programs, ['wget']);
  // A quoted command the output tells the user to run names its program.
  const repo = join(dir, 'repo');
  run('git', ['-c', 'init.defaultBranch=main', 'init', '-q', repo]);
  await writeFile(join(repo, 'TODO.md'), '- release notes\n');
  const status = run('git', ['-C', repo, 'status'], { env: { HOME: dir } });
  t.regex(status, /^nothing added to commit but untracked files present \(use "git add" to track\)$/m);
  t.deepEqual(shapeQuery(status).programs, ['git', 'git-status']);
  t.deepEqual(shapeQuery(status.split('\n').at(-1)!).programs, ['git']);
  // What a file or folder is not names the program of its format, after a label too.
  const outside = join(dir, 'plain');
  await mkdir(outside);
  const notRepo = run('git', ['-C', outside, 'status'], {
    env: { HOME: dir, GIT_CEILING_DIRECTORIES: dir },
  });
  t.regex(notRepo, /^fatal: not a git repository \(or any of the parent directories\): \.git$/);
  t.deepEqual(shapeQuery(notRepo).programs, ['git']);
  t.deepEqual(shapeQuery('cp: not a regular file').programs, ['cp', 'regular']);
  // A `Try 'prog --help'` hint and a `usage:` line name their program too.
  const cp = run('cp', []);
  t.regex(cp, /Try 'cp --help'/);
  t.deepEqual(shapeQuery(cp).programs, ['cp']);
  const git = run('git', ['--kortty-bogus']);
  t.regex(git, /usage: git /);
  t.deepEqual(shapeQuery(git).programs, ['git']);
  // A shell trace (`set -x`) marks its commands with `+ `.
  const trace = run('bash', ['-xc', `tar -tf ${bad}`]);
  t.true(trace.startsWith(`+ tar -tf ${bad}`), trace);
  t.deepEqual(shapeQuery(trace).programs, ['tar', 'gzip']);
  // After a prompt: wrappers and assignments are skipped, each piped or chained command counts,
  // and the program that ran and failed (command and error line) leads.
  const ls = run('ls', ['/nonexistent-kortty']);
  t.deepEqual(
    shapeQuery(`$ sudo -E LC_ALL=C env ls /nonexistent-kortty | /usr/bin/sort -r && wc -l\n${ls}`).programs,
    ['ls', 'sort', 'wc'],
  );
  t.deepEqual(shapeQuery(`$ make build\n$ ls /nonexistent-kortty\n${ls}`).programs, ['ls', 'make']);
  // A lone line that reads as a command (a flag, a quote, a path among its arguments).
  t.deepEqual(shapeQuery("awk -F: '$3 >= 1000 {print $1}' /etc/passwd").programs, ['awk']);
  t.deepEqual(shapeQuery('rsync -avz --delete src/ host:dst/').programs, ['rsync']);
  // One plain word may come before the path: a mode, an owner, a verb of tar's.
  t.deepEqual(shapeQuery('chmod 600 ~/.ssh/authorized_keys').programs, ['chmod']);
  t.deepEqual(shapeQuery('chown www-data:www-data /var/www').programs, ['chown']);
  t.deepEqual(shapeQuery('tar xf site.tar').programs, ['tar']);
  t.deepEqual(shapeQuery('ssh deploy@10.0.0.5').programs, ['ssh']);
  // Two words before a path are prose (`files in /etc`), and a bare number is no path.
  t.deepEqual(shapeQuery('list files in /etc').programs, []);
  t.deepEqual(shapeQuery('last 10 logins').programs, []);
  // A `+` flag is a flag, and sudo or doas before a word makes a command of the line.
  t.deepEqual(shapeQuery('sudo chattr +i /etc/resolv.conf').programs, ['chattr']);
  t.deepEqual(shapeQuery('sudo mount /dev/sdb1 /mnt').programs, ['mount']);
  t.deepEqual(shapeQuery('doas -u backup systemctl restart nginx').programs, ['systemctl']);
  t.deepEqual(shapeQuery('$ time -p make -j4').programs, ['make'], 'time -p takes no value');
  t.deepEqual(shapeQuery('sudo is not working on this box').programs.includes('sudo'), false);
  // A Dockerfile's RUN and a CI step's `run:` hold a command line; a `run: |` block opens one.
  t.deepEqual(shapeQuery('RUN useradd -r -M -d /var/lib/app -s /usr/sbin/nologin app').programs, ['useradd']);
  t.deepEqual(shapeQuery('RUN --mount=type=cache,target=/root/.npm npm ci').programs, ['npm-ci', 'npm']);
  t.deepEqual(shapeQuery('      - run: rsync -a dist/ web:/srv/www/').programs, ['rsync']);
  t.deepEqual(shapeQuery('run: |').commands, []);
  // bash's history listing: the entry's number, two blanks, the command line. uniq -c's counts
  // have one blank after them and are output.
  const history = run('bash', [
    '-c',
    'set -o history; history -s "sudo passwd -l olduser"; history -s "git stash apply stash@{1}"; history',
  ]).split('\n');
  t.deepEqual(history, ['    1  sudo passwd -l olduser', '    2  git stash apply stash@{1}']);
  t.deepEqual(shapeQuery(history[0]!).programs, ['passwd']);
  t.deepEqual(shapeQuery(history[1]!).programs, ['git-stash', 'git']);
  const counts = run('uniq', ['-c'], { input: 'apples\napples\npears\n' });
  t.is(counts, '      2 apples\n      1 pears');
  t.deepEqual(shapeQuery(counts).programs, []);
  // A command that only feeds a pipe follows the one it feeds; chained, it keeps its place.
  t.deepEqual(shapeQuery('echo "vm.swappiness=10" | sudo tee -a /etc/sysctl.d/99-swap.conf').programs, [
    'tee',
    'echo',
  ]);
  t.deepEqual(shapeQuery('$ cat access.log | grep -c " 404 "').programs, ['grep', 'cat']);
  t.deepEqual(shapeQuery('$ cat notes.txt && wc -l notes.txt').programs, ['cat', 'wc']);
  // Labels are not programs, and prose names one only where English uses a word as a program's
  // name (see the mentions test): never as a command.
  t.deepEqual(shapeQuery("error: the path 'x' is not known to git").programs, []);
  t.deepEqual(shapeQuery('how do I extract a tar archive?').programs, []);
  t.deepEqual(shapeQuery('list the files in /etc that changed today').programs, []);
  t.deepEqual(shapeQuery('make tar skip existing files with --skip-old-files').programs, ['tar']);
  t.deepEqual(shapeQuery('sort -n data.txt?').programs, []);
  // A question stays prose once its question words are dropped: neither `the` nor `use` ran (the
  // question names sort in prose: `of sort`).
  t.deepEqual(shapeQuery('What does the -z flag of sort do?').programs, ['sort']);
  t.deepEqual(shapeQuery('how do I use tar -x').programs, []);
  t.deepEqual(shapeQuery('which -a python3 | head').programs, ['which', 'head']);
  // At most six, in order of weight.
  t.deepEqual(shapeQuery('$ a1 x | b1 | c1 | d1 | e1 | f1 | g1').programs, [
    'a1',
    'b1',
    'c1',
    'd1',
    'e1',
    'f1',
  ]);
});

test('programs: an indented command with a flag that output suggests; indented code, stack frames and fields name none', async (t) => {
  const dir = await scratch();
  const repo = join(dir, 'repo');
  const env = { HOME: dir, GIT_CEILING_DIRECTORIES: dir };
  run('git', ['-c', 'init.defaultBranch=main', 'init', '-q', repo], { env });
  run(
    'git',
    [
      '-C',
      repo,
      '-c',
      'user.name=k',
      '-c',
      'user.email=k@example.org',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ],
    { env },
  );
  run('git', ['-C', repo, 'remote', 'add', 'origin', join(dir, 'nowhere.git')], { env });
  run('git', ['-C', repo, 'checkout', '-q', '-b', 'feature'], { env });
  const push = run('git', ['-C', repo, 'push'], { env });
  t.regex(push, /^fatal: The current branch feature has no upstream branch\.$/m);
  t.regex(push, /^ {4}git push --set-upstream origin feature$/m);
  t.is(shapeQuery(push).programs[0], 'git');
  // Python shows the failing line of code indented, node its stack frames and the error's fields
  // (`  code: 'MODULE_NOT_FOUND',`): no command, and no `prog:`. Only the interpreter's own forms
  // name a program (a traceback's header, node's `node:internal/` frames).
  await writeFile(join(dir, 'app.py'), 'file = open("missing.txt", "r")\n');
  const py = run('python3', [join(dir, 'app.py')]);
  t.regex(py, /^ {4}file = open\("missing\.txt", "r"\)$/m);
  await writeFile(join(dir, 'app.js'), 'const file = require("./missing-kortty");\n');
  const js = run('node', [join(dir, 'app.js')]);
  t.regex(js, /^ {4}at /m);
  t.regex(js, /^ {2}code: 'MODULE_NOT_FOUND',$/m);
  t.deepEqual(shapeQuery(py).programs, ['python'], py);
  t.deepEqual(shapeQuery(js).programs, ['node'], js);
  // Without the interpreter's forms (and the exception and version lines only it prints) the
  // same lines name nothing.
  const frames = (out: string) =>
    lines(out)
      .filter((l) => !/Traceback|File "|node:internal|^\w+Error: |^Node\.js v/.test(l))
      .join('\n');
  for (const out of [py, js]) t.deepEqual(shapeQuery(frames(out)).programs, [], out);
});

test('programs: a subcommand documented on a page of its own names that page first', (t) => {
  const cases: Array<[string, string[]]> = [
    ['git log --oneline --graph --decorate --all', ['git-log', 'git']],
    ['git -C repo -c color.ui=never --no-pager log -n 5', ['git-log', 'git']],
    ['openssl s_client -connect example.com:443 -servername example.com', ['openssl-s_client', 'openssl']],
    ['user@host:~/proj$ git stash pop\nNo stash entries found.', ['git-stash', 'git']],
    // Only the first command's: a later command in a pipeline is named alone.
    ['git log --oneline | grep fix', ['git-log', 'git', 'grep']],
    // A short option's value is no subcommand, and other programs' next word is an argument.
    ['git -p log', ['git']],
    ['ssh-keygen -t ed25519 -f deploy_key', ['ssh-keygen']],
    ["user@host:~/proj$ make build\nmake: *** No rule to make target 'build'.  Stop.", ['make']],
  ];
  for (const [text, programs] of cases) t.deepEqual(shapeQuery(text).programs, programs, text);
});

test('programs: output forms and line openings that are one program’s although they do not name it', async (t) => {
  const dir = await scratch();
  const env = { HOME: dir, GIT_CEILING_DIRECTORIES: dir };
  // git: `fatal: ` and `hint: ` open its lines, and its advice shows commands with placeholders.
  const repo = join(dir, 'repo');
  const init = run('git', ['init', repo], { env });
  t.regex(init, /^hint: Using 'master' as the name for the initial branch/m);
  t.deepEqual(shapeQuery(lines(init).find((l) => l.startsWith('hint: '))!).programs, ['git']);
  const push = run('git', ['-C', repo, 'push'], { env });
  t.regex(push, /^fatal: No configured push destination\.$/m);
  t.regex(push, /^ {4}git remote add <name> <url>$/m);
  // The suggested commands name their subcommands' pages too, after git, whose error this is, and
  // push's, whose advice (`Either specify the URL …`) it is.
  t.deepEqual(shapeQuery(push).programs, ['git', 'git-push', 'git-remote']);
  t.deepEqual(shapeQuery(lines(push)[0]!).programs, ['git']);
  t.deepEqual(
    shapeQuery(push.replace(/^fatal: .*\n/, '')).programs,
    ['git', 'git-push', 'git-remote'],
    'the suggested commands and push’s advice',
  );
  run(
    'git',
    [
      '-C',
      repo,
      '-c',
      'user.name=k',
      '-c',
      'user.email=k@example.org',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ],
    { env },
  );
  const merge = run('git', ['-C', repo, 'merge', 'kortty-no-such'], { env });
  t.is(merge, 'merge: kortty-no-such - not something we can merge');
  t.deepEqual(shapeQuery(merge).programs, ['git'], 'not `merge`');
  // Another program's `fatal:` comes after its own name.
  t.deepEqual(shapeQuery('postfix/smtpd[4242]: fatal: open database /etc/postfix/access.db').programs, []);
  // jq before 1.7 printed its parse errors without its name; 1.7 prints `jq: parse error: …`.
  await writeFile(join(dir, 'bad.json'), '{"a": 1,, }\n');
  const jq = run('jq', ['.', join(dir, 'bad.json')]);
  t.regex(jq, /parse error: .* at line 1, column \d+$/);
  t.deepEqual(shapeQuery(jq).programs, ['jq']);
  const jqCompile = run('jq', ['if', join(dir, 'bad.json')]);
  t.regex(jqCompile, /at <top-level>, line 1:/);
  t.deepEqual(shapeQuery(jqCompile).programs, ['jq'], "jq's own `line 1:` is no Perl place");
  // Perl appends ` at FILE line N.` to its errors and warnings.
  const perlModule = run('perl', ['-e', 'use Kortty::NoSuch;']);
  t.regex(perlModule, /^Can't locate Kortty\/NoSuch\.pm in @INC .* at -e line 1\.$/m);
  t.deepEqual(shapeQuery(perlModule).programs, ['perl']);
  await writeFile(join(dir, 'report.pl'), 'my $x = ;\n');
  const perlSyntax = run('perl', [join(dir, 'report.pl')]);
  t.regex(perlSyntax, /^syntax error at \S+report\.pl line 1, near "= ;"$/m);
  t.deepEqual(shapeQuery(perlSyntax).programs, ['perl']);
  t.deepEqual(shapeQuery('ERROR:  syntax error at or near "SELEC"\nLINE 1: SELEC 1;').programs, []);
  // The sqlite3 shell opens its errors with where they arose, not its name.
  const sqlArg = run('sqlite3', [':memory:', 'SELEC 1;']);
  t.regex(sqlArg, /^Error: in prepare, near "SELEC": syntax error$/m);
  const sqlStep = run('sqlite3', [':memory:', 'CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1), (1);']);
  t.regex(sqlStep, /^Error: stepping, UNIQUE constraint failed: t\.a/m);
  const sqlScript = run('sqlite3', [':memory:'], { input: 'SELECT 1;\nSELEC 2;\n' });
  t.regex(sqlScript, /^Parse error near line 2: near "SELEC": syntax error$/m);
  const sqlRuntime = run('sqlite3', [':memory:'], {
    input: 'CREATE TABLE t(a UNIQUE);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);\n',
  });
  t.regex(sqlRuntime, /^Runtime error near line 3: UNIQUE constraint failed: t\.a/m);
  for (const out of [sqlArg, sqlStep, sqlScript, sqlRuntime])
    t.deepEqual(shapeQuery(out).programs, ['sqlite3'], out);
  t.deepEqual(shapeQuery("Error: Cannot find module 'kortty-no-such'").programs, [], "node's `Error: `");
  // The openssl tool prints OpenSSL's error queue, one `thread:error:code:` line per entry; a
  // program that embeds OpenSSL quotes a reason inside its own message.
  await writeFile(join(dir, 'req.pem'), 'hello\n');
  const openssl = run('openssl', ['req', '-in', join(dir, 'req.pem')]);
  t.regex(openssl, /^[0-9A-F]{8,16}:error:[0-9A-F]{8}:PEM routines:/m);
  t.deepEqual(shapeQuery(openssl).programs, ['openssl']);
  t.deepEqual(
    shapeQuery('curl: (35) OpenSSL/3.0.11: error:0A00010B:SSL routines::wrong version number').programs,
    ['curl'],
  );
  // The openssl tool's own refusals to read a file.
  const x509 = run('openssl', ['x509', '-in', join(dir, 'req.pem')]);
  t.regex(x509, /^(?:Could not read|unable to load) certificate/im);
  t.deepEqual(shapeQuery(x509).programs, ['openssl']);
  t.deepEqual(shapeQuery('curl: (58) unable to load client key: -8178 (SEC_ERROR_BAD_KEY)').programs, [
    'curl',
  ]);
  // tmux's client errors carry no name. Attaching starts a server that finds no session and
  // exits; the socket it leaves has no server behind it after.
  const sock = join(dir, 'tmux.sock');
  const noSessions = run('tmux', ['-S', sock, 'attach', '-t', 'work']);
  t.is(noSessions, 'no sessions');
  const noServer = run('tmux', ['-S', sock, 'ls']);
  t.is(noServer, `no server running on ${sock}`);
  for (const out of [noServer, noSessions]) t.deepEqual(shapeQuery(out).programs, ['tmux'], out);
  // A Python frame or a node stack on its own still names its interpreter.
  await writeFile(join(dir, 'app.py'), 'import kortty_no_such_module\n');
  const py = run('python3', [join(dir, 'app.py')]);
  const frame = lines(py).find((l) => l.startsWith('  File '))!;
  t.regex(frame, /^ {2}File ".*app\.py", line 1, in <module>$/);
  t.deepEqual(shapeQuery(frame).programs, ['python']);
  const node = run('node', ['-e', 'require("kortty-no-such")']);
  const stack = lines(node).filter((l) => l.startsWith('    at '));
  t.true(
    stack.some((l) => l.includes('(node:internal/')),
    node,
  );
  t.deepEqual(shapeQuery(stack.join('\n')).programs, ['node']);
});

test('programs: a shell that refused the command line leads it: the command never ran', async (t) => {
  const dir = await dirs.make();
  await writeFile(join(dir, 'notes.txt'), 'n\n');
  const zshGlob = run('zsh', ['-c', 'rm *.bak'], { cwd: dir });
  t.is(zshGlob, 'zsh:1: no matches found: *.bak');
  const bashGlob = run('bash', ['-O', 'failglob', '-c', 'rm *.bak'], { cwd: dir });
  t.regex(bashGlob, /^bash: (?:line 1: )?no match: \*\.bak$/);
  const syntax = run('bash', ['-c', 'echo ('], { cwd: dir });
  t.regex(syntax, /^bash: -c: line 1: syntax error near unexpected token/);
  const listing = `$ ls\n${run('ls', [], { cwd: dir })}`;
  const cases: [string, string[]][] = [
    [`alice@devbox ~/notes % rm *.bak\n${zshGlob}`, ['zsh', 'rm']],
    // rm and echo never ran and weigh what ls does; the later command of a tie comes first.
    [`${listing}\n$ rm *.bak\n${bashGlob}`, ['bash', 'rm', 'ls']],
    [`${listing}\n$ echo (\n${syntax}`, ['bash', 'echo', 'ls']],
    [zshGlob, ['zsh']],
  ];
  for (const [selection, programs] of cases) t.deepEqual(shapeQuery(selection).programs, programs, selection);
  // rm's own failure is rm's.
  const rm = run('rm', ['nothing.bak'], { cwd: dir });
  t.deepEqual(shapeQuery(`${listing}\n$ rm nothing.bak\n${rm}`).programs, ['rm', 'ls']);
});

test('programs: a program’s own `prog:` line below its command is its failure, whatever its words; a wrapper’s is the wrapper’s', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'README'), 'x\n');
  await writeFile(join(dir, 'node-v20.tar.xz'), 'not xz data\n');
  const listing = `$ ls -l\n${run('ls', ['-l'], { cwd: dir })}`;
  // xz's diagnostic holds no error word: before, ls and xz tied and ls, seen first, led.
  const xz = run('xz', ['-d', 'node-v20.tar.xz'], { cwd: dir });
  t.is(xz, 'xz: node-v20.tar.xz: File format not recognized');
  const failed = shapeQuery(`${listing}\n$ xz -d node-v20.tar.xz\n${xz}`);
  t.deepEqual(failed.programs, ['xz', 'ls']);
  // The program that failed keeps its words in the query; the listing is context.
  t.true(failed.query.includes('File format not recognized'));
  // A wrapper's number is the wrapper's: `nice -n 5 sort` runs sort (it had named nothing).
  t.deepEqual(shapeQuery('$ nice -n 5 sort -o ids.sorted ids.txt').programs, ['sort']);
  t.deepEqual(shapeQuery('$ sudo nice -n 10 make -j4').programs, ['make']);
  // env runs a script that is not executable: env says so, and env leads the script, which never
  // ran (the script had led, credited with env's error).
  await writeFile(join(dir, 'deploy.sh'), 'echo deployed\n', { mode: 0o644 });
  const env = run('env', ['NODE_ENV=production', './deploy.sh'], { cwd: dir });
  t.regex(env, /^env: .\.\/deploy\.sh.: Permission denied$/);
  t.deepEqual(shapeQuery(`$ env NODE_ENV=production ./deploy.sh\n${env}`).programs, ['env', 'deploy.sh']);
  // A file's name before a colon is no diagnostic: sha256sum -c's `README: OK` is plain output.
  const sum = run('sha256sum', ['README'], { cwd: dir });
  await writeFile(join(dir, 'SUMS'), `${sum}\n`);
  const check = run('sha256sum', ['-c', 'SUMS'], { cwd: dir });
  t.is(check, 'README: OK');
  t.deepEqual(shapeQuery(`${listing}\n$ sha256sum -c SUMS\n${check}`).programs, ['ls', 'sha256sum']);
});

test('programs: in a scrollback the command whose output holds the errors leads the one before it', async (t) => {
  const dir = await scratch();
  for (const f of ['config.json', 'README.md']) await writeFile(join(dir, f), 'x\n');
  await writeFile(join(dir, 'app.py'), "cfg = {}\nprint(cfg['port'])\n");
  const listing = run('ls', ['-l', dir]);
  const traceback = run('python3', [join(dir, 'app.py')]);
  t.regex(traceback, /^KeyError: 'port'$/m);
  const scrollback = `$ ls -l ${dir}\n${listing}\n$ python3 app.py\n${traceback}`;
  // Both are command lines; python3's traceback and KeyError lines are python3's (the traceback's
  // header and the KeyError name python too; ls's listing names ls once).
  t.deepEqual(shapeQuery(scrollback).programs, ['python3', 'python', 'ls']);
  // However long the listing, the command that failed below it leads.
  for (let i = 0; i < 40; i++) await writeFile(join(dir, `file-${i}.txt`), 'x\n');
  await writeFile(join(dir, 'backup.tar.gz'), 'not an archive\n');
  const long = run('ls', ['-l', dir]);
  t.true(long.split('\n').length > 40);
  const tar = run('tar', ['-xzf', 'backup.tar.gz'], { cwd: dir });
  t.regex(tar, /^gzip: stdin: not in gzip format$/m);
  t.is(shapeQuery(`$ ls -l\n${long}\n$ tar -xzf backup.tar.gz\n${tar}`).programs[0], 'tar');
  // Without output below it, python3 does not lead: ls's listing names ls. Two commands alone weigh
  // the same, and the later one (where the user is now) leads the tie.
  t.deepEqual(shapeQuery(`$ ls -l ${dir}\n${listing}\n$ python3 app.py`).programs, ['ls', 'python3']);
  t.deepEqual(shapeQuery(`$ ls -l ${dir}\n$ python3 app.py`).programs, ['python3', 'ls']);
  // Errors count for the command above them, not for a later one.
  t.deepEqual(shapeQuery(`$ python3 app.py\n${traceback}\n$ ls -l ${dir}\n${listing}`).programs, [
    'python3',
    'python',
    'ls',
  ]);
  // Commands that printed no error are the failed one's context, however many there are: three
  // `cat`s and an `ls` above a failed gzip leave gzip leading.
  await writeFile(join(dir, 'Makefile'), 'calc: main.o\n\tcc -o calc main.o -lm\n');
  const cat = (f: string) => `$ cat ${f}\n${run('cat', [f], { cwd: dir })}`;
  const missing = run('gzip', ['-d', 'missing.gz'], { cwd: dir });
  t.regex(missing, /^gzip: missing\.gz: No such file or directory$/m);
  const context = [cat('Makefile'), cat('config.json'), cat('README.md'), `$ ls\n${run('ls', [dir])}`].join(
    '\n',
  );
  t.is(shapeQuery(`${context}\n$ gzip -d missing.gz\n${missing}`).programs[0], 'gzip');

  // `no process found` is a failure too, though it names the process, not killall: df's table
  // above it is context.
  const df = `$ df -h /\n${run('df', ['-h', '/'])}`;
  t.regex(df, /^Filesystem +Size +Used +Avail +Use% +Mounted on$/m);
  const killall = run('killall', ['-HUP', 'kortty-no-such-daemon']);
  t.is(killall, 'kortty-no-such-daemon: no process found');
  const failedKill = shapeQuery(`${df}\n$ killall -HUP kortty-no-such-daemon\n${killall}`).programs;
  t.is(failedKill[0], 'killall');
  t.true(failedKill.indexOf('df') > failedKill.indexOf('kortty-no-such-daemon'), failedKill.join(' '));

  // Where no command failed, none is context: the commands keep their weight.
  t.deepEqual(shapeQuery(context).programs.slice(0, 2), ['cat', 'ls']);
});

test('programs: a question or goal names a program where English uses the word as one, else none', (t) => {
  const named: [string, string[]][] = [
    ['how to exclude a directory when using find', ['find']],
    ['Is there a way to skip existing files with rsync?', ['rsync']],
    ['In tar, how can I keep old files?', ['tar']],
    ['where does the output go when I run something with nohup', ['nohup']],
    ['how to get raw string output from jq without the quotes', ['jq']],
    ['What grep option lets me ignore case?', ['grep']],
    ['how do I reattach to my tmux session after my connection dropped', ['tmux']],
    ['perl one-liner to do a regex search and replace', ['perl']],
    ['make xz use all CPU cores when compressing', ['xz']],
    ['Does less show line numbers?', ['less']],
    ['list which message digest algorithms openssl supports', ['openssl']],
    ['run `git log --oneline` from a script', ['git']],
    // A subcommand with a page of its own names that page first, as on a command line.
    ['use git log to find when a line was deleted', ['git-log', 'git']],
    ['create a branch from origin/main and move onto it with git switch', ['git-switch', 'git']],
    ["git stash doesn't save my untracked files", ['git-stash', 'git']],
    ['how to check which chain a server sends with openssl s_client?', ['openssl-s_client', 'openssl']],
    // Asking a program to do something: `get make to compile`, `tell grep to ignore case`.
    ['how do I get make to compile in parallel using all my CPU cores?', ['make']],
    ['tell grep to ignore case', ['grep']],
    // A word after git that is no subcommand is English: git alone.
    ['how do I undo my last commit in git?', ['git']],
    ['connect with SSH', ['ssh']],
    ['what does --delete with rsync do?', ['rsync']],
    ['the output of ls', ['ls']],
    // An option belongs to the program after it.
    ['What does the capital -P flag in rsync stand for?', ['rsync']],
    ['is the --delete option of rsync dangerous?', ['rsync']],
    ['is there an option for ls that sorts by size?', ['ls']],
    // A backticked command is read as a command line: its subcommand's page, past a wrapper.
    ['What does `ip route get 1.1.1.1` tell me?', ['ip-route', 'ip']],
    ['what does `sudo -E` keep?', ['sudo']],
    // A program is the subject of its verb at a clause's start.
    ['umount keeps failing with target is busy', ['umount']],
    ['git keeps reporting conflicts, and tar complains too', ['git', 'tar']],
    ['why rsync keeps copying files that have not changed', ['rsync']],
  ];
  for (const [q, programs] of named) t.deepEqual(shapeQuery(q).programs, programs, q);
  // A word that is a program's name but used as a verb, a noun or a placeholder names nothing.
  const none = [
    'find the PID of a process by name',
    'count lines in a file',
    'make a script executable',
    'how to run a command in less than 5 seconds',
    'Move all source args into DIR',
    'what does the last command do',
    'sort a file numerically by the second column',
    'replace text in the file',
    'the size of the file',
    'how do I extract a tar archive?',
    // After a subject, an auxiliary's next word is a verb.
    'stash my uncommitted changes so I can switch branches',
    'how to get the backup to finish faster',
    // An option of a placeholder or of the question's own words names nothing.
    'what is the option for the output file',
    'pass a flag to overwrite',
    // After a determiner or a participle the word is a noun, whatever verb follows.
    "check that a .xz compressed file isn't corrupted",
    'the file keeps growing',
  ];
  for (const q of none) t.deepEqual(shapeQuery(q).programs, [], q);
  // A long line is read for mentions only as far as a question goes, and never cut inside a word.
  t.deepEqual(shapeQuery(`how to exclude a directory when using find? ${'now '.repeat(400)}`).programs, [
    'find',
  ]);
  t.deepEqual(shapeQuery(`${'now '.repeat(400)}when using find`).programs, []);
  t.deepEqual(shapeQuery(`${'now '.repeat(247)}when using findutils`).programs, []);
});

test('programs: a program the selection shows outranks any named in its prose', (t) => {
  const ls = run('ls', ['/nonexistent-kortty']);
  // `unknown option` is output, not a program; git's usage line names git.
  const git = run('git', ['--kortty-bogus']);
  t.regex(git, /^unknown option: --kortty-bogus$/m);
  t.deepEqual(shapeQuery(git).programs, ['git']);
  // A note typed under real output (`… with sudo`) does not displace the program that failed.
  t.deepEqual(shapeQuery(`$ ls /nonexistent-kortty\n${ls}\nhow do I fix this with sudo?`).programs, ['ls']);
});

test('a shell’s && or 2>&1 anywhere makes a lone line a command; prose with two words before a path stays prose', (t) => {
  t.deepEqual(shapeQuery('ip addr add 10.0.0.5/24 dev eth1 && ip link set eth1 up').programs, [
    'ip-addr',
    'ip',
  ]);
  t.deepEqual(shapeQuery('npm ci && npm test').programs.at(-1), 'npm');
  t.is(shapeQuery('mysqldump shop orders customers > dump.sql 2>&1').programs[0], 'mysqldump');
  t.deepEqual(shapeQuery('list files in /etc').programs, []);
  // A question keeps its own reading.
  t.deepEqual(shapeQuery('how do I run make && make install?').programs, []);
  // echo prints what the command it substitutes says: that command leads.
  t.deepEqual(shapeQuery('run: echo "VERSION=$(jq -r .version package.json)" >> "$GITHUB_ENV"').programs, [
    'jq',
    'echo',
  ]);
  t.deepEqual(shapeQuery('$ echo "hello world"').programs, ['echo']);
});
