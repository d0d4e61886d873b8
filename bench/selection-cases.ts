// The selection evaluation set, as data: which man pages form the corpus, the project directory
// the commands run in, the commands that are run (their real output becomes a query) and the
// command lines a user would select. Each query is judged by the page of the command the user
// ran: the program that printed the output, or the one that started it (scp printing ssh's
// error). Read by bench/selection-set.ts (pure) and bench/selection-capture.ts (runs them).

/**
 * The corpus: man pages of common commands, by the name a user types. Ordered by name; a page
 * that is not installed is skipped with a note (and so are the queries it judges). `awk` is
 * whatever page `man awk` shows (mawk on Debian); `gcc` has no page unless gcc's doc package is
 * installed, and stays as the usual example of a skipped page.
 */
export const PAGES: readonly string[] = [
  'awk',
  'base64',
  'basename',
  'bash',
  'bzip2',
  'cat',
  'chmod',
  'chown',
  'cmp',
  'comm',
  'cp',
  'curl',
  'cut',
  'date',
  'dd',
  'df',
  'diff',
  'du',
  'env',
  'file',
  'find',
  'gcc',
  'git',
  'gpg',
  'grep',
  'gzip',
  'head',
  'id',
  'journalctl',
  'jq',
  'kill',
  'less',
  'ln',
  'ls',
  'make',
  'md5sum',
  'mkdir',
  'mv',
  'node',
  'nohup',
  'openssl',
  'paste',
  'patch',
  'perl',
  'ps',
  'python3',
  'realpath',
  'rm',
  'rsync',
  'scp',
  'sed',
  'seq',
  'sha256sum',
  'sort',
  'split',
  'sqlite3',
  'ssh',
  'ssh-keygen',
  'stat',
  'strace',
  'systemctl',
  'tail',
  'tar',
  'tee',
  'timeout',
  'tmux',
  'touch',
  'tr',
  'uniq',
  'unzip',
  'wc',
  'wget',
  'xargs',
  'xz',
  'zip',
  'zstd',
];

/**
 * How the output is framed as the user's selection:
 * - `output`: the printed lines only;
 * - `prompt`: a bash prompt with the command line, then the output;
 * - `color-prompt`: the same with Debian's coloured prompt (ANSI escapes);
 * - `ci-log`: a CI log: the command as `+ cmd` (set -x), every line after an ISO timestamp;
 * - `scrollback`: about 200 lines of an earlier command's output in the terminal above, then the
 *   prompt, the command and its output (the whole screen selected).
 */
export type Frame = 'output' | 'prompt' | 'color-prompt' | 'ci-log' | 'scrollback';

export interface RunCase {
  id: string;
  /** The judged page (one of PAGES). */
  page: string;
  /**
   * Pages a fair judge accepts as well, where the corpus has them: the shown command's subcommand
   * page (`git log` runs git-log, documented in git-log(1); `openssl s_client` in
   * openssl-s_client(1)). Judges who did not see the ranking pick these as often as the program's.
   */
  also?: readonly string[];
  /** What runs, in the project directory (argv[0] looked up on PATH unless it is a path; never through a shell). */
  argv: string[];
  /** The command line as the user typed it, when it differs from argv (globs, redirections). */
  shown?: string;
  /** A project file fed to stdin (`< file` in `shown`). */
  stdin?: string;
  frame: Frame;
}

export interface LineCase {
  id: string;
  page: string;
  /** As RunCase's. */
  also?: readonly string[];
  /** A command line a user would select to ask about it. */
  line: string;
}

/** Files of the project directory (`~/proj`), relative to it; mode 0644 unless given. */
export const PROJECT_FILES: readonly { path: string; text: string; mode?: number }[] = [
  { path: 'notes.txt', text: 'alpha\nbeta\nTODO: fix the release script\ngamma\n' },
  { path: 'a.txt', text: 'apple\nbanana\ncherry\n' },
  { path: 'b.txt', text: 'apple\nblueberry\ncherry\ndate\n' },
  { path: 'unsorted.txt', text: 'pear\napple\nfig\n' },
  { path: 'backup.tar', text: 'this is not a tar archive, only text\n'.repeat(20) },
  { path: 'logs.gz', text: 'plain text pretending to be gzip\n' },
  { path: 'dump.xz', text: 'plain text pretending to be xz\n' },
  { path: 'dump.zst', text: 'plain text pretending to be zstd\n' },
  { path: 'data.bz2', text: 'plain text pretending to be bzip2\n' },
  { path: 'artifact.zip', text: 'plain text pretending to be a zip file\n' },
  { path: 'app.db', text: 'plain text pretending to be an SQLite database, long enough to have a header.\n' },
  { path: 'report.json', text: '{\n  "name": "build",\n  "items": [1, 2,, 3]\n}\n' },
  {
    path: 'fix.patch',
    text: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n-one\n-two\n+uno\n+dos\n three\n',
  },
  { path: 'token.b64', text: 'aGVsbG8gd29ybGQ=\n!!not base64!!\n' },
  { path: 'deploy.sh', text: '#!/bin/sh\necho deploying\n' },
  { path: 'install.sh', text: '#!/bin/bash\nif [ -f x ]; then\n  echo ok\nfi fi\n' },
  { path: 'Makefile', text: 'all: build\n\nbuild:\n\tfalse\n\ntest:\n\t./deploy.sh\n' },
  { path: 'broken.mk', text: 'all:\n    echo indented with spaces\n' },
  {
    path: 'app.py',
    text: [
      'import json',
      '',
      'def load(path):',
      '    with open(path) as f:',
      '        return json.load(f)',
      '',
      'def main():',
      "    cfg = load('config.json')",
      "    print(cfg['port'])",
      '',
      'main()',
      '',
    ].join('\n'),
  },
  { path: 'parse.py', text: "def port(cfg):\n    return cfg['port']\n\nprint(port({}))\n" },
  {
    path: 'server.js',
    text: [
      "const cfg = require('./config.json');",
      'function start(opts) {',
      '  return opts.server.listen(cfg.port);',
      '}',
      'start({});',
      '',
    ].join('\n'),
  },
  { path: 'config.json', text: '{ "host": "localhost" }\n' },
  {
    path: 'SHA256SUMS',
    text: '0000000000000000000000000000000000000000000000000000000000000000  notes.txt\n',
  },
  { path: 'MD5SUMS', text: 'd41d8cd98f00b204e9800998ecf8427e  release.tar.gz\n' },
  { path: 'ssh_config', text: 'Host build\n  Hostnmae 10.0.0.5\n  User deploy\n' },
  { path: 'id_deploy.pub', text: 'not a key at all\n' },
  { path: 'broken/.git', text: 'gitdir: /srv/git/broken.git\n' },
  { path: 'repo/TODO.md', text: '- release notes\n' },
];

/** The modification time every project file gets (listings then print the same dates). */
export const PROJECT_MTIME = new Date('2026-03-14T09:26:53Z');

/** Commands that prepare the project before the cases run (their output is not a query). */
export const PROJECT_SETUP: readonly string[][] = [
  ['git', '-c', 'init.defaultBranch=main', 'init', '-q', 'repo'],
  ['tar', '-czf', 'release.tar.gz', 'notes.txt', 'a.txt'],
  ['mkdir', '-p', 'src/api', 'src/db', 'src/ui', 'dist'],
];

/** A source tree whose real `ls -l` listing fills the scrollback above a `scrollback` case. */
export const SCROLLBACK_TREE = {
  dirs: ['src/api', 'src/db', 'src/ui'],
  filesPerDir: 64,
};

/** Above Linux's highest possible pid (PID_MAX_LIMIT, 2^22): no process can have it, so kill and
 * strace fail the same way everywhere and never touch a real process. */
const NO_PID = '4194305';
const closed = '127.0.0.1'; // port 1 on loopback: nothing listens there, so connections are refused

// Every case fails or prints without side effects outside the project: paths it may write are
// relative to it (and missing), system paths are only read, connections go to the closed port.
export const RUN_CASES: readonly RunCase[] = [
  // archives and compression
  { id: 'tar-missing-archive', page: 'tar', argv: ['tar', '-xzf', 'site-backup.tar.gz'], frame: 'output' },
  { id: 'tar-not-an-archive', page: 'tar', argv: ['tar', '-tvf', 'backup.tar'], frame: 'prompt' },
  {
    id: 'tar-member-not-found',
    page: 'tar',
    argv: ['tar', '-xzf', 'release.tar.gz', 'config/app.yml'],
    frame: 'ci-log',
  },
  { id: 'tar-list-verbose', page: 'tar', argv: ['tar', '-tzvf', 'release.tar.gz'], frame: 'color-prompt' },
  { id: 'gzip-not-gzip', page: 'gzip', argv: ['gzip', '-d', 'logs.gz'], frame: 'output' },
  { id: 'gzip-missing', page: 'gzip', argv: ['gzip', '-t', 'access.log.1.gz'], frame: 'prompt' },
  { id: 'xz-format', page: 'xz', argv: ['xz', '-d', 'dump.xz'], frame: 'output' },
  { id: 'zstd-format', page: 'zstd', argv: ['zstd', '-d', 'dump.zst'], frame: 'prompt' },
  { id: 'bzip2-not-bzip2', page: 'bzip2', argv: ['bzip2', '-d', 'data.bz2'], frame: 'output' },
  { id: 'unzip-not-zip', page: 'unzip', argv: ['unzip', 'artifact.zip'], frame: 'prompt' },
  { id: 'zip-nothing-to-do', page: 'zip', argv: ['zip', '-r', 'site.zip', 'public'], frame: 'output' },
  // network: a refused connection on a closed loopback port
  {
    id: 'curl-refused',
    page: 'curl',
    argv: ['curl', '-sS', `http://${closed}:1/api/health`],
    frame: 'output',
  },
  {
    id: 'curl-refused-prompt',
    page: 'curl',
    argv: ['curl', '-fsSL', `http://${closed}:1/install.sh`],
    frame: 'color-prompt',
  },
  {
    id: 'curl-unknown-option',
    page: 'curl',
    argv: ['curl', '--retry-all-errrors', `http://${closed}:1/`],
    frame: 'output',
  },
  {
    id: 'curl-file-missing',
    page: 'curl',
    argv: ['curl', '-sS', 'file:///etc/app/settings.ini'],
    frame: 'ci-log',
  },
  { id: 'wget-refused', page: 'wget', argv: ['wget', `http://${closed}:1/release.tar.gz`], frame: 'output' },
  {
    id: 'wget-refused-log',
    page: 'wget',
    argv: ['wget', '-c', `http://${closed}:1/images/base.qcow2`],
    frame: 'ci-log',
  },
  {
    id: 'ssh-refused',
    page: 'ssh',
    argv: ['ssh', '-o', 'BatchMode=yes', '-p', '1', `deploy@${closed}`, 'systemctl', 'restart', 'app'],
    frame: 'output',
  },
  {
    id: 'ssh-refused-identity',
    page: 'ssh',
    argv: ['ssh', '-o', 'BatchMode=yes', '-i', 'id_missing', '-p', '1', closed, 'uptime'],
    frame: 'prompt',
  },
  { id: 'ssh-bad-config', page: 'ssh', argv: ['ssh', '-F', 'ssh_config', 'build'], frame: 'output' },
  {
    id: 'scp-refused',
    page: 'scp',
    argv: ['scp', '-o', 'BatchMode=yes', '-P', '1', 'notes.txt', `${closed}:/tmp/`],
    frame: 'prompt',
  },
  {
    id: 'rsync-refused-ssh',
    page: 'rsync',
    argv: ['rsync', '-avz', '-e', 'ssh -o BatchMode=yes -p 1', 'src/', `${closed}:/srv/proj/`],
    shown: `rsync -avz -e 'ssh -p 1' src/ ${closed}:/srv/proj/`,
    frame: 'prompt',
  },
  {
    id: 'rsync-daemon-refused',
    page: 'rsync',
    argv: ['rsync', '-av', `rsync://${closed}:1/backup/`, 'dist/'],
    frame: 'output',
  },
  { id: 'rsync-missing-source', page: 'rsync', argv: ['rsync', '-av', 'build/', 'dist/'], frame: 'ci-log' },
  {
    id: 'ssh-keygen-invalid',
    page: 'ssh-keygen',
    argv: ['ssh-keygen', '-l', '-f', 'id_deploy.pub'],
    frame: 'output',
  },
  {
    id: 'ssh-keygen-missing',
    page: 'ssh-keygen',
    argv: ['ssh-keygen', '-y', '-f', 'id_ed25519'],
    frame: 'prompt',
  },
  {
    id: 'openssl-missing-cert',
    page: 'openssl',
    argv: ['openssl', 'x509', '-noout', '-text', '-in', 'server.pem'],
    frame: 'output',
  },
  {
    id: 'openssl-connect',
    page: 'openssl',
    also: ['openssl-s_client'],
    argv: ['openssl', 's_client', '-connect', `${closed}:1`],
    frame: 'prompt',
  },
  { id: 'gpg-missing-sig', page: 'gpg', argv: ['gpg', '--verify', 'release.tar.gz.sig'], frame: 'output' },
  // git
  { id: 'git-not-a-repo', page: 'git', argv: ['git', 'status'], frame: 'output' },
  {
    id: 'git-not-a-repo-prompt',
    page: 'git',
    also: ['git-log'],
    argv: ['git', 'log', '--oneline'],
    frame: 'color-prompt',
  },
  { id: 'git-broken-gitdir', page: 'git', argv: ['git', '-C', 'broken', 'status'], frame: 'output' },
  {
    id: 'git-no-commits',
    page: 'git',
    also: ['git-log'],
    argv: ['git', '-C', 'repo', 'log'],
    frame: 'prompt',
  },
  {
    id: 'git-pathspec',
    page: 'git',
    argv: ['git', '-C', 'repo', 'checkout', 'feature/login'],
    frame: 'output',
  },
  {
    id: 'git-no-origin',
    page: 'git',
    also: ['git-push'],
    argv: ['git', '-C', 'repo', 'push', 'origin', 'main'],
    frame: 'ci-log',
  },
  {
    id: 'git-clone-refused',
    page: 'git',
    also: ['git-clone'],
    argv: ['git', 'clone', `http://${closed}:1/team/app.git`],
    frame: 'prompt',
  },
  {
    id: 'git-clone-ssh-refused',
    page: 'git',
    argv: ['git', 'clone', `ssh://git@${closed}:1/team/app.git`],
    frame: 'output',
  },
  { id: 'git-unknown-command', page: 'git', argv: ['git', 'stauts'], frame: 'output' },
  { id: 'git-untracked', page: 'git', argv: ['git', '-C', 'repo', 'status'], frame: 'output' },
  // text tools
  {
    id: 'grep-color-matches',
    page: 'grep',
    argv: ['grep', '-rn', '--color=always', 'TODO', 'notes.txt', 'Makefile', 'app.py'],
    frame: 'color-prompt',
  },
  { id: 'grep-unmatched-paren', page: 'grep', argv: ['grep', '-E', 'error(', 'notes.txt'], frame: 'output' },
  {
    id: 'grep-missing-file',
    page: 'grep',
    argv: ['grep', '-n', 'timeout', '/etc/app/app.conf'],
    frame: 'prompt',
  },
  {
    id: 'sed-unterminated-s',
    page: 'sed',
    argv: ['sed', '-i', 's/alpha/omega', 'notes.txt'],
    frame: 'output',
  },
  { id: 'sed-unmatched-brace', page: 'sed', argv: ['sed', '-n', '/TODO/{p', 'notes.txt'], frame: 'prompt' },
  {
    id: 'awk-syntax',
    page: 'awk',
    argv: ['awk', '{print $', 'notes.txt'],
    shown: "awk '{print $' notes.txt",
    frame: 'output',
  },
  { id: 'awk-missing-program', page: 'awk', argv: ['awk', '-f', 'report.awk', 'notes.txt'], frame: 'prompt' },
  { id: 'sort-field-zero', page: 'sort', argv: ['sort', '-k', '0', 'a.txt'], frame: 'output' },
  { id: 'sort-check-disorder', page: 'sort', argv: ['sort', '-c', 'unsorted.txt'], frame: 'prompt' },
  { id: 'uniq-bad-fields', page: 'uniq', argv: ['uniq', '-f', 'x', 'a.txt'], frame: 'output' },
  { id: 'cut-position-zero', page: 'cut', argv: ['cut', '-c', '0-4', 'a.txt'], frame: 'output' },
  // run by its path (a script's `/usr/bin/…`, a Makefile's full path): the messages start with it
  { id: 'tar-empty-by-path', page: 'tar', argv: ['/usr/bin/tar', '-cf', 'empty.tar'], frame: 'output' },
  {
    id: 'sort-parallel-by-path',
    page: 'sort',
    argv: ['/usr/bin/sort', '--parallel=0', 'a.txt'],
    frame: 'output',
  },
  {
    id: 'grep-lookbehind-by-path',
    page: 'grep',
    argv: ['/usr/bin/grep', '-P', '(?<=a+)b', 'notes.txt'],
    frame: 'output',
  },
  {
    id: 'python-script-by-path',
    page: 'python3',
    argv: ['/usr/bin/python3', 'missing_script.py'],
    frame: 'output',
  },
  { id: 'xargs-zero-by-path', page: 'xargs', argv: ['/usr/bin/xargs', '-n', '0', 'true'], frame: 'output' },
  { id: 'cut-missing-argument', page: 'cut', argv: ['cut', '-d', ':', 'a.txt'], frame: 'prompt' },
  { id: 'tr-missing-operand', page: 'tr', argv: ['tr', '-d'], frame: 'output' },
  { id: 'head-bad-count', page: 'head', argv: ['head', '-n', 'ten', 'notes.txt'], frame: 'output' },
  {
    id: 'tail-missing-log',
    page: 'tail',
    argv: ['tail', '-n', '50', '/var/log/app/error.log'],
    frame: 'ci-log',
  },
  { id: 'wc-missing', page: 'wc', argv: ['wc', '-l', 'data.csv'], frame: 'output' },
  {
    id: 'diff-color',
    page: 'diff',
    argv: ['diff', '-u', '--color=always', 'a.txt', 'b.txt'],
    frame: 'color-prompt',
  },
  { id: 'diff-missing', page: 'diff', argv: ['diff', 'old.conf', 'new.conf'], frame: 'output' },
  { id: 'cmp-differ', page: 'cmp', argv: ['cmp', 'a.txt', 'b.txt'], frame: 'prompt' },
  { id: 'comm-unsorted', page: 'comm', argv: ['comm', 'a.txt', 'unsorted.txt'], frame: 'output' },
  { id: 'paste-missing', page: 'paste', argv: ['paste', '-d', ',', 'names.txt', 'a.txt'], frame: 'output' },
  {
    id: 'patch-garbage',
    page: 'patch',
    argv: ['patch', '-p1'],
    stdin: 'backup.tar',
    shown: 'patch -p1 < backup.tar',
    frame: 'output',
  },
  {
    id: 'patch-hunk-failed',
    page: 'patch',
    argv: ['patch', '-p1', '--dry-run'],
    stdin: 'fix.patch',
    shown: 'patch -p1 --dry-run < fix.patch',
    frame: 'prompt',
  },
  { id: 'jq-parse-error', page: 'jq', argv: ['jq', '.items', 'report.json'], frame: 'output' },
  {
    id: 'jq-compile-error',
    page: 'jq',
    argv: ['jq', '.items[', 'config.json'],
    shown: "jq '.items[' config.json",
    frame: 'prompt',
  },
  { id: 'base64-invalid', page: 'base64', argv: ['base64', '-d', 'token.b64'], frame: 'output' },
  { id: 'sha256sum-failed', page: 'sha256sum', argv: ['sha256sum', '-c', 'SHA256SUMS'], frame: 'output' },
  {
    id: 'sha256sum-print',
    page: 'sha256sum',
    argv: ['sha256sum', 'a.txt', 'b.txt', 'notes.txt'],
    frame: 'prompt',
  },
  { id: 'md5sum-missing', page: 'md5sum', argv: ['md5sum', '-c', 'MD5SUMS'], frame: 'ci-log' },
  // files
  { id: 'ls-color-long', page: 'ls', argv: ['ls', '-la', '--color=always'], frame: 'color-prompt' },
  { id: 'ls-missing', page: 'ls', argv: ['ls', '-l', 'build/output'], frame: 'output' },
  { id: 'ls-bad-option', page: 'ls', argv: ['ls', '--sort=mtime'], frame: 'output' },
  { id: 'cp-missing', page: 'cp', argv: ['cp', 'config.example.json', 'config.local.json'], frame: 'output' },
  { id: 'cp-omitting-dir', page: 'cp', argv: ['cp', 'src', 'dist/'], frame: 'prompt' },
  { id: 'mv-missing', page: 'mv', argv: ['mv', 'build/app', 'dist/app'], frame: 'output' },
  { id: 'rm-is-dir', page: 'rm', argv: ['rm', 'dist'], frame: 'output' },
  { id: 'rm-missing', page: 'rm', argv: ['rm', 'node_modules/.cache/lock'], frame: 'prompt' },
  { id: 'mkdir-exists', page: 'mkdir', argv: ['mkdir', 'src'], frame: 'output' },
  { id: 'ln-exists', page: 'ln', argv: ['ln', '-s', 'notes.txt', 'a.txt'], frame: 'output' },
  { id: 'chmod-invalid-mode', page: 'chmod', argv: ['chmod', 'u+q', 'deploy.sh'], frame: 'output' },
  { id: 'chmod-missing', page: 'chmod', argv: ['chmod', '+x', 'scripts/release.sh'], frame: 'prompt' },
  {
    id: 'chown-invalid-user',
    page: 'chown',
    argv: ['chown', 'www-deploy:www-deploy', 'notes.txt'],
    frame: 'output',
  },
  { id: 'touch-no-dir', page: 'touch', argv: ['touch', 'logs/app/today.log'], frame: 'output' },
  { id: 'stat-missing', page: 'stat', argv: ['stat', '/var/run/app.pid'], frame: 'output' },
  { id: 'du-missing', page: 'du', argv: ['du', '-sh', 'node_modules'], frame: 'output' },
  { id: 'df-missing', page: 'df', argv: ['df', '-h', '/mnt/backup'], frame: 'prompt' },
  {
    id: 'find-paths-precede',
    page: 'find',
    argv: ['find', '.', '-name', 'a.txt', 'b.txt', 'notes.txt', 'unsorted.txt'],
    shown: 'find . -name *.txt',
    frame: 'output',
  },
  { id: 'find-bad-mtime', page: 'find', argv: ['find', '.', '-mtime', 'week'], frame: 'prompt' },
  { id: 'xargs-missing-input', page: 'xargs', argv: ['xargs', '-a', 'files.txt', 'rm'], frame: 'output' },
  { id: 'file-missing', page: 'file', argv: ['file', 'firmware.bin'], frame: 'output' },
  { id: 'realpath-missing', page: 'realpath', argv: ['realpath', '-e', 'lib/current'], frame: 'output' },
  {
    id: 'tee-no-dir',
    page: 'tee',
    argv: ['tee', 'logs/run.log'],
    stdin: 'notes.txt',
    shown: 'tee logs/run.log < notes.txt',
    frame: 'output',
  },
  { id: 'split-bad-chunks', page: 'split', argv: ['split', '-n', 'x', 'a.txt'], frame: 'output' },
  { id: 'dd-missing', page: 'dd', argv: ['dd', 'if=ubuntu.iso', 'of=/dev/null', 'bs=4M'], frame: 'output' },
  { id: 'dd-bad-number', page: 'dd', argv: ['dd', 'if=a.txt', 'of=/dev/null', 'bs=4Q'], frame: 'prompt' },
  { id: 'less-missing', page: 'less', argv: ['less', 'CHANGELOG.md'], frame: 'output' },
  { id: 'cat-missing', page: 'cat', argv: ['cat', '.env.production'], frame: 'output' },
  // processes and environment
  { id: 'kill-no-process', page: 'kill', argv: ['kill', NO_PID], frame: 'output' },
  {
    id: 'ps-bad-option',
    page: 'ps',
    argv: ['ps', '--sort=mem', '-x', '--forest', '--nope'],
    frame: 'output',
  },
  { id: 'env-permission', page: 'env', argv: ['env', 'NODE_ENV=production', './deploy.sh'], frame: 'prompt' },
  { id: 'nohup-permission', page: 'nohup', argv: ['nohup', './deploy.sh'], frame: 'output' },
  { id: 'timeout-permission', page: 'timeout', argv: ['timeout', '30s', './deploy.sh'], frame: 'output' },
  {
    id: 'timeout-bad-signal',
    page: 'timeout',
    argv: ['timeout', '--signal=NOPE', '5', 'true'],
    frame: 'prompt',
  },
  { id: 'id-no-user', page: 'id', argv: ['id', 'deploy'], frame: 'output' },
  { id: 'date-invalid', page: 'date', argv: ['date', '-d', 'next blursday'], frame: 'output' },
  {
    id: 'date-fixed',
    page: 'date',
    argv: ['date', '-u', '-d', '@1700000000', '+%Y-%m-%dT%H:%M:%SZ'],
    frame: 'prompt',
  },
  { id: 'seq-invalid', page: 'seq', argv: ['seq', '1', 'x'], frame: 'output' },
  { id: 'basename-missing-operand', page: 'basename', argv: ['basename'], frame: 'output' },
  { id: 'strace-no-process', page: 'strace', argv: ['strace', '-p', NO_PID], frame: 'output' },
  { id: 'strace-missing', page: 'strace', argv: ['strace', '-f', './build/app'], frame: 'prompt' },
  {
    id: 'tmux-no-server',
    page: 'tmux',
    argv: ['tmux', '-S', 'tmux.sock', 'attach', '-t', 'build'],
    frame: 'output',
  },
  {
    id: 'tmux-unknown-command',
    page: 'tmux',
    argv: ['tmux', '-S', 'tmux.sock', 'attach-sesion'],
    frame: 'prompt',
  },
  {
    id: 'systemctl-no-systemd',
    page: 'systemctl',
    argv: ['systemctl', 'status', 'nginx.service'],
    frame: 'output',
  },
  {
    id: 'journalctl-no-journal',
    page: 'journalctl',
    argv: ['journalctl', '-u', 'nginx', '--since', 'today'],
    frame: 'prompt',
  },
  // builds and interpreters
  { id: 'make-no-makefile', page: 'make', argv: ['make', '-C', 'src'], frame: 'output' },
  { id: 'make-no-rule', page: 'make', argv: ['make', 'publish'], frame: 'prompt' },
  { id: 'make-recipe-failed', page: 'make', argv: ['make', 'build'], frame: 'ci-log' },
  { id: 'make-permission', page: 'make', argv: ['make', 'test'], frame: 'output' },
  { id: 'make-missing-separator', page: 'make', argv: ['make', '-f', 'broken.mk'], frame: 'output' },
  { id: 'bash-syntax', page: 'bash', argv: ['bash', '-n', 'install.sh'], frame: 'output' },
  {
    id: 'bash-bad-substitution',
    page: 'bash',
    argv: ['bash', '-c', 'echo ${HOME'],
    shown: "bash -c 'echo ${HOME'",
    frame: 'prompt',
  },
  { id: 'python-traceback', page: 'python3', argv: ['python3', 'app.py'], frame: 'prompt' },
  { id: 'python-keyerror', page: 'python3', argv: ['python3', 'parse.py'], frame: 'output' },
  {
    id: 'python-missing-script',
    page: 'python3',
    argv: ['python3', 'manage.py', 'migrate'],
    frame: 'output',
  },
  {
    id: 'python-no-module',
    page: 'python3',
    argv: ['python3', '-c', 'from myproject.settings import DATABASES'],
    shown: "python3 -c 'from myproject.settings import DATABASES'",
    frame: 'ci-log',
  },
  { id: 'node-type-error', page: 'node', argv: ['node', 'server.js'], frame: 'prompt' },
  {
    id: 'node-missing-module',
    page: 'node',
    argv: ['node', '-e', "require('express')"],
    shown: `node -e "require('express')"`,
    frame: 'output',
  },
  { id: 'node-bad-option', page: 'node', argv: ['node', '--experimental-foo', 'server.js'], frame: 'output' },
  { id: 'perl-missing-module', page: 'perl', argv: ['perl', '-MJSON::XS', '-e', '1'], frame: 'output' },
  { id: 'sqlite3-not-db', page: 'sqlite3', argv: ['sqlite3', 'app.db', '.tables'], frame: 'output' },
  {
    id: 'sqlite3-no-table',
    page: 'sqlite3',
    argv: ['sqlite3', ':memory:', 'select * from users;'],
    shown: "sqlite3 :memory: 'select * from users;'",
    frame: 'prompt',
  },
  // whole screens: the failing command below a long listing
  {
    id: 'scrollback-tar',
    page: 'tar',
    argv: ['tar', '-xf', 'backup.tar', '-C', 'dist'],
    frame: 'scrollback',
  },
  {
    id: 'scrollback-git',
    page: 'git',
    also: ['git-pull'],
    argv: ['git', 'pull', '--rebase'],
    frame: 'scrollback',
  },
  {
    id: 'scrollback-ssh',
    page: 'ssh',
    argv: ['ssh', '-o', 'BatchMode=yes', '-p', '1', `admin@${closed}`],
    frame: 'scrollback',
  },
  { id: 'scrollback-make', page: 'make', argv: ['make', 'build'], frame: 'scrollback' },
  { id: 'scrollback-python', page: 'python3', argv: ['python3', 'app.py'], frame: 'scrollback' },
];

export const LINE_CASES: readonly LineCase[] = [
  { id: 'line-rsync-delete', page: 'rsync', line: 'rsync -avz --delete src/ host:dst/' },
  {
    id: 'line-rsync-backup',
    page: 'rsync',
    line: "rsync -aHAX --info=progress2 --exclude='*.tmp' /home/ backup@nas:/srv/backup/home/",
  },
  {
    id: 'line-tar-create',
    page: 'tar',
    line: 'tar -czvf backup-2026-03-14.tar.gz --exclude=node_modules ./proj',
  },
  { id: 'line-tar-extract', page: 'tar', line: 'tar -xJf linux-6.8.tar.xz -C /usr/src' },
  { id: 'line-find-delete', page: 'find', line: "find . -name '*.log' -mtime +7 -delete" },
  { id: 'line-find-exec', page: 'find', line: 'find /var/www -type f -perm -o+w -exec chmod o-w {} +' },
  { id: 'line-git-rebase', page: 'git', also: ['git-rebase'], line: 'git rebase -i HEAD~3' },
  { id: 'line-git-reset', page: 'git', also: ['git-reset'], line: 'git reset --hard origin/main' },
  {
    id: 'line-git-log',
    page: 'git',
    also: ['git-log'],
    line: 'git log --oneline --graph --decorate --all',
  },
  { id: 'line-ssh-tunnel', page: 'ssh', line: 'ssh -L 8080:localhost:80 -N -f deploy@bastion.example.com' },
  { id: 'line-ssh-jump', page: 'ssh', line: 'ssh -J jump@10.0.0.1 admin@10.0.2.15' },
  { id: 'line-scp-recursive', page: 'scp', line: 'scp -r -P 2222 ./dist/ deploy@web01:/var/www/app/' },
  {
    id: 'line-curl-auth',
    page: 'curl',
    line: "curl -fsSL -H 'Authorization: Bearer $TOKEN' -o release.json https://api.example.com/v1/releases/latest",
  },
  {
    id: 'line-curl-post',
    page: 'curl',
    line: `curl -X POST -d '{"name":"x"}' -H 'Content-Type: application/json' http://localhost:3000/api/items`,
  },
  {
    id: 'line-wget-continue',
    page: 'wget',
    line: 'wget -c -O ubuntu.iso https://releases.example.org/24.04/ubuntu.iso',
  },
  {
    id: 'line-sed-inplace',
    page: 'sed',
    line: "sed -i.bak -E 's/^(PermitRootLogin) yes/\\1 no/' /etc/ssh/sshd_config",
  },
  { id: 'line-awk-fields', page: 'awk', line: "awk -F: '$3 >= 1000 {print $1}' /etc/passwd" },
  { id: 'line-grep-recursive', page: 'grep', line: "grep -rnw --include='*.py' 'def main' ." },
  { id: 'line-chmod-recursive', page: 'chmod', line: 'chmod -R u+rwX,go-w ./site' },
  { id: 'line-chown-recursive', page: 'chown', line: 'chown -R www-data:www-data /var/www/html' },
  { id: 'line-ln-switch', page: 'ln', line: 'ln -sfn /opt/app/releases/42 /opt/app/current' },
  { id: 'line-du-depth', page: 'du', line: 'du -h --max-depth=1 /var/lib/docker' },
  { id: 'line-df-types', page: 'df', line: 'df -hT -x tmpfs -x devtmpfs' },
  { id: 'line-ps-mem', page: 'ps', line: 'ps aux --sort=-%mem' },
  { id: 'line-kill-group', page: 'kill', line: 'kill -TERM -- -4242' },
  { id: 'line-tmux-new', page: 'tmux', line: "tmux new-session -d -s build 'make -j8'" },
  { id: 'line-tmux-split', page: 'tmux', line: 'tmux split-window -h -p 30 -c "#{pane_current_path}"' },
  { id: 'line-make-install', page: 'make', line: "make -j8 CFLAGS='-O2 -g' PREFIX=/usr/local install" },
  {
    id: 'line-openssl-req',
    page: 'openssl',
    line: 'openssl req -x509 -newkey rsa:4096 -nodes -keyout key.pem -out cert.pem -days 365',
  },
  {
    id: 'line-openssl-client',
    page: 'openssl',
    also: ['openssl-s_client'],
    line: 'openssl s_client -connect example.com:443 -servername example.com',
  },
  {
    id: 'line-ssh-keygen',
    page: 'ssh-keygen',
    line: "ssh-keygen -t ed25519 -C 'me@laptop' -f ~/.ssh/id_ed25519",
  },
  { id: 'line-zip-exclude', page: 'zip', line: "zip -r -9 site.zip public/ -x '*.map'" },
  { id: 'line-unzip-overwrite', page: 'unzip', line: 'unzip -o -d build/ artifact.zip' },
  { id: 'line-sort-numeric', page: 'sort', line: 'sort -t, -k3,3nr sales.csv' },
  { id: 'line-cut-fields', page: 'cut', line: 'cut -d: -f1,7 /etc/passwd' },
  { id: 'line-date-iso', page: 'date', line: 'date -u +%Y-%m-%dT%H:%M:%SZ' },
  {
    id: 'line-jq-select',
    page: 'jq',
    line: 'jq -r \'.items[] | select(.status=="failed") | .name\' report.json',
  },
  { id: 'line-python-venv', page: 'python3', line: 'python3 -m venv .venv' },
  { id: 'line-python-http', page: 'python3', line: 'python3 -m http.server 8000 --bind 127.0.0.1' },
  { id: 'line-node-inspect', page: 'node', line: 'node --inspect-brk=9229 server.js' },
  { id: 'line-strace-openat', page: 'strace', line: 'strace -f -e trace=openat -o trace.log ./app' },
  { id: 'line-dd-iso', page: 'dd', line: 'dd if=ubuntu.iso of=/dev/sdb bs=4M status=progress oflag=sync' },
  { id: 'line-sqlite-schema', page: 'sqlite3', line: "sqlite3 app.db '.schema users'" },
  { id: 'line-gpg-export', page: 'gpg', line: 'gpg --armor --export-secret-keys ABCDEF12 > key.asc' },
  { id: 'line-patch-dry', page: 'patch', line: 'patch -p1 --dry-run < fix.patch' },
  { id: 'line-xz-threads', page: 'xz', line: 'xz -T0 -9 big.log' },
  { id: 'line-zstd-long', page: 'zstd', line: 'zstd -19 --long=27 dump.sql' },
  { id: 'line-tail-follow', page: 'tail', line: 'tail -F /var/log/nginx/access.log' },
  { id: 'line-xargs-parallel', page: 'xargs', line: 'xargs -0 -n 1 -P 4 gzip -9' },
  {
    id: 'line-split-lines',
    page: 'split',
    line: 'split -l 100000 -d --additional-suffix=.csv big.csv part_',
  },
];
