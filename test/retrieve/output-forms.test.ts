import { execFile, spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import { shapeQuery } from '../../src/retrieve/query-shape.js';
import { quietPort } from '../helpers/ports.js';
import { runProgram, scratchDirs } from '../helpers/run-program.js';

// Output that is one program's although it does not name it: each case runs the real program and
// shapes what it printed. The forms of servers and daemons that cannot run here (an ssh server's
// refusal, sudo's policy, apt's lock, a container daemon) are quoted as those programs word them.

const dirs = scratchDirs('kortty-forms-');
test.after.always(() => dirs.removeAll());
const scratch = () => dirs.make();
const run = runProgram;

/** Runs `cmd` as an unprivileged user: as nobody (util-linux's setpriv) where the suite runs as root. */
const runUnprivileged = (cmd: string, args: string[]) =>
  process.getuid?.() === 0
    ? run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', cmd, ...args])
    : run(cmd, args);

/** A one-day self-signed certificate for `cn` and its key, made by openssl req in `dir`. */
function selfSigned(dir: string, cn: string): { cert: string; key: string } {
  const cert = join(dir, `${cn}.crt`);
  const key = join(dir, `${cn}.key`);
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    `/CN=${cn}`,
    '-days',
    '1',
    '-out',
    cert,
  ]);
  return { cert, key };
}

const line = (out: string, re: RegExp) => {
  const found = out.split('\n').find((l) => re.test(l));
  if (found === undefined) throw new Error(`no line matches ${re} in:\n${out}`);
  return found;
};

test('diff, cmp, ed, bc, lz4, file, sqlite3, ldd and dd: their unnamed output names them', async (t) => {
  const dir = await scratch();
  const a = join(dir, 'a.txt');
  const b = join(dir, 'b.txt');
  await writeFile(a, 'alpha\nbeta\ngamma\n');
  await writeFile(b, 'alpha\nBETA\ngamma\n');
  const normal = run('diff', [a, b]);
  t.regex(normal, /^2c2\n< beta\n---\n> BETA$/);
  // `> BETA` is diff's new line, not a command typed at a `>` prompt.
  t.deepEqual(shapeQuery(normal).programs, ['diff']);
  const unified = run('diff', ['-u', a, b]);
  t.regex(unified, /^--- \S+a\.txt\t\d{4}-\d\d-\d\d .*\n\+\+\+ \S+b\.txt\t/);
  // `+++ b.txt` is no shell trace of a command `b.txt`.
  t.deepEqual(shapeQuery(unified).programs, ['diff']);
  t.deepEqual(shapeQuery(unified.split('\n').slice(0, 2).join('\n')).programs, ['diff']);
  // A terminal shows the header's tab as blanks, and a copy keeps the blanks.
  const shown = run('expand', [], { input: unified });
  t.notRegex(shown, /\t/);
  t.deepEqual(shapeQuery(shown).programs, ['diff']);
  t.deepEqual(shapeQuery(run('diff', ['-c', a, b])).programs, ['diff']);
  // git's own diff headers carry no time: they are git's.
  t.deepEqual(shapeQuery('diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt').programs, ['git']);
  // A shell trace three levels deep still reads as one.
  t.deepEqual(shapeQuery('+++ tar -xf a.tar\ntar: a.tar: Cannot open').programs, ['tar']);
  // Below a hunk's `@@ … @@` the `+` lines are the diff's, not a trace of commands such as
  // `ServerAliveInterval`, in colour too; the hunk ends after the lines its header counts, or at a
  // command line.
  const config = join(dir, 'ssh_config');
  await writeFile(config, 'Host *\n#   Port 22\n    SendEnv LANG LC_*\n');
  await writeFile(
    `${config}.new`,
    'Host *\n    Port 2222\n    SendEnv LANG LC_*\n    ServerAliveInterval 60\n',
  );
  for (const color of ['--color=never', '--color=always']) {
    const hunks = run('diff', ['-u', color, config, `${config}.new`]);
    t.regex(hunks, /^(?:\x1b\[\d+m)?\+ {4}ServerAliveInterval 60/m);
    t.deepEqual(shapeQuery(hunks).programs, ['diff'], color);
    const tail = '+ tar -xf a.tar\ntar: a.tar: Cannot open';
    t.is(shapeQuery(`${hunks}\n$ bash -x up.sh\n${tail}`).programs[0], 'tar', color);
    t.is(shapeQuery(`${hunks}\n${tail}`).programs[0], 'tar', `${color}, a trace after the hunk`);
  }

  const cmp = run('cmp', [a, b]);
  t.regex(cmp, /^\S+ \S+ differ: (?:byte|char) 7, line 2$/);
  t.deepEqual(shapeQuery(cmp).programs, ['cmp']);

  // ed answers every error with `?`, and says why only when asked (`H`).
  const ed = run('ed', [a], { input: '/zeta/\nq\n' });
  t.regex(ed, /^17\n\?$/);
  t.deepEqual(shapeQuery(ed).programs, ['ed']);
  const edHelp = run('ed', [a], { input: 'H\n/zeta/\nq\n' });
  t.regex(edHelp, /^No match$/m);
  t.deepEqual(shapeQuery(edHelp).programs, ['ed']);

  const divide = run('bc', [], { input: '1/0\n' });
  t.regex(divide, /^Runtime error \(func=\(main\), adr=\d+\): Divide by zero$/);
  const parse = run('bc', [], { input: 'x = = 2\n' });
  t.regex(parse, /^\(standard_in\) 1: syntax error$/m);
  for (const out of [divide, parse]) t.deepEqual(shapeQuery(out).programs, ['bc'], out);

  const packed = run('lz4', ['-c'], { input: Buffer.from('kortty '.repeat(200)) });
  const truncated = join(dir, 'cut.lz4');
  await writeFile(truncated, Buffer.from(packed, 'latin1').subarray(0, 12));
  const lz4 = run('lz4', ['-d', '-c', truncated]);
  t.regex(lz4, /^Error \d+ : /m);
  t.deepEqual(shapeQuery(line(lz4, /^Error /)).programs, ['lz4']);

  // file quotes the name it cannot open; the sqlite3 shell words a file that is no database.
  const file = run('file', [join(dir, 'firmware.bin')]);
  t.regex(file, /: cannot open `\S+firmware\.bin' \(No such file or directory\)$/);
  t.deepEqual(shapeQuery(file).programs, ['file']);
  // SQLite reads a file of a page or more as a database: a shorter one is an empty database.
  const notes = join(dir, 'notes.db');
  await writeFile(notes, 'plain text, no database\n'.repeat(100));
  const sqlite = run('sqlite3', [notes, '.tables']);
  t.is(sqlite, 'Error: file is not a database');
  t.deepEqual(shapeQuery(sqlite).programs, ['sqlite3']);

  const ldd = run('ldd', [a]);
  t.regex(ldd, /^\tnot a dynamic executable$/);
  t.deepEqual(shapeQuery(ldd).programs, ['ldd']);

  // dd's summary: records in and out (whole+partial blocks), then bytes, time and rate.
  const dd = run('dd', ['if=/dev/zero', `of=${join(dir, 'zero.img')}`, 'bs=4096', 'count=3']);
  t.regex(dd, /^3\+0 records in\n3\+0 records out\n12288 bytes \(12 kB, 12 KiB\) copied, [\d.]+ s, /);
  t.deepEqual(shapeQuery(dd).programs, ['dd']);
  for (const l of dd.split('\n')) t.deepEqual(shapeQuery(l).programs, ['dd'], l);
  const small = run('dd', ['if=/dev/zero', `of=${join(dir, 'small.img')}`, 'bs=100', 'count=1']);
  t.regex(small, /^100 bytes copied, /m);
  t.deepEqual(shapeQuery(line(small, /bytes copied/)).programs, ['dd']);
});

test('gcc: diagnostics at a source line, the function they arose in, the driver’s last words', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'undeclared.c'), 'int main(void) { return missing; }\n');
  await writeFile(join(dir, 'include.c'), '#include <kortty_no_such.h>\n');
  await writeFile(join(dir, 'link.c'), 'int f(void);\nint main(void) { return f(); }\n');
  const undeclared = run('gcc', ['-c', 'undeclared.c'], { cwd: dir });
  t.regex(undeclared, /^undeclared\.c: In function 'main':$/m);
  t.regex(undeclared, /^undeclared\.c:1:\d+: error: 'missing' undeclared/m);
  const include = run('gcc', ['-c', 'include.c'], { cwd: dir });
  t.regex(include, /^include\.c:1:10: fatal error: kortty_no_such\.h: No such file or directory$/m);
  t.regex(include, /^compilation terminated\.$/m);
  // GCC's page first, then the names it is also run by (a store may hold only those pages).
  const cc = ['gcc', 'cc', 'c99'];
  for (const out of [undeclared, include]) t.deepEqual(shapeQuery(out).programs, cc, out);
  t.deepEqual(shapeQuery(line(undeclared, /error:/)).programs, cc);
  // The link fails in ld, which names itself, and the driver says so: ld leads, gcc follows.
  const link = run('gcc', ['link.c', '-o', 'link'], { cwd: dir });
  t.regex(link, /^collect2: error: ld returned 1 exit status$/m);
  t.is(shapeQuery(link).programs[0], 'ld', link);
  t.true(shapeQuery(link).programs.includes('gcc'), link);
  // A script's `file:line:col:` with no C suffix is no compiler's.
  t.deepEqual(shapeQuery('app.py:3:1: error: something failed').programs, []);
});

/** A new repository (branch main) in a scratch directory, and git run in it as a set-up user. */
async function scratchRepo() {
  const dir = await scratch();
  const env = { HOME: dir, GIT_CEILING_DIRECTORIES: dir, GIT_CONFIG_NOSYSTEM: '1' };
  const repo = join(dir, 'repo');
  run('git', ['-c', 'init.defaultBranch=main', 'init', '-q', repo], { env });
  const git = (...args: string[]) =>
    run('git', ['-C', repo, '-c', 'user.name=k', '-c', 'user.email=k@example.org', ...args], { env });
  /** Writes `file` in the repository and commits it with `message`. */
  const commit = async (file: string, text: string, message: string) => {
    await writeFile(join(repo, file), text);
    git('add', file);
    git('commit', '-q', '-m', message);
  };
  return { dir, env, repo, git, commit };
}

test('git: status, progress and advice lines that carry no name', async (t) => {
  const { dir, env, repo, git, commit } = await scratchRepo();
  await commit('f.txt', 'one\n', 'one');
  const outs = [
    line(git('checkout', 'kortty-no-such'), /^error: pathspec /),
    git('switch', '-c', 'topic'),
    git('status'),
    line(run('git', ['clone', repo, join(dir, 'copy')], { env }), /^Cloning into /),
  ];
  await commit('f.txt', 'topic\n', 'topic');
  git('switch', '-q', 'main');
  await commit('f.txt', 'main\n', 'main');
  outs.push(git('merge', 'topic'));
  t.regex(outs[0]!, /did not match any file\(s\) known to git$/);
  t.is(outs[1], "Switched to a new branch 'topic'");
  t.regex(outs[2]!, /^On branch topic\nnothing to commit, working tree clean$/);
  t.regex(outs[4]!, /^CONFLICT \(content\): Merge conflict in f\.txt$/m);
  t.regex(outs[4]!, /^Automatic merge failed; fix conflicts/m);
  t.deepEqual(shapeQuery(outs[0]!).programs, ['git', 'git-checkout', 'git-restore'], outs[0]);
  // status's report is documented on its own page too.
  t.deepEqual(shapeQuery(outs[2]!).programs, ['git', 'git-status'], outs[2]);
  for (const out of [outs[1]!, ...outs.slice(3)]) t.deepEqual(shapeQuery(out).programs, ['git'], out);
});

test('git status -sb, stash, stash list, branch -v, worktree list, diffstat and a combined diff', async (t) => {
  const { dir, env, repo, git, commit } = await scratchRepo();
  await commit('f.txt', 'one\n', 'one');
  const bare = join(dir, 'origin.git');
  run('git', ['clone', '-q', '--bare', repo, bare], { env });
  git('remote', 'add', 'origin', bare);
  git('fetch', '-q', 'origin');
  git('branch', '-q', '--set-upstream-to=origin/main');
  await commit('f.txt', 'two\n', 'two');
  const short = git('status', '-sb');
  t.is(short, '## main...origin/main [ahead 1]');
  t.deepEqual(shapeQuery(short).programs, ['git', 'git-status']);
  const status = git('status');
  t.regex(status, /^Your branch is ahead of 'origin\/main' by 1 commit\.$/m);
  t.deepEqual(shapeQuery(status).programs.slice(0, 2), ['git', 'git-status'], status);
  await writeFile(join(repo, 'f.txt'), 'three\n');
  const saved = git('stash', 'push', '-m', 'try new format');
  t.regex(saved, /^Saved working directory and index state On main: try new format$/);
  t.deepEqual(shapeQuery(saved).programs, ['git', 'git-stash']);
  const stashes = git('stash', 'list');
  t.is(stashes, 'stash@{0}: On main: try new format');
  t.deepEqual(shapeQuery(stashes).programs, ['git-stash', 'git']);
  git('branch', '-q', 'topic', 'HEAD~1');
  const branches = git('branch', '-vv');
  t.regex(branches, /^\* main +[0-9a-f]{7,} \[origin\/main: ahead 1\] two$/m);
  t.regex(branches, /^ {2}topic +[0-9a-f]{7,} one$/m);
  t.deepEqual(shapeQuery(branches).programs, ['git-branch', 'git'], branches);
  git('worktree', 'add', '-q', join(dir, 'wt'), 'topic');
  const trees = git('worktree', 'list');
  t.regex(trees, /^\/\S+\/wt +[0-9a-f]{7,} \[topic\]$/m);
  t.deepEqual(shapeQuery(trees).programs, ['git-worktree', 'git'], trees);
  const stat = git('diff', '--stat', 'HEAD~1');
  t.regex(stat, /^ f\.txt \| 2 \+-\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)$/);
  t.deepEqual(shapeQuery(stat).programs, ['git']);
  // A merge that conflicts: git diff shows both sides at once, a combined diff.
  git('stash', 'drop', '-q');
  git('switch', '-q', '-c', 'side', 'topic');
  await commit('f.txt', 'side\n', 'side');
  git('switch', '-q', 'main');
  git('merge', 'side');
  const combined = git('diff');
  t.regex(combined, /^diff --cc f\.txt\n/);
  t.regex(combined, /^@@@ -1,1 -1,1 \+1,5 @@@$/m);
  t.deepEqual(shapeQuery(combined).programs.slice(0, 1), ['git'], combined);
  // Look-alikes: a Markdown heading, a table row, a path and a word after a hex-looking word.
  for (const other of ['## Installation', '/srv/www 2026 [prod]', '  build 1234567 done'])
    t.deepEqual(shapeQuery(other).programs, [], other);
});

test('ss without a state column and ss -s, su at its prompt, systemctl’s unknown verb, systemd-analyze timespan, openssl’s key search and passwd -S', async (t) => {
  const established = run('ss', ['-tn', 'state', 'established']);
  t.regex(established, /^Recv-Q +Send-Q +Local Address:Port +Peer Address:Port ?Process/);
  t.deepEqual(shapeQuery(established).programs.slice(0, 1), ['ss']);
  const summary = run('ss', ['-s']);
  t.regex(summary, /^TCP: +\d+ \(estab \d+, closed \d+, orphaned \d+, timewait \d+\)$/m);
  t.deepEqual(shapeQuery(summary).programs, ['ss'], summary);
  // su asks for a password on its terminal; with none, the verdict follows the prompt on one line.
  const su = runUnprivileged('su', ['-c', 'true', 'root']);
  t.regex(su, /^Password: su: Authentication failure$/m);
  t.deepEqual(shapeQuery(su).programs, ['su']);
  const verb = run('systemctl', ['stauts', 'nginx']);
  t.regex(verb, /^Unknown command verb '?stauts'?\.$/m);
  t.deepEqual(shapeQuery(verb).programs, ['systemctl']);
  const span = run('systemd-analyze', ['timespan', '90min']);
  // μs in a UTF-8 locale, us in C.
  t.regex(span, /^Original: 90min\n +us: 5400000000\n +Human: 1h 30min$/);
  t.deepEqual(shapeQuery(span.replace('us:', 'μs:')).programs, ['systemd-analyze']);
  t.deepEqual(shapeQuery(span).programs, ['systemd-analyze']);
  const dir = await scratch();
  const key = join(dir, 'k.pem');
  const cert = join(dir, 'c.pem');
  const search = run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:1024',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    '/CN=k',
    '-out',
    cert,
  ]);
  t.regex(search, /^[.+*]{16,}$/m);
  t.deepEqual(shapeQuery(search).programs, ['openssl'], search);
  const locked = run('passwd', ['-S', 'nobody']);
  t.regex(locked, /^nobody (?:L|LK|P|NP) \d{4}-\d\d-\d\d \d+ \d+ \d+ -?\d+$/);
  t.deepEqual(shapeQuery(locked).programs, ['passwd']);
  // The JVM's refusal of its options, as java words it (no JVM is installed for the suite).
  const jvm =
    'Invalid maximum heap size: -Xmx4gb\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.';
  t.deepEqual(shapeQuery(jvm).programs, ['java']);
  t.deepEqual(
    shapeQuery('Unrecognized option: -verbosee\nError: Could not create the Java Virtual Machine.').programs,
    ['java'],
  );
  // GNU getopt's refusal is the program's own, quoted and lowercase: no JVM's.
  t.deepEqual(shapeQuery("ls: unrecognized option '--colour-me'").programs, ['ls']);
  // A rule of dashes, dots in prose and a row of numbers are no key search or status.
  for (const other of ['-----', '................', 'alice 12 2026-01-01 0 99999 7 -1'])
    t.deepEqual(shapeQuery(other).programs, [], other);
});

test('gunzip and zcat sign their errors as gzip, unzstd as zstd: the command that failed leads the listing above it', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'data.json.gz'), '{"not": "gzip"}\n');
  await writeFile(join(dir, 'db.zst'), 'plain\n');
  const gunzip = run('gunzip', ['data.json.gz'], { cwd: dir });
  t.is(gunzip, '\ngzip: data.json.gz: not in gzip format');
  const listing = run('ls', ['-l'], { cwd: dir });
  t.deepEqual(shapeQuery(`$ ls -l\n${listing}\n$ gunzip data.json.gz\n${gunzip}`).programs, [
    'gunzip',
    'gzip',
    'ls',
  ]);
  const zcat = run('zcat', ['data.json.gz'], { cwd: dir });
  t.regex(zcat, /^gzip: data\.json\.gz: not in gzip format$/m);
  t.deepEqual(shapeQuery(`$ ls\ndata.json.gz\n$ zcat data.json.gz\n${zcat}`).programs.slice(0, 2), [
    'zcat',
    'gzip',
  ]);
  const unzstd = run('unzstd', ['db.zst'], { cwd: dir });
  t.regex(unzstd, /^zstd: db\.zst: (?:unsupported format|unknown header) ?$/m);
  t.deepEqual(shapeQuery(`$ ls\ndb.zst\n$ unzstd db.zst\n${unzstd}`).programs.slice(0, 2), [
    'unzstd',
    'zstd',
  ]);
});

test('git log and stat: a commit header and a file status name their programs', async (t) => {
  const { dir, repo, git, commit } = await scratchRepo();
  await commit('f.txt', 'one\n', 'Document how to run tests');
  const log = git('log', '--stat', '--decorate');
  t.regex(log, /^commit [0-9a-f]{40} \(HEAD -> main\)\nAuthor: .+\nDate: /);
  t.deepEqual(shapeQuery(log).programs, ['git-log', 'git'], log);
  t.deepEqual(shapeQuery(git('log', '--no-decorate')).programs, ['git-log', 'git']);
  const stat = run('stat', [join(repo, 'f.txt'), dir]);
  t.regex(stat, /^ {2}Size: 4\s+Blocks: \d+\s+IO Block: \d+\s+regular file$/m);
  t.deepEqual(shapeQuery(stat).programs, ['stat'], stat);
  // The words alone name nobody: a commit in prose, a size in a listing of another layout.
  t.deepEqual(shapeQuery('commit the change and push').programs, []);
  t.deepEqual(shapeQuery('Size: 4 bytes, Blocks: 1').programs, []);
});

test('git reflog, binary files, tree, whatis and ip: their unnamed output names them', async (t) => {
  const { dir, git, commit } = await scratchRepo();
  await commit('f.txt', 'one\n', 'one');
  git('checkout', '-q', '-b', 'topic');
  git('commit', '-q', '--amend', '-m', 'one, amended');
  const reflog = git('reflog');
  t.regex(reflog, /^[0-9a-f]{7,} HEAD@\{0\}: commit \(amend\): one, amended$/m);
  t.deepEqual(shapeQuery(reflog).programs, ['git-reflog', 'git'], reflog);
  t.deepEqual(shapeQuery(git('log', '-g', '--oneline', '--date=iso')).programs, ['git-reflog', 'git']);
  const a = join(dir, 'a.bin');
  const b = join(dir, 'b.bin');
  await writeFile(a, Buffer.from([0, 1, 2, 3]));
  await writeFile(b, Buffer.from([0, 1, 2, 4]));
  const binary = run('diff', [a, b]);
  t.regex(binary, /^Binary files \S+a\.bin and \S+b\.bin differ$/);
  t.deepEqual(shapeQuery(binary).programs, ['diff']);
  await commit('src.c', 'int main(void) { return 0; }\n', 'src');
  for (const env of [{ LC_ALL: 'C.UTF-8' }, { LC_ALL: 'C' }]) {
    const drawn = run('tree', ['-a', '-I', '.git', dir], { env });
    t.regex(drawn, /^(?:[├└]──|[|`]--) repo$/m);
    t.deepEqual(shapeQuery(drawn).programs, ['tree'], drawn);
  }
  const none = run('whatis', ['kortty-no-such-page']);
  t.regex(none, /^kortty-no-such-page: nothing appropriate\.?$/);
  t.deepEqual(shapeQuery(none).programs, ['whatis', 'apropos']);
  // ip checks its arguments before it asks the kernel anything, so these run unprivileged.
  t.deepEqual(shapeQuery(run('ip', ['route', 'get', '300.1.1.1'])).programs, [
    'ip',
    'ip-route',
    'ip-address',
  ]);
  const device = run('ip', ['address', 'show', 'dev', 'kortty0']);
  t.regex(device, /^Device "kortty0" does not exist\.$/);
  t.deepEqual(shapeQuery(device).programs, ['ip', 'ip-link', 'ip-address']);
  t.deepEqual(shapeQuery(run('ip', ['kortty'])).programs, ['ip']);
  // Trees other programs draw with one dash, and prose about binaries, name nobody here.
  t.deepEqual(shapeQuery('├─sda1   8:1    0  512M  0 part /boot/efi').programs, []);
  t.deepEqual(shapeQuery('Binary files are not text').programs, []);
});

test('git blame, strace -c, the dynamic loader, ssh’s port and journalctl’s range: their output names them', async (t) => {
  const { dir, repo, git, commit } = await scratchRepo();
  await commit('vat.py', 'import os\nRATE = 0.19\n', 'one');
  await commit('vat.py', 'import os\nRATE = 0.07\n', 'two');
  const blame = git('blame', 'vat.py');
  t.regex(blame, /^\^?[0-9a-f]{7,} \(k +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} +2\) RATE = 0\.07$/m);
  t.deepEqual(shapeQuery(blame).programs, ['git-blame', 'git'], blame);
  // strace -c's header opens with `%`, which is no zsh prompt there.
  const summary = run('strace', ['-c', 'true']);
  t.regex(summary, /^% time +seconds +usecs\/call +calls +errors +syscall$/m);
  t.deepEqual(shapeQuery(summary).programs, ['strace'], summary);
  t.deepEqual(shapeQuery('% tar -xf a.tar').programs, ['tar'], 'a zsh prompt is still one');
  // A program whose shared library is gone: the loader refuses to start it.
  await writeFile(join(dir, 'k.c'), 'int k(void) { return 0; }\n');
  await writeFile(join(dir, 'main.c'), 'int k(void);\nint main(void) { return k(); }\n');
  run('gcc', ['-shared', '-fPIC', '-o', 'libkortty.so', 'k.c'], { cwd: dir });
  run('gcc', ['-o', 'invoice', 'main.c', '-L.', '-lkortty'], { cwd: dir });
  const loader = run(join(dir, 'invoice'), [], { cwd: dir, env: { LD_LIBRARY_PATH: '' } });
  t.regex(loader, /: error while loading shared libraries: libkortty\.so: cannot open shared object file/);
  t.deepEqual(shapeQuery(loader).programs, ['ld-linux', 'ld.so', 'ldd'], loader);
  const port = run('ssh', ['-F', '/dev/null', '-p', '22a', '127.0.0.1']);
  t.is(port, "Bad port '22a'");
  t.deepEqual(shapeQuery(port).programs, ['ssh']);
  const range = run('journalctl', ['--since', '2024-01-02', '--until', '2024-01-01']);
  t.is(range, '--since= must be before --until=.');
  t.deepEqual(shapeQuery(range).programs, ['journalctl']);
  const format = run('journalctl', ['-o', 'jsn']);
  t.is(format, "Unknown output format 'jsn'.");
  t.deepEqual(shapeQuery(format).programs, ['journalctl']);
  // branch's refusals to delete, and diff --check's whitespace errors.
  t.regex(git('branch', '-d', 'main'), /^error: Cannot delete branch 'main' checked out at '/);
  t.deepEqual(shapeQuery(git('branch', '-d', 'main')).programs, ['git', 'git-branch']);
  t.deepEqual(shapeQuery(git('branch', '-d', 'kortty-none')).programs, ['git', 'git-branch']);
  git('checkout', '-q', '-b', 'topic');
  await commit('vat.py', 'import os\nRATE = 0.05\n', 'three');
  git('checkout', '-q', 'main');
  const unmerged = git('branch', '-d', 'topic');
  t.regex(unmerged, /^error: The branch 'topic' is not fully merged/i);
  t.deepEqual(shapeQuery(unmerged).programs.slice(0, 2), ['git', 'git-branch'], unmerged);
  await writeFile(join(repo, 'vat.py'), 'import os \nRATE = 0.07\n');
  const check = git('diff', '--check');
  t.regex(check, /^vat\.py:1: trailing whitespace\.$/m);
  t.deepEqual(shapeQuery(check).programs, ['git', 'git-diff'], check);
});

test('git: wordings of one subcommand name git, then that subcommand’s page', async (t) => {
  const { dir, env, repo, git, commit } = await scratchRepo();
  const unborn = git('log');
  await commit('f.txt', 'one\n', 'one');
  git('branch', 'topic');
  git('switch', '-q', 'topic');
  await commit('f.txt', 'topic\n', 'topic');
  git('switch', '-q', 'main');
  await writeFile(join(repo, 'f.txt'), 'local change\n');
  const cases: Array<[string, RegExp, string[]]> = [
    [unborn, /^fatal: your current branch 'main' does not have any commits yet$/, ['git', 'git-log']],
    [
      git('switch', 'kortty-no-such'),
      /^fatal: invalid reference: kortty-no-such$/,
      ['git', 'git-switch', 'git-checkout'],
    ],
    [
      git('log', 'mian'),
      /^fatal: ambiguous argument 'mian': unknown revision or path not in the working tree\.$/m,
      ['git', 'git-rev-parse', 'git-log'],
    ],
    [
      git('update-index', '--assume-unchanged', 'kortty-missing.yml'),
      /^fatal: Unable to mark file kortty-missing\.yml$/,
      ['git', 'git-update-index'],
    ],
    [git('stash', 'pop'), /^No stash entries found\.$/, ['git', 'git-stash']],
    [
      git('rebase', 'topic'),
      /^error: cannot rebase: You have unstaged changes\.\nerror: Please commit or stash them\.$/,
      ['git', 'git-rebase'],
    ],
    [
      git('pull', '--rebase'),
      /^error: cannot pull with rebase: You have unstaged changes\./,
      ['git', 'git-pull'],
    ],
    [git('config', 'user'), /^error: key does not contain a section: user$/, ['git', 'git-config']],
    [
      git('checkout', 'topic'),
      /^error: Your local changes to the following files would be overwritten by checkout:$/m,
      ['git', 'git-checkout', 'git-switch'],
    ],
    [
      git('merge', 'topic'),
      /^error: Your local changes to the following files would be overwritten by merge:$/m,
      ['git', 'git-merge', 'git-pull'],
    ],
  ];
  for (const [out, re, programs] of cases) {
    t.regex(out, re);
    t.deepEqual(shapeQuery(out).programs, programs, out);
  }
  // With the command shown, the subcommand's page leads: its command line names it first.
  t.deepEqual(shapeQuery(`user@host:~/repo$ git stash pop\n${cases[4]![0]}`).programs, ['git-stash', 'git']);
  // Also below other git commands that worked: the one that failed leads, then git.
  const scrollback = [
    `$ git status\n${git('status')}`,
    `$ git log --oneline -3\n${git('log', '--oneline', '-3')}`,
    `$ git switch kortty-no-such\n${git('switch', 'kortty-no-such')}`,
  ].join('\n');
  t.regex(scrollback, /^fatal: invalid reference: kortty-no-such$/m);
  t.deepEqual(shapeQuery(scrollback).programs.slice(0, 2), ['git-switch', 'git'], scrollback);
  // One git command alone: its error decides, and a missing repository is git's.
  const outside = run('git', ['-C', dir, 'log'], { env });
  t.regex(outside, /^fatal: not a git repository/);
  t.is(shapeQuery(`$ git log\n${outside}`).programs[0], 'git');
});

test('patch, zip, unzip, rsync, wget, dig, ls, tar, man, ps, df and free: their own wordings and table headers', async (t) => {
  const dir = await scratch();
  const a = join(dir, 'a.txt');
  await writeFile(a, 'alpha\nbeta\n');
  await writeFile(join(dir, 'fix.diff'), '--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n alpha\n-zeta\n+ZETA\n');
  const patch = run('patch', ['-p0', '-i', 'fix.diff', '--dry-run'], { cwd: dir });
  t.regex(patch, /^checking file a\.txt\nHunk #1 FAILED at 1\.\n1 out of 1 hunk FAILED$/);
  t.deepEqual(shapeQuery(patch).programs, ['patch']);

  const zip = run('zip', ['a.zip', 'a.txt'], { cwd: dir });
  t.regex(zip, /^ {2}adding: a\.txt \((?:stored|deflated) \d+%\)$/);
  t.deepEqual(shapeQuery(zip).programs, ['zip']);
  const unzip = run('unzip', ['-o', 'a.zip', '-d', 'out'], { cwd: dir });
  t.regex(unzip, /^Archive: {2}a\.zip\n {1,2}(?:inflating|extracting): /);
  t.deepEqual(shapeQuery(unzip).programs, ['unzip']);

  const rsync = run('rsync', ['-av', 'a.txt', 'copy.txt'], { cwd: dir });
  t.regex(rsync, /^sending incremental file list$/m);
  t.regex(rsync, /^total size is \d+ {2}speedup is /m);
  t.deepEqual(shapeQuery(rsync).programs, ['rsync']);

  const refused = run('wget', ['-O', '/dev/null', 'http://127.0.0.1:1/x']);
  const connecting = line(refused, /^Connecting to /);
  t.regex(connecting, /\.\.\. failed: Connection refused\.$/);
  t.deepEqual(shapeQuery(connecting).programs, ['wget']);
  const unresolved = run('wget', ['-O', '/dev/null', 'http://kortty.invalid/']);
  t.deepEqual(shapeQuery(line(unresolved, /^Resolving /)).programs, ['wget'], unresolved);

  // dig's comments, as dig 9.18 prints a refused query (dig is not installed here: installing it
  // would change the man pages the eval samples): shaping strips their semicolons, the form is
  // read before it does.
  const dig =
    ';; communications error to 127.0.0.1#1: connection refused\n\n' +
    '; <<>> DiG 9.18.49-1~deb12u3-Debian <<>> @127.0.0.1 -p 1 example.org +tries=1\n' +
    '; (1 server found)\n;; global options: +cmd\n;; no servers could be reached';
  t.deepEqual(shapeQuery(dig).programs, ['dig', 'nslookup']);
  t.deepEqual(shapeQuery(line(dig, /communications error/)).programs, ['dig', 'nslookup']);

  // Long listings: ls's (links, owner, group) and tar's (owner/group). Each names its program and
  // keeps only the names it lists: modes, owners, sizes and dates are in every listing.
  await writeFile(join(dir, 'b.txt'), 'beta\n');
  const ls = run('ls', ['-la', dir]);
  t.regex(ls, /^total \d+\n[-d]r[-w][-x]/);
  t.deepEqual(shapeQuery(ls).programs, ['ls']);
  run('tar', ['-cf', 'a.tar', 'a.txt', 'b.txt'], { cwd: dir });
  const tarList = run('tar', ['-tvf', 'a.tar'], { cwd: dir });
  t.regex(tarList, /^-rw-r--r-- \S+\/\S+ +\d+ \d{4}-\d\d-\d\d \d\d:\d\d a\.txt$/m);
  t.deepEqual(shapeQuery(tarList).programs, ['tar']);
  t.is(shapeQuery(tarList).query, 'a.txt\nb.txt');
});

test('openssl: a command that names itself leads openssl, whose error queue follows it', (t) => {
  const dgst = run('openssl', ['dgst', '-sha265', '/dev/null']);
  t.regex(
    dgst,
    /^dgst: Unknown option or message digest: sha265\ndgst: Use -help for summary\.\n[0-9A-F]+:error:/,
  );
  t.deepEqual(shapeQuery(dgst).programs, ['openssl-dgst', 'openssl']);
  t.deepEqual(shapeQuery(`$ openssl dgst -sha265 /dev/null\n${dgst}`).programs, ['openssl-dgst', 'openssl']);
  const enc = run('openssl', ['enc', '-aes-256-cbd']);
  t.regex(enc, /^enc: Unknown cipher: aes-256-cbd\nenc: Use -help for summary\.$/m);
  t.deepEqual(shapeQuery(enc).programs, ['openssl-enc', 'openssl']);
  // Without the command's own lines, OpenSSL's error queue is openssl's.
  const refused = run('openssl', ['s_client', '-connect', '127.0.0.1:1'], { input: '' });
  t.regex(refused, /:error:[0-9A-F]+:system library:BIO_connect:Connection refused/);
  t.is(shapeQuery(`$ openssl s_client -connect 127.0.0.1:1\n${refused}`).programs[0], 'openssl');
});

test('openssl: the printout of a certificate names x509, of a request req', async (t) => {
  const dir = await scratch();
  const key = join(dir, 'key.pem');
  const csr = join(dir, 'req.pem');
  const cert = join(dir, 'cert.pem');
  run('openssl', [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-subj',
    '/CN=devbox.local',
    '-addext',
    'subjectAltName=DNS:devbox.local',
    '-out',
    csr,
  ]);
  run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-key',
    key,
    '-days',
    '1',
    '-copy_extensions',
    'copy',
    '-out',
    cert,
  ]);
  const text = run('openssl', ['x509', '-in', cert, '-noout', '-text']);
  t.regex(text, /^Certificate:\n {4}Data:\n/);
  t.regex(text, /^ {8}Subject Public Key Info:$/m);
  t.regex(text, /^ {8}X509v3 extensions:$/m);
  // Nothing in it names a program: no `prog: `, no command. Its byte lists (serial, modulus,
  // signature, key identifiers) go whole, so no fragment of one (`e9: …` once its neighbours went)
  // reads as a program's line; they had made every fifth printout name one.
  const shaped = shapeQuery(text);
  t.deepEqual(shaped.programs, ['openssl-x509', 'openssl']);
  t.notRegex(shaped.query, /[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}/i);
  t.true(shaped.dropped.hex >= 10, JSON.stringify(shaped.dropped));
  t.is(shaped.dropped.gutters, 0);
  // A list's last line holds fewer pairs and goes with it: `21:07` had read as a gutter's line 21.
  const tail = shapeQuery(
    'Modulus:\n    00:99:34:be:46:d8:f4:80:cf:d9:1c:8c:7f:d1:df:\n    21:07\nExponent: 65537 (0x10001)',
  );
  t.is(tail.query, 'Modulus:\nExponent:');
  t.deepEqual([tail.dropped.hex, tail.dropped.gutters], [3, 0]);
  const request = run('openssl', ['req', '-in', csr, '-noout', '-text']);
  t.regex(request, /^Certificate Request:\n/);
  t.deepEqual(shapeQuery(request).programs.slice(0, 2), ['openssl-req', 'openssl']);
  // The words alone are no printout: a sentence about certificates names nothing.
  t.deepEqual(shapeQuery('Certificate: the server sent an expired one').programs, []);
});

test('ls -l and tar -tv: a listing names its program and leaves only the names it lists', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'Makefile'), 'all:\n');
  await writeFile(join(dir, 'main.c'), 'int main(void) { return 0; }\n');
  // A year instead of a time for a file older than six months, a symlink's target, a subdirectory.
  run('touch', ['-d', '2019-03-04 05:06', join(dir, 'main.c')]);
  run('ln', ['-s', 'main.c', join(dir, 'link.c')]);
  run('mkdir', [join(dir, 'src')]);
  const names = 'Makefile\nlink.c -> main.c\nmain.c\nsrc';
  const variants: string[][] = [
    ['-l'],
    ['-la', '--color=always'],
    ['-lh'],
    ['-li'],
    ['-ls'],
    ['-ln'],
    ['-lo'],
    ['-lg'],
    ['-l', '--time-style=long-iso'],
    ['-l', '--time-style=full-iso'],
    ['-l', '--time-style=iso'],
  ];
  for (const args of variants) {
    const out = run('ls', [...args, dir]);
    t.regex(out, /^total \d+/, args.join(' '));
    const shaped = shapeQuery(out);
    t.deepEqual(shaped.programs, ['ls'], `${args.join(' ')}:\n${out}`);
    t.is(shaped.query.replace(/^\.\n\.\.\n/, ''), names, `${args.join(' ')}:\n${out}`);
    // Every line lost its columns, and `total` went with them.
    t.is(shaped.dropped.listings, out.split('\n').length, args.join(' '));
  }
  // A device's major and minor numbers stand where a size does.
  const dev = run('ls', ['-l', '/dev/null']);
  t.regex(dev, /^crw-rw-rw- 1 \S+ \S+ +1, +3 /);
  t.is(shapeQuery(dev).query, '/dev/null');

  // Under the command that failed, the listing above it weighs as plain output and adds no words
  // but the names.
  const scrollback = `$ ls -l\n${run('ls', ['-l', dir])}\n$ make -C ${dir} nothing\n${run('make', ['-C', dir, 'nothing'])}`;
  const shaped = shapeQuery(scrollback);
  t.is(shaped.programs[0], 'make', scrollback);
  t.notRegex(shaped.query, /rw-r|total|2019/);

  // gzip's verdict on a cut-off file has no error word, and is one all the same.
  const whole = join(dir, 'dump.sql.gz');
  run('gzip', ['-k', join(dir, 'main.c')]);
  const gz = await readFile(`${join(dir, 'main.c')}.gz`);
  await writeFile(whole, gz.subarray(0, gz.length - 8));
  const gunzip = run('gzip', ['-d', whole]);
  t.regex(gunzip, /^gzip: \S+dump\.sql\.gz: unexpected end of file$/m);
  const cutOff = `$ ls -l\n${run('ls', ['-l', dir])}\n$ gzip -d dump.sql.gz\n${gunzip}`;
  t.is(shapeQuery(cutOff).programs[0], 'gzip', cutOff);

  run('tar', ['-cf', join(dir, 'all.tar'), '-C', dir, 'Makefile', 'main.c', 'src'], {});
  const tarList = run('tar', ['-tvf', join(dir, 'all.tar')]);
  t.regex(tarList, /^drwx\S+ \S+\/\S+ +0 \d{4}-\d\d-\d\d \d\d:\d\d src\/$/m);
  const tarShaped = shapeQuery(tarList);
  t.deepEqual(tarShaped.programs, ['tar']);
  t.is(tarShaped.query, 'Makefile\nmain.c\nsrc/');

  const man = run('man', ['kortty-no-such-page']);
  t.is(man, 'No manual entry for kortty-no-such-page');
  t.deepEqual(shapeQuery(man).programs, ['man']);

  const ps = run('ps', ['-o', 'pid,tty,time,cmd', '-p', String(process.pid)]);
  t.regex(ps, /^ *PID TT +TIME CMD$/m);
  t.deepEqual(shapeQuery(run('ps', ['-p', String(process.pid)])).programs, ['ps']);
  const df = run('df', ['-h', dir]);
  t.regex(df, /^Filesystem +Size +Used +Avail +Use% +Mounted on$/m);
  t.deepEqual(shapeQuery(df).programs, ['df']);
  const free = run('free', []);
  t.deepEqual(shapeQuery(free.split('\n')[0]!).programs, ['free'], free);
});

test('ssh and its tools: the agent and key generation; a server’s refusals as ssh words them; ssh inside scp, rsync and git', async (t) => {
  const dir = await scratch();
  const agent = run('ssh-add', ['-l'], { env: { HOME: dir, SSH_AUTH_SOCK: '' } });
  t.regex(
    agent,
    /^(?:Could not open a connection to your authentication agent\.|Error connecting to agent: )/,
  );
  t.deepEqual(shapeQuery(agent).programs, ['ssh-add']);
  // ssh's verdict on an option given with -o (its `command-line: line 0`); it exits before connecting.
  const option = run('ssh', ['-F', '/dev/null', '-o', 'StrictHostKeyCheckin=no', '127.0.0.1']);
  t.regex(option, /^command-line: line 0: Bad configuration option: stricthostkeycheckin\r?$/);
  t.deepEqual(shapeQuery(option).programs, ['ssh']);
  await writeFile(join(dir, 'ssh_config'), 'Host build\n  Hostnmae 10.0.0.5\n');
  const config = run('ssh', ['-F', join(dir, 'ssh_config'), 'build']);
  t.regex(
    config,
    /: line 2: Bad configuration option: hostnmae\r?\n.*: terminating, 1 bad configuration options\r?$/,
  );
  t.deepEqual(shapeQuery(config).programs, ['ssh']);
  const keygen = run('ssh-keygen', ['-t', 'ed25519', '-N', '', '-C', 'k', '-f', join(dir, 'id')]);
  t.regex(keygen, /^Generating public\/private ed25519 key pair\.$/m);
  t.deepEqual(shapeQuery(keygen).programs, ['ssh-keygen']);
  // Its randomart may hold a `#` that starts a row once the box's edge goes: no root prompt.
  const art = keygen.replace(/^\|.*\|$/m, '|   # o .         |');
  t.regex(art, /^\| {3}# o \. {9}\|$/m);
  t.deepEqual(shapeQuery(art).programs, ['ssh-keygen']);
  // Or a row that opens with `++` once its edge goes: no shell trace of a command `O`.
  const traced = keygen.replace(/^\|.*\|$/m, '|++ O + * o       |');
  t.regex(traced, /^\|\+\+ O \+ \* o {7}\|$/m);
  t.deepEqual(shapeQuery(traced).programs, ['ssh-keygen']);
  // ssh's refusal inside the program that ran it: that program leads (port 1 is closed, as in
  // the wget case).
  const ssh = ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5'];
  const scp = run('scp', ['-P', '1', ...ssh, join(dir, 'id.pub'), '127.0.0.1:/tmp/']);
  // ssh ends its lines with CRLF here; the last line's CR overwrote nothing.
  t.regex(scp, /^ssh: connect to host 127\.0\.0\.1 port 1: Connection refused\r?\nscp: /);
  t.deepEqual(shapeQuery(scp).programs, ['scp', 'ssh'], scp);
  const rsync = run('rsync', ['-e', `ssh -p 1 ${ssh.join(' ')}`, join(dir, 'id.pub'), '127.0.0.1:/tmp/']);
  t.regex(rsync, /^ssh: connect to host .*\r?\nrsync: /);
  t.is(shapeQuery(rsync).programs[0], 'rsync', rsync);
  const clone = run('git', ['clone', 'ssh://git@127.0.0.1:1/team/app.git', join(dir, 'app')], {
    env: { GIT_SSH_COMMAND: `ssh ${ssh.join(' ')}`, HOME: dir },
  });
  t.regex(clone, /^ssh: connect to host .*\r?\nfatal: Could not read from remote repository\.$/m);
  t.is(shapeQuery(clone).programs[0], 'git', clone);
  // Run by the user, ssh keeps its lead.
  const direct = run('ssh', ['-p', '1', ...ssh, '127.0.0.1', 'true']);
  t.deepEqual(shapeQuery(`$ ssh -p 1 127.0.0.1 true\n${direct}`).programs, ['ssh']);
  for (const out of [
    'git@github.com: Permission denied (publickey).',
    'deploy@10.0.0.5: Permission denied (publickey,password).',
    'Host key verification failed.',
    "The authenticity of host 'example.org (93.184.216.34)' can't be established.",
    'kex_exchange_identification: read: Connection reset by peer',
    'Connection closed by 10.0.0.5 port 22',
  ])
    t.deepEqual(shapeQuery(out).programs, ['ssh'], out);
  // A program that names itself keeps its name: scp's refusal is scp's.
  t.deepEqual(shapeQuery('scp: /srv/x: Permission denied').programs, ['scp']);
});

test('byte dumps, iconv, capsh, rpcgen, zstd, Python’s json and gsettings: layouts and wordings without a name', async (t) => {
  const dir = await scratch();
  const bytes = Buffer.from('\x7fELF\x02\x01\x01\x00kortty dump bytes', 'latin1');
  // The offsets and bytes are dropped as hex; the layout of the line still names its program.
  const hd = line(run('hexdump', ['-C'], { input: bytes }), /^00000000 /);
  t.regex(hd, /^00000000 {2}7f 45 4c 46 02 01 01 00 {2}6b .*\|\.ELF\.\.\.\.kortty d\|$/);
  t.deepEqual(shapeQuery(hd).programs, ['hexdump', 'hd']);
  t.deepEqual(shapeQuery(run('hd', [], { input: bytes })).programs, ['hexdump', 'hd']);
  const xxd = line(run('xxd', [], { input: bytes }), /^00000000: /);
  t.regex(xxd, /^00000000: 7f45 4c46 0201 0100 6b6f/);
  t.deepEqual(shapeQuery(xxd).programs, ['xxd']);
  const od = run('od', [], { input: bytes });
  t.regex(od, /^0000000 042577 043114 000402 000001/);
  t.deepEqual(shapeQuery(od).programs, ['od']);
  // od -c and -a print characters, not numbers: the letters stay in the query, the cells name od.
  const csv = 'name,age\r\nbob,42 \x1b\x00\x7f\xe9\n\ttab';
  const odc = run('od', ['-c'], { input: Buffer.from(csv, 'latin1') });
  t.regex(odc, /^0000000 {3}n {3}a {3}m {3}e {3}, {3}a {3}g {3}e {2}\\r {2}\\n/);
  t.regex(odc, /^0000020 {5}033 {2}\\0 177 351 {2}\\n {2}\\t/m);
  const oda = run('od', ['-a'], { input: Buffer.from(csv, 'latin1') });
  t.regex(oda, /^0000020 {2}sp esc nul del/m);
  for (const dump of [odc, oda]) t.deepEqual(shapeQuery(dump).programs, ['od'], dump);
  // Four-wide cells after an offset, and nothing else: a line of prose after a number is no dump.
  t.deepEqual(shapeQuery('0000123 was the last order number').programs, []);
  // iconv's verdict right after the text it converted, which ended without a newline.
  const iconv = run('iconv', ['-f', 'utf-8', '-t', 'ascii'], { input: 'Caf\u00e9 au lait\n' });
  t.is(iconv, 'Caficonv: illegal input sequence at position 3');
  t.deepEqual(shapeQuery(iconv).programs, ['iconv']);
  const capsh = run('capsh', ['--print']);
  t.regex(capsh, /^Current: =/m);
  t.deepEqual(shapeQuery(line(capsh, /^Bounding set =/)).programs, ['capsh']);
  await writeFile(
    join(dir, 'calc.x'),
    'program CALC { version V { int ADD(int) = 1 } = 1; } = 0x20000099;\n',
  );
  const rpcgen = run('rpcgen', ['-c', 'calc.x'], { cwd: dir });
  t.regex(rpcgen, /^calc\.x, line 1: expected ';'$/m);
  t.deepEqual(shapeQuery(line(rpcgen, /^calc\.x, line/)).programs, ['rpcgen']);
  // zstd's verdict on a truncated frame, its file name padded to a column.
  const zst = join(dir, 'data.json.zst');
  run('zstd', ['-q', '-o', zst], { input: '{"k": 1}\n'.repeat(200) });
  await writeFile(zst, (await readFile(zst)).subarray(0, 20));
  const zstd = run('zstd', ['-d', '-f', zst, '-o', join(dir, 'out.json')]);
  t.regex(zstd, /data\.json\.zst *: (?:Read|Decoding) error \(\d+\) : /);
  t.deepEqual(shapeQuery(line(zstd, / : /)).programs, ['zstd']);
  // In a terminal the verdict can follow what is left of its progress line on the same row.
  const verdict = line(zstd, /error \(\d+\)/).trim();
  t.deepEqual(shapeQuery(`data.json.zst        : 0 B...     ${verdict}`).programs, ['zstd']);
  // Python's json module says where the text stopped being JSON, without a name.
  const json = line(run('python3', ['-m', 'json.tool'], { input: '{"a": 1,\n}\n' }), /^Expecting /);
  t.is(json, 'Expecting property name enclosed in double quotes: line 2 column 1 (char 9)');
  t.deepEqual(shapeQuery(json).programs, ['python']);
  // In a UTF-8 locale, as a user's terminal runs it (the C locale prints its quotes as `?`).
  const gsettings = run('gsettings', ['get', 'org.gnome.kortty', 'x'], { env: { LC_ALL: 'C.UTF-8' } });
  t.is(gsettings, 'No such schema “org.gnome.kortty”');
  t.deepEqual(shapeQuery(gsettings).programs, ['gsettings']);
  // A unit file's error at its line, as systemd-analyze verify prints it (it needs a booted systemd).
  t.deepEqual(
    shapeQuery(
      '/etc/systemd/system/backup.service:6: Neither a valid executable name nor an absolute path: ./run.sh',
    ).programs,
    ['systemd-analyze'],
  );
});

test('curl -v: its request and response headers are no commands at a `>` prompt', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('nothing here\n');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/health`;
  try {
    // Asynchronously: the server answers from this process.
    const out = await new Promise<string>((ok) =>
      execFile('curl', ['-v', '-sS', url], { env: { ...process.env, LC_ALL: 'C' } }, (_e, stdout, stderr) =>
        ok(`${stderr}${stdout}`),
      ),
    );
    t.regex(out, /^\* +Trying 127\.0\.0\.1:\d+\.\.\.\r?$/m);
    t.regex(out, /^> GET \/api\/health HTTP\/1\.1\r?$/m);
    t.regex(out, /^< HTTP\/1\.1 404 Not Found\r?$/m);
    const s = shapeQuery(`user@host:~/api$ curl -v ${url}\n${out}`);
    // One command: the one at the prompt (its port is dropped as a long number).
    t.is(s.commands.length, 1);
    t.regex(s.commands[0]!, /^curl -v http:\/\/127\.0\.0\.1:/);
    t.is(s.dropped.prompts, 1);
    t.deepEqual(s.programs, ['curl']);
    // Without curl's own lines, `> GET …` reads as a command at a `>` prompt.
    t.true(
      shapeQuery(
        out
          .split('\n')
          .filter((l) => !l.startsWith('*'))
          .join('\n'),
      ).commands.length > 0,
    );
  } finally {
    server.close();
  }
});

test('interpreters, package managers and services: forms only they print', async (t) => {
  const dir = await scratch();
  // A module Perl loads with -M fails without the `at FILE line N.` its other errors end with.
  const perl = run('perl', ['-MKortty::NoSuch', '-e', '1']);
  t.regex(perl, /^Can't locate Kortty\/NoSuch\.pm in @INC .*\nBEGIN failed--compilation aborted\.$/s);
  t.notRegex(perl, / at \S+ line \d+\.$/m);
  t.deepEqual(shapeQuery(perl).programs, ['perl']);
  // A Perl script in a bin directory is the program; its frame names it before Perl.
  const jsonPp = run('json_pp', [], { input: '{"a":\n' });
  t.regex(jsonPp, / at \/usr\/bin\/json_pp line \d+\.$/);
  t.deepEqual(shapeQuery(jsonPp).programs, ['json_pp', 'perl']);
  // The same for a Python script's frame (quoted: no script of this machine's bin fails on cue).
  t.is(
    shapeQuery(
      'Traceback (most recent call last):\n  File "/usr/bin/pygmentize", line 33, in <module>\n    sys.exit(main())\nValueError: bad lexer',
    ).programs[0],
    'pygmentize',
  );
  const py = run('python3', ['-c', 'import kortty_no_such_module']);
  t.deepEqual(shapeQuery(line(py, /^ModuleNotFoundError: /)).programs, ['python']);
  await writeFile(join(dir, 'package.json'), '{"name":"k","version":"1.0.0","scripts":{}}\n');
  const npm = run('npm', ['run', 'kortty-no-such'], {
    cwd: dir,
    env: { npm_config_cache: join(dir, 'cache') },
  });
  t.regex(npm, /^npm (?:ERR!|error) Missing script: "kortty-no-such"$/m);
  t.deepEqual(shapeQuery(npm).programs, ['npm']);
  // journalctl reads its own files with no journal daemon running; its verdict on --since is its own.
  const since = run('journalctl', ['--since', 'yesterdy', '-n', '1']);
  t.is(since, 'Failed to parse timestamp: yesterdy');
  t.deepEqual(shapeQuery(since).programs, ['journalctl']);
  // systemctl without a running systemd (a container) says so, and with one the unit is missing:
  // either way its words are systemctl's.
  const unit = run('systemctl', ['status', 'kortty-no-such.service']);
  t.regex(
    unit,
    /^(?:System has not been booted with systemd|Unit kortty-no-such\.service could not be found\.)/m,
  );
  t.is(shapeQuery(unit).programs[0], 'systemctl');
  const cases: Array<[string, string[]]> = [
    ['E: Unable to locate package kortty-no-such', ['apt-get', 'apt']],
    ['Errors were encountered while processing:\n nginx-full', ['dpkg', 'apt-get', 'apt']],
    ['The following packages have unmet dependencies:\n nginx : Depends: libssl3', ['apt-get', 'apt']],
    ['Failed to get unit file state for kortty.service: No such file or directory', ['systemctl']],
    ['Main PID: 812 (code=exited, status=1/FAILURE)', ['systemctl']],
    ['Process: 812 ExecStart=/usr/sbin/nginx -g daemon on; (code=exited, status=1/FAILURE)', ['systemctl']],
    ['nginx.service: Main process exited, code=exited, status=1/FAILURE', ['systemctl', 'journalctl']],
    [
      "Dec 07 08:01:02 web1 systemd[1]: nginx.service: Failed with result 'exit-code'.",
      ['systemctl', 'journalctl'],
    ],
    [
      'Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock',
      ['docker'],
    ],
    ["System has not been booted with systemd as init system (PID 1). Can't operate.", ['systemctl']],
    ['Failed to connect to bus: Host is down', ['systemctl']],
    ['alice is not in the sudoers file.  This incident will be reported.', ['sudo']],
    ['Error response from daemon: No such container: web', ['docker']],
    ['error: externally-managed-environment', ['pip']],
    ['Failed to start nginx.service: Unit nginx.service not found.', ['systemctl']],
    ['-- No entries --', ['journalctl']],
    ["E212: Can't open file for writing", ['vim']],
    ['Exception in thread "main" java.lang.NullPointerException', ['java']],
  ];
  for (const [out, programs] of cases) t.deepEqual(shapeQuery(out).programs, programs, out);
  // The forms are wordings, never topics: prose about the same things names nothing.
  for (const prose of [
    'permission denied when I open the file',
    'the ssh connection was closed',
    'error: something failed while compiling',
    'Loaded the configuration',
  ])
    t.deepEqual(shapeQuery(prose).programs, [], prose);
});

test('strace and prove: a trace of system calls and a test run name their programs', async (t) => {
  const dir = await scratch();
  const missing = join(dir, 'missing.txt');
  const traced = run('strace', ['-e', 'trace=openat', 'cat', missing]);
  t.regex(
    traced,
    /^openat\(AT_FDCWD, "\S+missing\.txt", O_RDONLY\) += -1 ENOENT \(No such file or directory\)$/m,
  );
  t.regex(traced, /^\+\+\+ exited with 1 \+\+\+$/m);
  // cat's own error names cat; the calls and the exit line are strace's, and `+++ exited` is no
  // shell trace of a command `exited`.
  const programs = shapeQuery(traced).programs;
  t.true(programs.includes('strace') && programs.includes('cat'), programs.join());
  t.false(programs.includes('exited'), programs.join());
  const calls = traced
    .split('\n')
    .filter((l) => !l.startsWith('cat: '))
    .join('\n');
  t.deepEqual(shapeQuery(calls).programs, ['strace']);
  // -f marks a child's calls with its pid; a signal and a killed process have their own lines.
  const forked = run('strace', [
    '-f',
    '-tt',
    '-e',
    'trace=execve,kill',
    'sh',
    '-c',
    'sh -c "kill -TERM \\$\\$"',
  ]);
  t.regex(forked, /^\[pid +\d+\] \d\d:\d\d:\d\d\.\d+ execve\(/m);
  t.regex(forked, /--- SIGTERM \{si_signo=SIGTERM/);
  t.regex(forked, /\+\+\+ killed by SIGTERM \+\+\+/);
  for (const l of forked
    .split('\n')
    .filter((x) => /^(?:\[pid +\d+\] )?[\d:.]+ (?:execve|kill|---|\+\+\+)/.test(x)))
    t.deepEqual(shapeQuery(l).programs, ['strace'], l);

  // prove's verbose run of a failing test: Test::More's `# ` diagnostics are no root prompt's
  // commands (`# Looks like you failed …` named `looks`), and the summary is prove's.
  await writeFile(
    join(dir, 'parse.t'),
    'use Test::More tests => 2;\nok(1, "minutes");\nis("2h", "7200", "hours");\n',
  );
  const proved = run('prove', ['-v', 'parse.t'], { cwd: dir });
  t.regex(proved, /^# Looks like you failed 1 test of 2\.$/m);
  t.regex(proved, /^#\s+Failed test 'hours'$/m);
  t.regex(proved, /^Files=1, Tests=2, +\d+ wallclock secs /m);
  t.regex(proved, /^Result: FAIL$/m);
  const shaped = shapeQuery(proved);
  t.is(shaped.programs[0], 'prove', shaped.programs.join());
  t.deepEqual(shaped.commands, []);
  for (const word of ['looks', 'failed', 'at'])
    t.false(shaped.programs.includes(word), shaped.programs.join());
  // A root prompt's command still reads as one; a comment or heading does not.
  t.deepEqual(shapeQuery('# apt-get install -y kortty\nE: Unable to locate package kortty').commands, [
    'apt-get install -y kortty',
  ]);
  t.deepEqual(shapeQuery('# Install the tools first\ncurl: (6) Could not resolve host: x').commands, []);
});

test('version banners: `--version` and the lines e2fsprogs’ and util-linux’s tools print first name their programs', async (t) => {
  for (const [cmd, args, name] of [
    ['git', ['--version'], 'git'],
    ['tar', ['--version'], 'tar'],
    ['rsync', ['--version'], 'rsync'],
    ['make', ['--version'], 'make'],
    ['bash', ['--version'], 'bash'],
    ['gzip', ['--version'], 'gzip'],
    ['curl', ['--version'], 'curl'],
  ] as const) {
    const out = run(cmd, [...args]);
    t.deepEqual(shapeQuery(out).programs, [name], out.split('\n')[0]);
  }
  // dumpe2fs prints its banner on stderr before the superblock: a terminal shows it first.
  const dir = await scratch();
  const image = join(dir, 'fs.img');
  run('mke2fs', ['-q', '-F', '-t', 'ext2', image, '1024']);
  const dumped = run('sh', ['-c', 'dumpe2fs -h "$1" 2>&1', 'sh', image]);
  t.regex(dumped, /^dumpe2fs \d+\.\d+\.\d+ \(.+\)\nFilesystem volume name: /);
  t.deepEqual(shapeQuery(dumped).programs, ['dumpe2fs']);
  const checked = run('sh', ['-c', 'e2fsck -n "$1" 2>&1', 'sh', image]);
  t.regex(checked, /^e2fsck \d+\.\d+\.\d+ \(.+\)\n/);
  t.is(shapeQuery(checked).programs[0], 'e2fsck');
  // util-linux's tools say where they come from; fsck says so before the checker it runs.
  for (const name of ['lsblk', 'fsck']) {
    const banner = run(name, ['--version']);
    t.regex(banner, new RegExp(`^${name} from util-linux \\d+\\.\\d+`));
    t.deepEqual(shapeQuery(banner).programs, [name]);
  }
  const wrapped = run('sh', ['-c', 'fsck -n "$1" 2>&1', 'sh', image]);
  t.regex(wrapped, /^fsck from util-linux \d+\.\d+[\d.]*\ne2fsck \d+\.\d+\.\d+ \(.+\)\n/);
  t.deepEqual(shapeQuery(wrapped).programs.slice(0, 2), ['fsck', 'e2fsck']);
  // Output that merely holds a version is no banner: it has words before the version.
  t.deepEqual(shapeQuery('Unpacking libc6 2.36-9 over 2.36-8').programs, []);
});

test('git clean’s dry run, journalctl’s log level, crontab’s -u, wipefs’s table and dpkg -L: their output names them', async (t) => {
  const { repo, git, commit } = await scratchRepo();
  await commit('kept.txt', 'k\n', 'one');
  await writeFile(join(repo, 'debug.log'), 'x\n');
  const dry = git('clean', '-n');
  t.is(dry, 'Would remove debug.log');
  t.deepEqual(shapeQuery(dry).programs, ['git-clean', 'git']);
  // pip's uninstaller says `Would remove:` above an indented list: no git there.
  t.deepEqual(shapeQuery('  Would remove:\n    /usr/lib/python3/dist-packages/six.py').programs, []);
  const level = run('journalctl', ['-p', 'warnings']);
  t.is(level, 'Unknown log level warnings');
  t.deepEqual(shapeQuery(level).programs, ['journalctl']);
  // Another user's crontab is root's to read.
  const crontab = runUnprivileged('crontab', ['-u', 'root', '-l']);
  t.is(crontab, 'must be privileged to use -u');
  t.deepEqual(shapeQuery(crontab).programs, ['crontab']);
  const image = join(await scratch(), 'data.img');
  run('mke2fs', ['-q', '-F', '-t', 'ext4', image, '4096']);
  const signatures = run('wipefs', [image]);
  t.regex(signatures, /^DEVICE +OFFSET +TYPE +UUID +LABEL\ndata\.img +0x438 +ext4 /);
  t.deepEqual(shapeQuery(signatures).programs, ['wipefs']);
  // dpkg -L's listing opens with the package's root, `/.`; a bare list of paths names nobody.
  const files = run('dpkg', ['-L', 'tar']);
  t.regex(files, /^\/\.\n\/bin\n/);
  t.deepEqual(shapeQuery(files).programs, ['dpkg', 'dpkg-query']);
  t.deepEqual(shapeQuery(files.split('\n').slice(1).join('\n')).programs, []);
});

test('coreutils’ -v reports and the tables of findmnt, lsblk and ss name their programs', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'notes.txt'), 'n\n');
  const sh = (script: string) => run('sh', ['-c', script], { cwd: dir });
  const copied = sh('mkdir a && cp a/../notes.txt a/ && cp -rv a b');
  t.is(copied, "'a' -> 'b'\n'a/notes.txt' -> 'b/notes.txt'");
  t.deepEqual(shapeQuery(copied).programs, ['cp', 'install', 'ln']);
  const renamed = sh('mv -v b c');
  t.is(renamed, "renamed 'b' -> 'c'");
  t.deepEqual(shapeQuery(renamed).programs, ['mv']);
  const mode = sh('chmod -v 700 c');
  t.regex(mode, /^mode of 'c' changed from 0\d{3} \(.+\) to 0700 \(rwx------\)$/);
  t.deepEqual(shapeQuery(mode).programs, ['chmod']);
  const owner = sh(`chown -v ${process.getuid?.() ?? 0} c`);
  t.regex(owner, /^(?:changed )?ownership of 'c' (?:from|retained as) /);
  t.deepEqual(shapeQuery(owner).programs, ['chown', 'chgrp']);
  const removed = sh('rm -rv c');
  t.is(removed, "removed 'c/notes.txt'\nremoved directory 'c'");
  t.deepEqual(shapeQuery(removed).programs, ['rm']);
  const mounts = run('findmnt', ['--real']);
  t.regex(mounts, /^TARGET +SOURCE +FSTYPE +OPTIONS\n/);
  t.deepEqual(shapeQuery(mounts).programs.slice(0, 1), ['findmnt']);
  const devices = run('lsblk', []);
  t.regex(devices, /^NAME +MAJ:MIN +RM +SIZE +RO +TYPE +MOUNTPOINTS?\n/);
  t.deepEqual(shapeQuery(devices).programs.slice(0, 1), ['lsblk']);
  const sockets = run('ss', ['-tln']);
  t.regex(sockets, /^State +Recv-Q +Send-Q +Local Address:Port +Peer Address:Port ?Process/);
  t.deepEqual(shapeQuery(sockets).programs.slice(0, 1), ['ss']);
});

test('iproute2, procps, psmisc, shadow, systemd and PostgreSQL’s client: refusals and reports without a name', async (t) => {
  // Only a privileged user may change a link.
  const refused = runUnprivileged('ip', ['link', 'set', 'lo', 'mtu', '65536']);
  t.is(refused, 'RTNETLINK answers: Operation not permitted');
  t.deepEqual(shapeQuery(refused).programs, ['ip', 'tc']);
  const routes = run('ip', ['route', 'show', 'table', 'local']);
  t.regex(routes, /^local 127\.0\.0\.0\/8 dev lo proto kernel scope host src 127\.0\.0\.1/m);
  t.deepEqual(shapeQuery(routes).programs, ['ip-route', 'ip']);
  const brief = run('ip', ['-br', 'address', 'show', 'dev', 'lo']);
  t.regex(brief, /^lo +UNKNOWN +127\.0\.0\.1\/8/);
  t.deepEqual(shapeQuery(brief).programs, ['ip-address', 'ip']);
  const link = run('ip', ['-br', 'link', 'show', 'dev', 'lo']);
  t.regex(link, /^lo +UNKNOWN +00:00:00:00:00:00 <LOOPBACK[A-Z_,]*> *$/);
  t.deepEqual(shapeQuery(link).programs, ['ip-link', 'ip']);
  // A neighbour entry made in a network namespace of its own, so nothing here changes.
  const neigh = run('unshare', [
    '-rn',
    'sh',
    '-c',
    'ip link set lo up && ip neigh add 127.0.0.77 lladdr 02:00:00:00:00:77 dev lo nud permanent && ip neigh show',
  ]);
  t.regex(neigh, /^\S+ dev lo lladdr 02:00:00:00:00:77 PERMANENT/);
  t.deepEqual(shapeQuery(neigh).programs, ['ip-neighbour', 'ip']);
  const who = run('w', []);
  t.regex(who, /^ *\d\d:\d\d:\d\d up .*load average: .*\nUSER +TTY +FROM +LOGIN@ +IDLE +JCPU +PCPU +WHAT$/m);
  // Its first line is uptime's own, which both pages document; uptime's page comes first.
  t.deepEqual(shapeQuery(who).programs.slice(0, 2), ['uptime', 'w']);
  const memory = run('vmstat', ['-s']);
  t.regex(memory, /^ +\d+ K total memory$/m);
  t.deepEqual(shapeQuery(memory).programs, ['vmstat']);
  const ranges = run('lsmem', []);
  t.regex(ranges, /^RANGE +SIZE +STATE +REMOVABLE +BLOCK$/m);
  t.deepEqual(shapeQuery(ranges).programs, ['lsmem']);
  const empty = join(await scratch(), 'wtmp');
  await writeFile(empty, '');
  const logins = run('last', ['-f', empty]);
  t.regex(logins, /^wtmp begins (?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) /m);
  t.deepEqual(shapeQuery(logins).programs, ['last']);
  const ageing = run('chage', ['-l', run('id', ['-un'])]);
  t.regex(ageing, /^Last password change\s+: /);
  t.deepEqual(shapeQuery(ageing).programs, ['chage']);
  const unfound = run('killall', ['kortty-no-such-daemon']);
  t.is(unfound, 'kortty-no-such-daemon: no process found');
  t.deepEqual(shapeQuery(unfound).programs, ['killall']);
  const user = run('pstree', ['-p', 'kortty-no-such-user']);
  t.is(user, 'No such user name: kortty-no-such-user');
  t.deepEqual(shapeQuery(user).programs, ['pstree']);
  const policy = run('apt-cache', ['policy', 'bash']);
  t.regex(policy, /^bash:\n {2}Installed: \S+\n {2}Candidate: \S+\n {2}Version table:$/m);
  t.deepEqual(shapeQuery(policy).programs.slice(0, 2), ['apt-cache', 'apt']);
  const ready = run('pg_isready', ['-h', '127.0.0.1', '-p', '9']);
  t.is(ready, '127.0.0.1:9 - no response');
  t.deepEqual(shapeQuery(ready).programs, ['pg_isready']);
  const calendar = run('systemd-analyze', ['calendar', 'Mon..Fri *-*-* 25:00']);
  t.regex(calendar, /^Failed to parse calendar specification 'Mon\.\.Fri \*-\*-\* 25:00': /);
  t.deepEqual(shapeQuery(calendar).programs, ['systemd-analyze']);
  const enable = run('systemctl', ['enable', 'kortty-no-such-unit']);
  t.is(enable, 'Failed to enable unit, unit kortty-no-such-unit.service does not exist.');
  t.deepEqual(shapeQuery(enable).programs, ['systemctl']);
  // tmux at a socket whose directory is missing.
  const socket = run('tmux', ['-S', join(await scratch(), 'missing', 'sock'), 'ls']);
  t.regex(socket, /^error connecting to \S+\/missing\/sock \(No such file or directory\)$/);
  t.deepEqual(shapeQuery(socket).programs, ['tmux']);
});

test('git’s remotes, tags and detached HEAD, ssh-keygen’s fingerprints and x509’s -checkend: their output names them', async (t) => {
  const { dir, git, commit } = await scratchRepo();
  await commit('a.txt', 'a\n', 'one');
  git('remote', 'add', 'origin', '../upstream.git');
  const exists = git('remote', 'add', 'origin', '../other.git');
  t.is(exists, 'error: remote origin already exists.');
  t.deepEqual(shapeQuery(exists).programs, ['git', 'git-remote']);
  const noRemote = git('remote', 'remove', 'upstream');
  t.is(noRemote, "error: No such remote: 'upstream'");
  t.deepEqual(shapeQuery(noRemote).programs, ['git', 'git-remote']);
  const shown = git('remote', 'show', '-n', 'origin');
  t.regex(shown, /^\* remote origin\n {2}Fetch URL: \.\.\/upstream\.git$/m);
  t.deepEqual(shapeQuery(shown).programs.slice(0, 2), ['git-remote', 'git']);
  const tag = git('tag', '-d', 'v9.9');
  t.is(tag, "error: tag 'v9.9' not found.");
  t.deepEqual(shapeQuery(tag).programs, ['git', 'git-tag']);
  git('checkout', '-q', '--detach');
  const branches = git('branch');
  t.regex(branches, /^\* \(HEAD detached at [0-9a-f]{7,}\)\n {2}main$/);
  t.deepEqual(shapeQuery(branches).programs, ['git-branch', 'git']);

  const key = join(dir, 'id_ed25519');
  const keyType = run('ssh-keygen', ['-t', 'ed2519', '-f', key]);
  t.regex(keyType, /^unknown key type ed2519\r?$/);
  t.deepEqual(shapeQuery(keyType).programs, ['ssh-keygen']);
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kortty@test', '-f', key]);
  const fingerprint = run('ssh-keygen', ['-lf', `${key}.pub`]);
  t.regex(fingerprint, /^256 SHA256:\S+ kortty@test \(ED25519\)$/);
  t.deepEqual(shapeQuery(fingerprint).programs, ['ssh-keygen', 'ssh-add']);

  const { cert } = selfSigned(dir, 'kortty.test');
  const verdict = run('openssl', ['x509', '-in', cert, '-noout', '-checkend', '864000']);
  t.is(verdict, 'Certificate will expire');
  t.deepEqual(shapeQuery(verdict).programs, ['openssl-x509', 'openssl']);
});

test('less’s bare refusals, openssl’s unknown command, and a shell’s error at a script’s line after its trace', async (t) => {
  const dir = await scratch();
  const directory = run('less', [dir]);
  t.is(directory, `${dir} is a directory`);
  t.deepEqual(shapeQuery(directory).programs, ['less']);
  // less, crontab and ssh-keygen word a missing file alike, without their names.
  const missing = run('less', [join(dir, 'error.log')]);
  t.is(missing, `${join(dir, 'error.log')}: No such file or directory`);
  t.deepEqual(shapeQuery(missing).programs, ['less', 'crontab', 'ssh-keygen', 'wget']);
  t.is(run('crontab', [join(dir, 'jobs.cron')]), `${join(dir, 'jobs.cron')}: No such file or directory`);
  const unknown = run('openssl', ['x509req']);
  t.is(unknown, `Invalid command 'x509req'; type "help" for a list.`);
  t.is(shapeQuery(unknown).programs[0], 'openssl');
  // set -u stops the script: the error is bash's, and the commands it traced before are context.
  await writeFile(
    join(dir, 'release.sh'),
    '#!/bin/bash\nset -euo pipefail\nfor f in a b c; do touch "$f"; done\nls >/dev/null\necho "to $DEST"\n',
  );
  const trace = run('bash', ['-x', './release.sh'], { cwd: dir });
  t.regex(trace, /\n\+ touch a\n(?:.*\n)*\+ ls\n\.\/release\.sh: line 5: DEST: unbound variable$/);
  t.is(shapeQuery(trace).programs[0], 'bash', trace);
});

test('ssh-keygen’s missing known_hosts, wget’s unsupported scheme and journalctl’s bad --since date: their output names them', async (t) => {
  const dir = await scratch();
  const hosts = join(dir, 'known_hosts');
  const stat = run('ssh-keygen', ['-f', hosts, '-R', '127.0.0.1']);
  // ssh's log ends its lines with `\r\n`, as a terminal in raw mode needs.
  t.is(stat, `Cannot stat ${hosts}: No such file or directory\r`);
  t.is(shapeQuery(stat).programs[0], 'ssh-keygen');
  const scheme = run('wget', [`file://${join(dir, 'nginx.conf')}`]);
  // Quoted as the locale quotes: 'file' in C, ‘file’ in UTF-8.
  t.is(scheme, `file://${join(dir, 'nginx.conf')}: Unsupported scheme 'file'.`);
  t.deepEqual(shapeQuery(scheme.replace(/'file'/, '‘file’')).programs, ['wget']);
  t.deepEqual(shapeQuery(scheme).programs, ['wget']);
  // Shaping drops the date journalctl quotes, which leaves its words at the line's end.
  const since = run('journalctl', ['--since', '2024-05-06 25:00', '-n', '1']);
  t.is(since, 'Failed to parse timestamp: 2024-05-06 25:00');
  t.is(shapeQuery(since).query, 'Failed to parse timestamp:');
  t.deepEqual(shapeQuery(since).programs, ['journalctl']);
  // A word that ends a line with a colon names nobody: `Error:` alone is no form.
  t.deepEqual(shapeQuery('Failed to parse:').programs, []);
});

test('git’s empty message, stash, remote, lock and --no-index refusals; ssh’s forwarding, ssh-keygen’s non-key, wget’s port, enc’s input and make’s recipes', async (t) => {
  const repo = await scratch();
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=K', '-c', 'user.email=k@example.org', ...args], { cwd: repo });
  git('init', '-q');
  await writeFile(join(repo, 'notes.txt'), 'one\n');
  git('add', 'notes.txt');
  git('commit', '-q', '-m', 'one');
  await writeFile(join(repo, 'notes.txt'), 'two\n');
  const cases: Array<[string, string[], string[]]> = [
    [git('commit', '-am', ''), ['Aborting commit due to empty commit message.'], ['git', 'git-commit']],
    [git('stash', 'apply', 'stash@{2}'), ['error: stash@{2} is not a valid reference'], ['git', 'git-stash']],
    [
      git('remote', 'set-url', 'upstream', '../x.git'),
      ["error: No such remote 'upstream'"],
      ['git', 'git-remote'],
    ],
    [git('diff', '--no-index', 'a.txt', 'b.txt'), ["error: Could not access 'a.txt'"], ['git', 'git-diff']],
  ];
  git('checkout', '-q', 'notes.txt');
  cases.push([git('stash'), ['No local changes to save'], ['git', 'git-stash']]);
  // A config file git cannot lock: its lock file is there already.
  await writeFile(join(repo, '.git', 'config.lock'), '');
  const locked = git('config', 'core.editor', 'vim');
  t.regex(locked, /^error: could not lock config file \.git\/config: File exists$/);
  t.deepEqual(shapeQuery(locked).programs, ['git', 'git-config']);
  for (const [out, lines, programs] of cases) {
    t.deepEqual(out.split('\n'), lines);
    t.deepEqual(shapeQuery(out).programs, programs, out);
  }
  // ssh refuses a -L it cannot parse before it connects anywhere.
  const forward = run('ssh', ['-F', '/dev/null', '-N', '-L', '5432:localhost', 'deploy@127.0.0.1'], {
    input: '',
  });
  t.is(forward, "Bad local forwarding specification '5432:localhost'");
  t.deepEqual(shapeQuery(forward).programs, ['ssh']);
  await writeFile(join(repo, 'notes.md'), '# notes\n');
  const notKey = run('ssh-keygen', ['-l', '-f', join(repo, 'notes.md')]);
  t.is(notKey, `${join(repo, 'notes.md')} is not a public key file.\r`);
  t.deepEqual(shapeQuery(notKey).programs, ['ssh-keygen']);
  // wget refuses a port past 65535 before it resolves or connects.
  const port = run('wget', ['http://127.0.0.1:99999/atlas.tar.gz']);
  t.is(port, 'http://127.0.0.1:99999/atlas.tar.gz: Bad port number.');
  t.deepEqual(shapeQuery(port).programs, ['wget']);
  await writeFile(join(repo, 'secret.enc'), 'plain text, never encrypted\n');
  const magic = run('openssl', [
    'enc',
    '-d',
    '-aes-256-cbc',
    '-pbkdf2',
    '-in',
    join(repo, 'secret.enc'),
    '-pass',
    'pass:x',
  ]);
  t.is(magic.split('\n')[0], 'bad magic number');
  t.deepEqual(shapeQuery(magic).programs.slice(0, 2), ['openssl-enc', 'openssl']);
  await writeFile(join(repo, 'Makefile'), 'clean:\n\trm -f a.o\nclean:\n\trm -f b.o\n');
  const recipes = run('make', ['-n', 'clean'], { cwd: repo });
  t.is(
    recipes,
    "rm -f b.o\nMakefile:4: warning: overriding recipe for target 'clean'\nMakefile:2: warning: ignoring old recipe for target 'clean'",
  );
  t.is(shapeQuery(recipes).programs[0], 'make');
  // A tmux socket path keeps its uid: a long number after a name's hyphen is part of it.
  const socket = 'error connecting to /tmp/tmux-65534/default (No such file or directory)';
  t.is(shapeQuery(socket).query, socket);
  t.deepEqual(shapeQuery(socket).programs, ['tmux']);
});

test('ordinary output without a name: uname -a, id, mount’s table, ip address, env and openssl verify', async (t) => {
  const uname = run('uname', ['-a']);
  t.regex(uname, /^Linux \S+ .* GNU\/Linux$/);
  t.deepEqual(shapeQuery(uname).programs, ['uname']);
  const id = run('id', []);
  t.regex(id, /^uid=\d+\(\w+\) gid=\d+\(\w+\) groups=/);
  t.deepEqual(shapeQuery(id).programs, ['id']);
  const mounts = run('mount', []).split('\n').slice(0, 4).join('\n');
  t.regex(mounts, /^\S+ on \/\S* type \S+ \(/);
  t.deepEqual(shapeQuery(mounts).programs, ['mount']);
  // lo's record: its `1: ` goes as a gutter, its names (`lo:`) are no programs.
  const lo = run('ip', ['address', 'show', 'lo']);
  t.regex(
    lo,
    /^1: lo: <LOOPBACK[^>]*> mtu 65536 qdisc \S+ .*\n +link\/loopback .*\n +inet 127\.0\.0\.1\/8 scope host lo\n/,
  );
  t.deepEqual(shapeQuery(lo).programs, ['ip-address', 'ip-link', 'ip']);
  const env = run('env', ['-i', 'HOME=/home/dana', 'USER=dana', 'SHELL=/bin/bash', 'LANG=C.UTF-8', 'env']);
  t.is(env, 'HOME=/home/dana\nUSER=dana\nSHELL=/bin/bash\nLANG=C.UTF-8');
  t.deepEqual(shapeQuery(env).programs, ['env', 'printenv']);
  // A line that sets one variable in a script is no listing of them.
  t.deepEqual(shapeQuery('LANG=C.UTF-8\nexport LANG').programs, []);
  const { cert } = selfSigned(await scratch(), 'invoicer.local');
  const verify = run('openssl', ['verify', cert]);
  t.regex(verify, /^error 18 at 0 depth lookup: self-signed certificate$/m);
  t.deepEqual(shapeQuery(verify).programs, ['openssl-verify', 'openssl']);
});

test('git: refusals and advice without a command’s name, and the lines its transport writes', async (t) => {
  const { dir, env, repo, git, commit } = await scratchRepo();
  await commit('a.txt', 'one\n', 'one');
  const bare = join(dir, 'origin.git');
  run('git', ['init', '-q', '--bare', bare], { env });
  git('remote', 'add', 'origin', bare);
  git('push', '-q', 'origin', 'main');
  git('switch', '-q', '-c', 'topic');
  await commit('a.txt', 'topic\n', 'topic');
  git('switch', '-q', 'main');
  await commit('a.txt', 'main\n', 'main');
  const pushed = git('push', 'origin', 'main');
  t.regex(pushed, /^To .*origin\.git\n {3}\S+\.\.\S+ +main -> main$/);
  t.is(shapeQuery(pushed).programs[0], 'git');
  const noDescribe = git('describe');
  const noPatch = git('apply', 'fix.patch');
  // A patch whose context the file no longer has.
  await writeFile(join(repo, 'stale.patch'), '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n c\n');
  const stale = git('apply', 'stale.patch');
  const worktree = git('worktree', 'add', join(dir, 'wt'), 'topic');
  git('merge', 'topic');
  const cases: Array<[string, RegExp, string[]]> = [
    [noDescribe, /^fatal: No names found, cannot describe anything\.$/, ['git', 'git-describe']],
    [noPatch, /^error: can't open patch 'fix\.patch': No such file or directory$/, ['git', 'git-apply']],
    [stale, /^error: patch failed: a\.txt:1\nerror: a\.txt: patch does not apply$/, ['git', 'git-apply']],
    // Its `HEAD is now at …` line is git's own, which leads the worktree's page.
    [worktree, /^Preparing worktree \(checking out 'topic'\)$/m, ['git', 'git-worktree']],
    [git('stash'), /^a\.txt: needs merge$/m, ['git']],
    [
      git('cherry-pick', '--continue'),
      /^error: no cherry-pick or revert in progress$/m,
      ['git', 'git-cherry-pick', 'git-revert'],
    ],
  ];
  git('merge', '--abort');
  await writeFile(join(repo, 'crlf.txt'), 'a\r\nb\r\n');
  cases.push([
    git('-c', 'core.autocrlf=input', 'add', 'crlf.txt'),
    /^warning: in the working copy of 'crlf\.txt', CRLF will be replaced by LF the next time Git touches it$/,
    ['git', 'git-config'],
  ]);
  const nested = join(repo, 'vendor', 'lib');
  run('git', ['init', '-q', nested], { env });
  const who = {
    GIT_AUTHOR_NAME: 'k',
    GIT_AUTHOR_EMAIL: 'k@example.org',
    GIT_COMMITTER_NAME: 'k',
    GIT_COMMITTER_EMAIL: 'k@example.org',
  };
  run('git', ['-C', nested, 'commit', '-q', '--allow-empty', '-m', 'x'], { env: { ...env, ...who } });
  cases.push([
    git('add', 'vendor'),
    /^warning: adding embedded git repository: vendor\/lib$/m,
    ['git', 'git-add'],
  ]);
  git('branch', '--unset-upstream');
  cases.push([
    git('pull'),
    /^There is no tracking information for the current branch\.\nPlease specify which branch you want to merge with\.$/m,
    ['git', 'git-pull'],
  ]);
  for (const [out, re, programs] of cases) {
    t.regex(out, re);
    t.deepEqual(shapeQuery(out).programs.slice(0, programs.length), programs, out);
  }
  // A server's words come through git's transport as `remote: ` lines.
  t.deepEqual(shapeQuery('remote: Repository not found.\nfatal: repository not found').programs, ['git']);
  // `To ` before a word is English.
  t.deepEqual(shapeQuery('To be continued').programs, []);
});

test('python3: its own SyntaxError wordings name it; JavaScript’s do not', async (t) => {
  const dir = await scratch();
  const cases: Array<[string, string]> = [
    ['x =', 'SyntaxError: invalid syntax'],
    ["print('a)", 'SyntaxError: unterminated string literal (detected at line 1)'],
    ['if x', "SyntaxError: expected ':'"],
    ['foo(', "SyntaxError: '(' was never closed"],
    ["print 'a'", "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?"],
  ];
  for (const [code, message] of cases) {
    await writeFile(join(dir, 'bad.py'), `${code}\n`);
    const out = run('python3', [join(dir, 'bad.py')]);
    t.is(out.split('\n').at(-1), message);
    t.is(shapeQuery(out).programs[0], 'python', out);
    t.deepEqual(shapeQuery(message).programs, ['python']);
  }
  const js = run(process.execPath, ['-e', 'let x = ;']);
  t.regex(js, /^SyntaxError: Unexpected token ';'$/m);
  t.false(shapeQuery("SyntaxError: Unexpected token ';'").programs.includes('python'));
});

test('crontab’s verdict on a file, ssh’s missing identity and a key that does not load', async (t) => {
  const dir = await scratch();
  const jobs = join(dir, 'jobs.cron');
  await writeFile(jobs, '61 * * * * /usr/local/bin/backup\n');
  await chmod(dir, 0o755);
  await chmod(jobs, 0o644);
  // As nobody: crontab refuses the file before it installs anything.
  const cron = runUnprivileged('crontab', [jobs]);
  t.is(cron, `"${jobs}":0: bad minute\nerrors in crontab file, can't install.`);
  t.deepEqual(shapeQuery(cron).programs, ['crontab']);
  const missing = join(dir, 'id_deploy');
  const identity = run(
    'ssh',
    ['-F', '/dev/null', '-o', 'BatchMode=yes', '-i', missing, '-p', '9', '127.0.0.1', 'true'],
    {
      input: '',
    },
  );
  t.regex(
    identity,
    new RegExp(`^Warning: Identity file ${missing} not accessible: No such file or directory\\.$`, 'm'),
  );
  t.is(shapeQuery(identity).programs[0], 'ssh');
  const notKey = join(dir, 'id_broken');
  await writeFile(notKey, 'not a key\n', { mode: 0o600 });
  const load = run('ssh-keygen', ['-y', '-f', notKey]);
  t.regex(load, new RegExp(`^Load key "${notKey}": `));
  t.deepEqual(shapeQuery(load).programs, ['ssh', 'ssh-keygen']);
});

test('ordinary reports by their layout: top, uptime, vmstat, lscpu, lsof, dpkg -l, apt list, sysctl, update-alternatives, gzip -l, xz -l, split and lsblk -f', async (t) => {
  const dir = await scratch();
  await writeFile(join(dir, 'notes.txt'), 'one\ntwo\n');
  run('gzip', ['-k', join(dir, 'notes.txt')]);
  run('xz', ['-k', join(dir, 'notes.txt')]);
  const head = (out: string, n: number) => out.split('\n').slice(0, n).join('\n');
  const cases: Array<[string, RegExp, string[]]> = [
    [head(run('top', ['-b', '-n', '1']), 7), /^top - .* load average: .*\nTasks: +\d+ total,/, ['top']],
    [run('uptime', []), /^ \d\d:\d\d:\d\d up .*load average: /, ['uptime', 'w']],
    [run('vmstat', []), /^procs -+memory-+ /, ['vmstat']],
    [head(run('lscpu', []), 4), /^Architecture: +\S+\nCPU op-mode\(s\): /, ['lscpu']],
    [
      head(run('lsof', ['-p', String(process.pid)]), 2),
      /^COMMAND +PID +USER +FD +TYPE +DEVICE +SIZE\/OFF +NODE +NAME\n/,
      ['lsof'],
    ],
    [
      run('dpkg', ['-l', 'bash']),
      /^Desired=Unknown\/Install\/Remove\/Purge\/Hold\n[\s\S]*\nii +bash +/,
      ['dpkg', 'dpkg-query'],
    ],
    [
      run('apt', ['list', '--installed', 'bash'], { env: { LANG: 'C' } }),
      /^Listing\.\.\.[\s\S]*\nbash\/\S+ \S+ amd64 \[installed/,
      ['apt'],
    ],
    [run('sysctl', ['kernel.ostype']), /^kernel\.ostype = Linux$/, ['sysctl']],
    [
      run('update-alternatives', ['--display', 'awk']),
      /^awk - (?:auto|manual) mode\n {2}link best version is \//,
      ['update-alternatives'],
    ],
    [
      run('gzip', ['-l', join(dir, 'notes.txt.gz')]),
      /^ +compressed +uncompressed +ratio uncompressed_name\n/,
      ['gzip'],
    ],
    [
      run('xz', ['-l', join(dir, 'notes.txt.xz')]),
      /^Strms +Blocks +Compressed +Uncompressed +Ratio +Check +Filename\n/,
      ['xz'],
    ],
    [
      run('split', ['--verbose', '-l', '1', join(dir, 'notes.txt'), join(dir, 'part-')]),
      /^creating file '.*part-aa'\n/,
      ['split'],
    ],
    [
      head(run('lsblk', ['-f']), 1),
      /^NAME +FSTYPE +FSVER +LABEL +UUID +FSAVAIL +FSUSE% +MOUNTPOINTS?$/,
      ['lsblk'],
    ],
  ];
  for (const [out, re, programs] of cases) {
    t.regex(out, re);
    t.deepEqual(shapeQuery(out).programs, programs, out);
  }
});

test('git log --oneline, git commit’s summary and x509’s fields name their programs; other hex and numbers do not', async (t) => {
  const { git, commit, repo } = await scratchRepo();
  await commit('vat.py', 'RATE = 0.19\n', 'Add VAT rate');
  await commit('vat.py', 'RATE = 0.07\n', 'lower the rate');
  const oneline = git('log', '--oneline', '--decorate');
  t.regex(oneline, /^[0-9a-f]{7,} \(HEAD -> main\) lower the rate\n[0-9a-f]{7,} Add VAT rate$/);
  t.deepEqual(shapeQuery(oneline).programs, ['git-log', 'git']);
  const graph = git('log', '--oneline', '--graph');
  t.regex(graph, /^\* [0-9a-f]{7,} lower the rate\n\* [0-9a-f]{7,} Add VAT rate$/);
  t.deepEqual(shapeQuery(graph).programs, ['git-log', 'git']);
  await writeFile(join(repo, 'vat.py'), 'RATE = 0.05\n');
  const summary = git('commit', '-am', 'Cut the rate');
  t.regex(
    summary,
    /^\[main [0-9a-f]{7,}\] Cut the rate\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)$/,
  );
  t.deepEqual(shapeQuery(summary).programs, ['git-commit', 'git']);
  const { cert } = selfSigned(await scratch(), 'invoicer.local');
  const fields = run('openssl', [
    'x509',
    '-in',
    cert,
    '-noout',
    '-subject',
    '-issuer',
    '-dates',
    '-fingerprint',
  ]);
  t.regex(
    fields,
    /^subject=CN ?= ?invoicer\.local\nissuer=CN ?= ?invoicer\.local\nnotBefore=.*\nnotAfter=.*\n(?:SHA1|sha1) Fingerprint=/,
  );
  t.deepEqual(shapeQuery(fields).programs, ['openssl-x509', 'openssl']);
  // sha256sum's line, a word of hex letters, and a number with a word after it are none of these.
  const sum = run('sha256sum', [cert]);
  t.false(shapeQuery(sum).programs.includes('git-log'));
  t.deepEqual(shapeQuery('deadbeef is a word').programs, []);
  t.deepEqual(shapeQuery('1234567 apples').programs, []);
});

test('openssl s_client’s report of a connection names s_client, though it prints x509’s fields too', async (t) => {
  const { cert, key } = selfSigned(await scratch(), 'devbox.local');
  const port = await quietPort();
  const server = spawn(
    'openssl',
    ['s_server', '-accept', `127.0.0.1:${port}`, '-cert', cert, '-key', key, '-naccept', '1'],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  t.teardown(() => server.kill());
  // s_server says ACCEPT once it listens.
  await new Promise<void>((resolve, reject) => {
    let said = '';
    server.stdout.on('data', (b: Buffer) => {
      said += b.toString();
      if (said.includes('ACCEPT')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`s_server exited (${code}): ${said}`)));
  });
  const report = await new Promise<string>((resolve, reject) =>
    execFile(
      'openssl',
      ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'devbox.local'],
      { env: { ...process.env, LC_ALL: 'C' } },
      (err, stdout, stderr) => (err ? reject(err) : resolve(`${stdout}${stderr}`)),
    ).stdin?.end(),
  );
  t.regex(report, /^verify error:num=18:self-signed certificate$/m);
  t.regex(report, /^subject=CN ?= ?devbox\.local$/m);
  t.regex(report, /^Verify return code: 18 \(self-signed certificate\)$/m);
  t.deepEqual(shapeQuery(report).programs.slice(0, 2), ['openssl-s_client', 'openssl']);
});

test('ssh’s verdict on an option’s value, wget’s -O into a missing directory and systemctl’s --lines', async (t) => {
  const value = run(
    'ssh',
    ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=accept_new', '-p', '9', '127.0.0.1', 'true'],
    {
      input: '',
    },
  );
  t.is(value, 'command-line line 0: unsupported option "accept_new".\r');
  t.deepEqual(shapeQuery(value).programs, ['ssh']);
  const dir = await scratch();
  const target = join(dir, 'missing', 'pantry.tar.gz');
  // wget refuses before it connects: the directory for -O is not there.
  const save = run('wget', ['-q', '-O', target, 'http://127.0.0.1:9/pantry.tar.gz']);
  t.is(save, `${target}: No such file or directory`);
  t.true(shapeQuery(save).programs.includes('wget'));
  const lines = run('systemctl', ['status', '-n', 'all', 'kortty-no-such.service']);
  t.is(lines.split('\n')[0], "Failed to parse lines 'all'");
  t.deepEqual(shapeQuery(lines).programs, ['systemctl']);
});

test('reports by their headers and fields: ps -o, systemctl list-unit-files, netstat, route, zstd -l, fincore, systemd-analyze, dpkg -s, systemd-delta, du -h, stat -f', async (t) => {
  const dir = await scratch();
  const ps = run('ps', ['-o', 'pid,user,%cpu,rss,cmd', '-p', String(process.pid)]);
  t.regex(ps.split('\n')[0]!, /^\s*PID USER +%CPU +RSS CMD$/);
  t.is(shapeQuery(ps).programs[0], 'ps');
  const units = run('systemctl', ['list-unit-files', '--no-pager']);
  t.regex(units.split('\n')[0]!, /^UNIT FILE +STATE(?: +PRESET)?\s*$/);
  t.is(shapeQuery(units.split('\n').slice(0, 4).join('\n')).programs[0], 'systemctl');
  const listening = run('netstat', ['-ltn']);
  t.regex(listening.split('\n')[0]!, /^Active Internet connections \(only servers\)$/);
  t.is(shapeQuery(listening).programs[0], 'netstat');
  for (const [cmd, args] of [
    ['netstat', ['-rn']],
    ['route', ['-n']],
  ] as const) {
    const table = run(cmd, [...args]);
    t.is(table.split('\n')[0], 'Kernel IP routing table', cmd);
    t.deepEqual(shapeQuery(table).programs.slice(0, 2), ['netstat', 'route'], cmd);
  }
  // Changes need privileges; net-tools names the refused ioctl, not the program.
  for (const [cmd, args, want] of [
    ['route', ['add', 'default', 'gw', '10.0.0.1'], 'route'],
    ['route', ['del', '-net', '10.9.0.0', 'netmask', '255.255.0.0'], 'route'],
    ['ifconfig', ['lo', 'mtu', '1400'], 'ifconfig'],
    ['arp', ['-s', '10.0.0.7', '00:11:22:33:44:55'], 'arp'],
    ['arp', ['-d', '10.0.0.7'], 'arp'],
  ] as const) {
    const refused = runUnprivileged(cmd, [...args]);
    t.regex(refused, /^SIOC[A-Z]+(?:\(\w+\))?: Operation not permitted$/, cmd);
    t.is(shapeQuery(refused).programs[0], want, refused);
  }
  const data = join(dir, 'access.log');
  await writeFile(data, 'GET / 200\n'.repeat(500));
  run('zstd', ['-q', data]);
  const frames = run('zstd', ['-l', `${data}.zst`]);
  t.regex(frames.split('\n')[0]!, /^Frames +Skips +Compressed +Uncompressed +Ratio +Check +Filename$/);
  t.is(shapeQuery(frames).programs[0], 'zstd');
  const cached = run('fincore', [data]);
  t.regex(cached.split('\n')[0]!, /^ *RES +PAGES +SIZE +FILE$/);
  t.is(shapeQuery(cached).programs[0], 'fincore');
  const calendar = run('systemd-analyze', ['calendar', 'Mon..Fri 02:30']);
  t.regex(calendar, /^Normalized form: Mon\.\.Fri \*-\*-\* 02:30:00$/m);
  t.is(shapeQuery(calendar).programs[0], 'systemd-analyze');
  const status = run('dpkg', ['-s', 'dpkg']);
  t.regex(status, /^Status: install ok installed$/m);
  t.deepEqual(shapeQuery(status).programs.slice(0, 2), ['dpkg', 'dpkg-query']);
  const delta = run('systemd-delta', ['--type=overridden', '--no-pager']);
  t.regex(delta, /^\d+ overridden configuration files? found\.$/m);
  t.is(shapeQuery(delta.split('\n').at(-1)!).programs[0], 'systemd-delta');
  const usage = run('du', ['-sh', dir]);
  t.regex(usage, /^\d+(?:\.\d+)?[KM]\t\//);
  t.deepEqual(shapeQuery(usage).programs, ['du']);
  const fs = run('stat', ['-f', dir]);
  t.regex(fs, /^ +ID: [0-9a-f]+ +Namelen: \d+ +Type: \S+$/m);
  t.is(shapeQuery(fs).programs[0], 'stat');
  // A row of numbers is a table's, not a crontab entry: vmstat's has no `*`.
  t.deepEqual(shapeQuery('0 0 0 1234 5678 10 0 0 1 2 3 4 97 0 0').programs, []);
});

test('a file’s facts by their layout: file, blkid, filefrag, lsattr, badblocks, ldd, pstree, openssl dgst and rsa -check, id as nobody', async (t) => {
  const dir = await scratch();
  const text = join(dir, 'notes.txt');
  await writeFile(text, 'plain words\n');
  run('gzip', ['-k', text]);
  const kinds = run('file', [text, `${text}.gz`]);
  t.regex(kinds, /notes\.txt: +ASCII text$/m);
  t.regex(kinds, /notes\.txt\.gz: +gzip compressed data/m);
  t.deepEqual(shapeQuery(kinds).programs.slice(0, 1), ['file']);
  const image = join(dir, 'data.img');
  run('mke2fs', ['-q', '-F', '-L', 'data', image, '1M']);
  const tags = run('blkid', [image]);
  t.regex(tags, /^\/\S+data\.img: LABEL="data" UUID="/);
  t.deepEqual(shapeQuery(tags).programs, ['blkid']);
  const frag = run('filefrag', ['-v', text]);
  t.regex(frag.split('\n')[0]!, /^Filesystem type is: [0-9a-f]+$/);
  t.is(shapeQuery(frag).programs[0], 'filefrag');
  const blocks = run('badblocks', ['-v', image]);
  t.regex(blocks, /^Checking blocks 0 to \d+$/m);
  t.is(shapeQuery(blocks).programs[0], 'badblocks');
  const flags = run('lsattr', [text]);
  // lsattr reads the flags through an ioctl some file systems lack: then it says so, by name.
  if (/^[-a-zA-Z]{16,24} /.test(flags))
    t.deepEqual(shapeQuery(flags).programs.slice(0, 2), ['lsattr', 'chattr']);
  else t.regex(flags, /^lsattr: /);
  const libs = run('ldd', ['/bin/ls']);
  t.regex(libs, /^\s*linux-vdso\.so\.1 \(0x[0-9a-f]+\)$/m);
  t.deepEqual(shapeQuery(libs).programs, ['ldd']);
  const tree = run('pstree', ['-A', '-p', String(process.pid)]);
  t.regex(tree, /^node\(\d+\)(?:-\+-|---)/);
  t.is(shapeQuery(tree).programs[0], 'pstree');
  const digest = run('openssl', ['md5'], { input: 'modulus\n' });
  t.regex(digest, /^MD5\(stdin\)= [0-9a-f]{32}$/);
  t.deepEqual(shapeQuery(digest).programs, ['openssl-dgst', 'openssl']);
  const { key } = selfSigned(dir, 'web1.example.com');
  const check = run('openssl', ['rsa', '-check', '-noout', '-in', key]);
  t.is(check, 'RSA key ok');
  t.deepEqual(shapeQuery(check).programs, ['openssl-rsa', 'openssl']);
  const who = runUnprivileged('id', []);
  t.regex(who, /^uid=65534\(nobody\) gid=65534\(nogroup\)/);
  t.deepEqual(shapeQuery(who).programs, ['id']);
});

test('ssh-agent’s variables, unzip’s directory check, curl -I’s status line and tmux’s own lines name them', async (t) => {
  const agent = run('ssh-agent', ['-s']);
  const pid = Number(/^SSH_AGENT_PID=(\d+);/m.exec(agent)?.[1]);
  t.teardown(() => {
    if (pid > 0) process.kill(pid);
  });
  t.regex(agent, /^SSH_AUTH_SOCK=\S+; export SSH_AUTH_SOCK;$/m);
  t.deepEqual(shapeQuery(agent).programs, ['ssh-agent']);

  const dir = await scratch();
  await chmod(dir, 0o755);
  const file = join(dir, 'site.txt');
  await writeFile(file, 'index\n');
  run('zip', ['-q', '-j', join(dir, 'site.zip'), file]);
  // nobody cannot create a directory under /root.
  const unzip = runUnprivileged('unzip', ['-q', join(dir, 'site.zip'), '-d', '/root/kortty-no-such/site']);
  t.regex(unzip, /^checkdir(?: error)?: +cannot create extraction directory: /m);
  t.is(shapeQuery(unzip).programs[0], 'unzip');

  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const head = await new Promise<string>((resolve, reject) =>
    execFile('curl', ['-sI', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`], (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
  t.regex(head, /^HTTP\/1\.1 200 OK\r$/m);
  t.is(shapeQuery(head).programs[0], 'curl');

  const sock = join(dir, 'tmux.sock');
  const tmux = (...args: string[]) => run('tmux', ['-S', sock, '-f', '/dev/null', ...args]);
  t.teardown(() => tmux('kill-server'));
  t.is(tmux('new-session', '-d', '-s', 'maint'), '');
  const again = tmux('new-session', '-d', '-s', 'maint');
  t.is(again, 'duplicate session: maint');
  t.deepEqual(shapeQuery(again).programs, ['tmux']);
  const sessions = tmux('ls');
  t.regex(sessions, /^maint: 1 windows \(created .+\)$/);
  t.deepEqual(shapeQuery(sessions).programs, ['tmux']);
  const windows = tmux('list-windows', '-t', 'maint');
  t.regex(windows, /^0: \S+ \(1 panes\) \[\d+x\d+\]/);
  t.deepEqual(shapeQuery(windows).programs, ['tmux']);
  // Without a terminal, a client that must draw one gives up with its own words.
  const attach = tmux('attach', '-t', 'maint');
  t.is(attach, 'open terminal failed: not a terminal');
  t.deepEqual(shapeQuery(attach).programs, ['tmux']);
});

test('base64’s verdict names it, also glued to what it decoded before the bad byte', (t) => {
  const decoded = run('base64', ['-d'], { input: 'eyJ1c2VyIjoiYWRtaW4iLCJleHAiOjE3MTg*' });
  t.is(decoded, '{"user":"admin","exp":1718base64: invalid input');
  t.deepEqual(shapeQuery(decoded).programs, ['base64']);
});

test('logs by their own dates: dpkg’s, apt’s history and the alternatives log; a crontab entry names its command first', (t) => {
  // Log files the package tools write as root during an install, quoted as they word them.
  const dpkgLog = [
    '2026-03-14 09:27:05 startup packages configure',
    '2026-03-14 09:27:05 configure man-db:amd64 2.11.2-2 <none>',
    '2026-03-14 09:27:05 status half-configured man-db:amd64 2.11.2-2',
    '2026-03-14 09:27:06 status installed man-db:amd64 2.11.2-2',
  ].join('\n');
  t.deepEqual(shapeQuery(dpkgLog).programs, ['dpkg']);
  const history = [
    'Start-Date: 2026-03-14  09:27:01',
    'Commandline: apt-get install -y tree',
    'Install: tree:amd64 (2.1.0-1)',
    'End-Date: 2026-03-14  09:27:06',
  ].join('\n');
  t.is(shapeQuery(history).programs[0], 'apt');
  const alternatives =
    'update-alternatives 2026-03-14 09:27:06: run with --quiet --install /usr/bin/pager pager /bin/less 77';
  t.is(shapeQuery(alternatives).programs[0], 'update-alternatives');
  // A crontab entry: the command's page, then crontab's and cron's; /etc/crontab's user is no program.
  t.deepEqual(shapeQuery('15 4 * * 0 /usr/bin/journalctl --vacuum-time=14d').programs, [
    'journalctl',
    'crontab',
    'cron',
  ]);
  t.deepEqual(shapeQuery('30 2 * * * root /usr/local/bin/db-backup.sh > /dev/null 2>&1').programs.slice(-2), [
    'crontab',
    'cron',
  ]);
  t.false(shapeQuery('30 2 * * * root /usr/local/bin/db-backup.sh').programs.includes('root'));
  t.deepEqual(shapeQuery('@daily tar czf /backup/etc.tgz /etc').programs, ['tar', 'crontab', 'cron']);
});
