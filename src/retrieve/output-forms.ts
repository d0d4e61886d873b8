// Output that is one program's although it does not open with the program's name. Pure.
//
// Most programs put their name first (`tar: Cannot open: …`) and query-shape.ts reads it there.
// Many of their commonest lines carry no name: git's status and advice, a compiler's
// `file:line:col: error:`, ssh's `Permission denied (publickey).`, diff's hunks and headers, the
// progress lines of wget and rsync, the header of ps's or df's table, ed's `?`. A user who
// selects one asks about that program, so its page is the likeliest answer. Each form is a fixed
// wording or layout of the program's own source, never a topic: a line about permissions in
// general names nobody.

/** One program, or a family whose pages document the same messages (the likelier first). */
type Programs = string | readonly string[];

// Read on the line before its timestamps, hex numbers and long numbers are dropped, anywhere after
// a blank (a CI log's own timestamp comes first). Each with a literal the line must hold, which
// most lines fail at once:
//   - make's error marker after a makefile's line (`broken.mk:2: *** missing separator.  Stop.`);
//   - wget's first line for each URL (`--2026-03-14 09:27:05--  http://…`);
//   - a line of OpenSSL's error queue as its command-line tool prints it
//     (`40578284FF7E0000:error:8000006F:system library:BIO_connect:…`; libraries that embed
//     OpenSSL's reason quote it inside their own message, never at a line's start);
//   - dpkg -L's first line, the package's root, `/.`;
//   - the place Perl appends to every `die` and warning (`… at -e line 1.`,
//     `syntax error at s.pl line 1, near …`);
//   - Node's own modules in a stack (`node:internal/modules/cjs/loader:1210`);
//   - the file header diff -u and diff -c write, a name and its time after a tab, which a
//     terminal shows as blanks (git's headers have no time: `--- a/x`);
//   - dig's comment lines (`; <<>> DiG 9.18 <<>> …`, `;; communications error to …`,
//     `;; no servers could be reached`), whose semicolons shaping strips; nslookup, of the same
//     source, prints some of them too;
//   - a byte dump's line, whose offset and bytes shaping drops as hex: hexdump -C's (hd's)
//     `00000000  7f 45 4c 46 …  |.ELF....|`, xxd's `00000000: 7f45 4c46 …  .ELF....`, od's
//     octal `0000000 042577 043114 …` and its characters (-c, -a);
//   - dd's summary (`4+0 records in`, `4194304 bytes (4.2 MB, 4.0 MiB) copied, 0.02 s, 204 MB/s`);
//   - git log's (and git show's) header of a commit, its full hash, with --decorate its refs
//     (`commit 1f0c…e9 (HEAD -> main)`), a reflog's entry and a blamed line, a short hash first;
//   - strace -c's summary table;
//   - stat's default layout (`  Size: 1310  Blocks: 8  IO Block: 4096  regular file`);
//   - iconv's verdict, also where it follows converted text that ended without a newline
//     (`Caf` then `iconv: illegal input sequence at position 3` shows as one line).

// What strace puts before a line: -f's pid (`[pid  4321] `, or `4321 ` with -o) and -t's time.
const STRACE_HEAD = String.raw`(?:\[pid +\d+\] |\d+ +)?(?:\d\d:\d\d:\d\d(?:\.\d+)? )?`;

// A crontab's entry: five schedule fields (one of them at least a `*`: a row of numbers is a table's)
// or a nickname, then the command, after a user name in /etc/crontab (`30 2 * * * root /usr/…`).
const CRON_ENTRY =
  /^(?:(?=(?:\S+\s+){0,4}\S*\*)(?:(?:[\d*][\d*/,-]*|[A-Za-z]{3}(?:-[A-Za-z]{3})?)\s+){5}|@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|hourly)\s+)([^\s\d].*)$/;

/** The command line of a crontab's entry, without its schedule and user name; undefined for others. */
export function cronCommand(stamped: string): string | undefined {
  const rest = CRON_ENTRY.exec(stamped)?.[1];
  if (rest === undefined) return undefined;
  // /etc/crontab's user field: a bare name before the command's path.
  return rest.replace(/^[a-z_][\w.-]*\s+(?=\/)/, '');
}

const SIGNATURES: ReadonlyArray<readonly [string, RegExp, Programs]> = [
  [': *** ', /(?:^|\s)[^\s:]+:\d+: \*\*\* /, 'make'],
  ['-- ', /(?:^|\s)--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d-- +(?:https?|ftps?):\/\//, 'wget'],
  [':error:', /(?:^|\s)[0-9A-F]{8,16}:error:[0-9A-F]{8}:/, 'openssl'],
  // dpkg -L lists a package's files from its root, which it writes `/.`: a line with no word.
  ['/.', /^\/\.$/, ['dpkg', 'dpkg-query']],
  [' line ', / at \S+ line \d+(?:\.$|, )/, 'perl'],
  ['node:internal/', /(?:^|[\s(])node:internal\//, 'node'],
  [
    ':',
    /^(?:---|\+\+\+|\*\*\*) \S(?:[^\t]*\t|\S* +)(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?(?: [+-]\d{4})?$|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}$)/,
    'diff',
  ],
  [
    '; ',
    /^(?:; <<>> DiG |;; (?:communications error to |connection timed out;|no servers could be reached|global options: |Got answer:|->>HEADER<<-|(?:QUESTION|ANSWER|AUTHORITY|ADDITIONAL) SECTION:|Query time: ))/,
    ['dig', 'nslookup'],
  ],
  // dd's transfer summary: whole and partial blocks read and written, then the bytes (a long
  // number, which shaping drops) and the rate.
  [' records ', /^\d+\+\d+ records (?:in|out)$/, 'dd'],
  // id's line (nobody's uid, 65534, is a long number), apt's history.log and the alternatives log
  // (their own dates), openssl dgst's digest, stat -f's fields, badblocks' range, pstree's tree,
  // and ldd's libraries with their load addresses.
  ['uid=', /^uid=\d+\([^)]*\) gid=\d+\(/, 'id'],
  [
    ': ',
    /^(?:(?:Start|End)-Date: \d{4}-\d\d-\d\d {1,2}\d\d:\d\d:\d\d$|Commandline: (?:apt|apt-get|aptitude)\b|Requested-By: \S+ \(\d+\)$)/,
    'apt',
  ],
  ['update-alternatives ', /^update-alternatives \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: /, 'update-alternatives'],
  [
    ')= ',
    /^(?:MD5|SHA1|SHA2-\d+|SHA224|SHA256|SHA384|SHA512|SHA3-\d+|BLAKE2[bs]\d+|RIPEMD160|SM3)\([^)]*\)= [0-9a-f]+$/,
    ['openssl-dgst', 'openssl'],
  ],
  ['Namelen: ', /^\s*ID: [0-9a-f]+ +Namelen: \d+ +Type: \S+$/, 'stat'],
  ['Fundamental block size: ', /^Block size: \d+ +Fundamental block size: \d+$/, 'stat'],
  ['Checking blocks ', /^Checking blocks \d+ to \d+$/, 'badblocks'],
  ['-', /^[A-Za-z][\w.:@]*(?:\(\d+\))?(?:-\+-|---)[A-Za-z{]/, 'pstree'],
  [
    '.so',
    /^\s*(?:(?:linux-vdso|linux-gate)\.so\.1 \(0x[0-9a-f]+\)|\S+\.so[\w.]* => (?:\S+ \(0x[0-9a-f]+\)|not found)|\/\S*\/ld-linux[\w.-]*\.so\.\d+ \(0x[0-9a-f]+\))$/,
    'ldd',
  ],
  // base64 -d's verdict, also glued to what it decoded when that had no final newline
  // (`{"user":"admin","exp":1718base64: invalid input`).
  ['base64: ', /base64: invalid input$/, 'base64'],
  // A line of dpkg's log (/var/log/dpkg.log): its own date and time, then an action or a status
  // change of a package (`2026-03-14 09:27:05 status half-configured man-db:amd64 2.11.2-2`).
  [
    ':',
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:startup (?:archives|packages) \S+$|status \S+ \S+:\S+ \S+$|conffile \S+ \S+$|(?:install|upgrade|remove|purge|configure|trigproc) \S+:\S+ )/,
    'dpkg',
  ],
  // A crontab's entry (see CRON_ENTRY): the command's own page leads (cronCommand), then these.
  // Its schedule holds a `*` or opens with a nickname's `@`, which most lines lack.
  ['*', CRON_ENTRY, ['crontab', 'cron']],
  ['@', CRON_ENTRY, ['crontab', 'cron']],
  [' copied, ', /^\d+ bytes (?:\([^)]*\) )?copied, [\d.]+ s, /, 'dd'],
  ['|', /^[0-9a-f]{8}(?: {1,2}[0-9a-f]{2}){1,16} +\|[^|]{1,16}\|$/, ['hexdump', 'hd']],
  [': ', /^[0-9a-f]{7,8}: (?:[0-9a-f]{2,4} ){1,8} .{1,16}$/, 'xxd'],
  // od's lines after their octal offset: its default octal words, or -c's and -a's characters,
  // each in a cell of four (a letter, a backslash escape, an octal byte, a named control:
  // `0000000   n   a   m   e  \r  \n`, `0000020  sp esc nul del`).
  [' ', /^[0-7]{7}(?:(?: [0-7]{6}){1,8}|(?: {3}\S| {4}| {2}\\\S| [0-7]{3}| {1,2}[a-z]{2,3}){1,16})$/, 'od'],
  // OpenSSL's progress while it searches for a key's primes: dots, pluses and a star.
  ['+', /^(?=[^.]*\.)[.+*]{16,}$/, 'openssl'],
  // passwd -S's status: the name, L(ocked), P(assword) or NP, the change date and the ages.
  [
    ' ',
    /^[a-z_][\w.-]* (?:P|PS|L|LK|NP) (?:\d{4}-\d\d-\d\d|\d\d\/\d\d\/\d{4}) -?\d+ -?\d+ -?\d+ -?\d+$/,
    'passwd',
  ],
  // git worktree list's rows (a path, its commit, its branch), and git branch -v's (a branch, its
  // commit, maybe its upstream, the subject).
  [
    '/',
    /^\/\S* +[0-9a-f]{7,40} (?:\[[^\]\s]+\]|\(detached HEAD\))(?: locked| prunable)?$/,
    ['git-worktree', 'git'],
  ],
  [
    ' ',
    /^(?:[*+] | {2})\S+ +(?=[0-9a-f]{0,11}[a-f])(?=[0-9a-f]{0,11}\d)[0-9a-f]{7,12} (?:\[[^\]]+\] )?\S/,
    ['git-branch', 'git'],
  ],
  // zstd's verdict on a file, its name padded to a column (`data.zst : Read error (39) : …`), also
  // after what is left of its progress line (`data.zst  : 0 B...  data.zst : Read error (39) : …`).
  [' error (', /(?:^|\s)\S+ *: (?:Read error|Decoding error|Write error) \(\d+\) : /, 'zstd'],
  ['commit ', /^commit [0-9a-f]{40}(?: \(.+\))?$/, ['git-log', 'git']],
  // The reflog's entry (git reflog, git log -g): a short hash, the ref and its entry number or
  // date, then the action (`a118ad1 HEAD@{2}: reset: moving to HEAD~1`).
  ['@{', /^[0-9a-f]{7,40} [^\s@]+@\{[^}]+\}: \S/, ['git-reflog', 'git']],
  // git log --oneline's line (under --graph's lanes, with --decorate's refs): an abbreviated hash
  // of letters and digits, then the subject (not a reflog's ref, not a blamed line's author and
  // time). git commit's summary: the branch and the new commit's
  // abbreviated hash in brackets.
  [
    ' ',
    /^(?:[*|\\/_ ]*[*|] +)?(?=[0-9a-f]{0,11}[a-f])(?=[0-9a-f]{0,11}\d)[0-9a-f]{7,12} (?![^\s@]+@\{)(?!.*\(.+? \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} +\d+\) )(?:\((?:HEAD|tag: |origin\/)[^)]*\) )?\S/,
    ['git-log', 'git'],
  ],
  ['] ', /^\[[^\]\s]+(?: \(root-commit\))? [0-9a-f]{7,12}\] \S/, ['git-commit', 'git']],
  // git blame's line: the commit (`^` marks the boundary), with -C or a rename the file, then the
  // author, time and line number in parentheses.
  [
    ' (',
    /^\^?[0-9a-f]{7,40} (?:\S+ +)?\(.+? \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} +\d+\) /,
    ['git-blame', 'git'],
  ],
  // strace -c's table of system calls, whose header opens with `%` like a zsh prompt.
  ['% time', /^% time\s+seconds\s+usecs\/call\s+calls\s+errors\s+syscall$/, 'strace'],
  ['IO Block: ', /(?:^|\s)Size: \d+\s+Blocks: \d+\s+IO Block: \d+\s/, 'stat'],
  [
    'iconv: ',
    /iconv: (?:illegal input sequence at position \d|incomplete character or shift sequence at end of buffer|cannot convert|conversion (?:from|to) )/,
    'iconv',
  ],
  // strace's system calls (`openat(AT_FDCWD, "/etc/shadow", O_RDONLY) = -1 EACCES (Permission
  // denied)`, its result padded to a column), a call another process interrupted and its
  // resumption, a signal, and the traced process's end (`+++ exited with 1 +++`, which is no shell
  // trace of `exited`); each after -f's pid and -t's time when they are on.
  [
    ' = ',
    new RegExp(
      String.raw`^${STRACE_HEAD}(?:<\.\.\. )?[a-z_][a-z0-9_]*(?:\(.*\)| resumed>.*) += (?:-?\d+|0x[0-9a-f]+|\?)(?: [A-Z][A-Z0-9_]+ \(.+\))?(?: <\d+\.\d+>)?$`,
    ),
    'strace',
  ],
  [
    '<unfinished ...>',
    new RegExp(String.raw`^${STRACE_HEAD}[a-z_][a-z0-9_]*\(.* <unfinished \.\.\.>$`),
    'strace',
  ],
  [
    '+++ ',
    new RegExp(
      String.raw`^${STRACE_HEAD}\+\+\+ (?:exited with \d+|killed by SIG[A-Z0-9]+(?: \(core dumped\))?) \+\+\+$`,
    ),
    'strace',
  ],
  ['--- SIG', new RegExp(String.raw`^${STRACE_HEAD}--- SIG[A-Z0-9]+ \{si_signo=SIG`), 'strace'],
  // prove's summary of a test run (Test::Harness): its totals line and its verdict.
  ['Files=', /^Files=\d+, Tests=\d+, +\d+ wallclock secs /, 'prove'],
  ['Result: ', /^Result: (?:PASS|FAIL|NOTESTS)$/, 'prove'],
];

/**
 * A line curl -v prints about its connection (`* Trying 127.0.0.1:8080...`, `* Connected to …`,
 * `* Closing connection 0`). Where one is in a selection, its `> GET / HTTP/1.1` and `< HTTP/1.1
 * 404` lines are curl's request and response, not commands at a `>` prompt.
 */
export const CURL_VERBOSE =
  /^\* (?:Trying \S+\.\.\.$|Connected to \S+ \(|Closing connection|Connection #\d+ to host |Host \S+ was resolved\.$|Failed to connect to |Could not resolve host: |connect to \S+ port \d+ failed: |HTTP 1\.[01], assume close after body$|Mark bundle as not supporting multiuse$|ALPN: |TLSv1\.[23] \(|SSL connection using |Server certificate:$)/;

/** diff's normal format opens each hunk with a change command: `2c2`, `5,7d4`, `0a1,3`. */
export const DIFF_CHANGE = /^\d+(?:,\d+)?[acd]\d+(?:,\d+)?$/;

// C and its relatives as GCC compiles them: a diagnostic names the source file by its suffix.
const C_SOURCE = String.raw`\S+\.(?:c|h|cc|cp|cpp|cxx|c\+\+|C|hh|hpp|hxx|m|mm|s|S|f|for|f90|f95)`;

// Read on the line as shaped (timestamps, indents and runs of blanks gone), in this order; the
// first that matches names the line's program.
const OPENINGS: ReadonlyArray<readonly [RegExp, Programs]> = [
  // git's wordings of one subcommand each: git's, then that subcommand's own page (and the page of
  // the one a user runs for it as well): switch's or checkout's unknown start point, checkout's
  // (or restore's) unmatched path, a tree its update would overwrite, a revision nothing resolves
  // (rev-parse's, as log and diff report it), update-index's mark, stash's empty list.
  [/^fatal: invalid reference: /, ['git', 'git-switch', 'git-checkout']],
  [/^error: pathspec '.*' did not match any file\(s\) known to git/, ['git', 'git-checkout', 'git-restore']],
  [
    /^error: Your local changes to the following files would be overwritten by checkout:$/,
    ['git', 'git-checkout', 'git-switch'],
  ],
  [
    /^error: Your local changes to the following files would be overwritten by merge:$/,
    ['git', 'git-merge', 'git-pull'],
  ],
  [
    /^fatal: ambiguous argument '.*': unknown revision or path not in the working tree\.$/,
    ['git', 'git-rev-parse', 'git-log'],
  ],
  [/^fatal: your current branch '.*' does not have any commits yet$/, ['git', 'git-log']],
  // rebase's and pull --rebase's refusal of a dirty tree, whose advice (`Please commit or stash
  // them.`) would otherwise rank stash's page first; config's verdict on a key without a section.
  [/^error: cannot rebase: /, ['git', 'git-rebase']],
  [/^error: cannot pull with rebase: /, ['git', 'git-pull']],
  [/^error: key does not contain a section: /, ['git', 'git-config']],
  [/^fatal: Unable to mark file /, ['git', 'git-update-index']],
  // branch's refusals to delete (the branch checked out, unknown, or not merged), and the
  // whitespace errors diff --check reports at a file's line.
  [
    /^error: (?:Cannot delete branch '.*' checked out at '|branch '.*' not found\.$|The branch '.*' is not fully merged\.?$)/,
    ['git', 'git-branch'],
  ],
  [
    /^\S+:\d+: (?:trailing whitespace|space before tab in indent|indent with non-tab characters|new blank line at EOF)\.$/,
    ['git', 'git-diff'],
  ],
  [
    /^(?:No stash entries found\.|No local changes to save|fatal: log for 'stash' only has \d+ entries|error: stash@\{\d+\} is not a valid reference)$/,
    ['git', 'git-stash'],
  ],
  [/^Aborting commit due to empty commit message\.$/, ['git', 'git-commit']],
  // git's refusals and advice that name no command, and the lines its transport relays
  // (`remote: …`) or writes (`To <url>`, `warning: redirecting to …`).
  [
    /^(?:(?:\*\*\* )?Please tell me who you are\.$|warning: (?:in the working copy of '.*', )?C?R?LF will be replaced by C?R?LF\b|error: could not lock config file )/,
    ['git', 'git-config'],
  ],
  [
    /^(?:error: you need to resolve your current index first$|\S+: needs merge$|error: (?:Pulling|Committing|Merging|Reverting|Cherry-picking) is not possible because you have unmerged files\.$|Your branch and '\S+' have diverged,$|error: insufficient permission for adding an object to repository database |error: RPC failed; |Unlink of file '.*' failed\. Should I try again\? \(y\/n\)|error: cannot lock ref '|warning: refname '.*' is ambiguous\.$|remote: \S|To (?:\S+:\S*|\S*\.git)$|warning: redirecting to https?:\/\/)/,
    'git',
  ],
  [
    /^error: no cherry-pick or revert in progress$|^error: commit \S+ is a merge but no -m option was given\.$/,
    ['git', 'git-cherry-pick', 'git-revert'],
  ],
  [
    /^(?:There is no tracking information for the current branch\.$|Please specify which branch you want to (?:merge with|rebase against)\.$)/,
    ['git', 'git-pull'],
  ],
  [
    /^Either specify the URL from the command-line or configure a remote repository using$/,
    ['git', 'git-push'],
  ],
  [/^warning: adding embedded git repository: /, ['git', 'git-add']],
  [
    /^error: (?:can't open patch '|patch failed: \S.*:\d+$|\S.*: patch does not apply$)/,
    ['git', 'git-apply'],
  ],
  [
    /^(?:However, there were unannotated tags: try --tags\.|fatal: No names found, cannot describe anything\.)$/,
    ['git', 'git-describe'],
  ],
  [
    /^Preparing worktree \((?:checking out|new branch|detached HEAD|resetting branch) /,
    ['git-worktree', 'git'],
  ],
  // diff --no-index's refusal of a path it cannot read.
  [/^error: Could not access '/, ['git', 'git-diff']],
  // git: its `fatal: ` and `hint: ` (other programs put their name first:
  // `postfix/smtpd[7]: fatal: …`), its refusal to merge a name it cannot resolve, and the status,
  // progress and advice lines of its porcelain.
  [/^(?:fatal|hint): |^merge: \S+ - not something we can merge$/, 'git'],
  [
    /^(?:Cloning into (?:bare repository )?'|Already up.to.date\.$|Switched to (?:a new |and reset )?branch '|Already on '|CONFLICT \([\w/ -]+\): |Automatic merge failed; |HEAD is now at |Note: switching to '|You are in 'detached HEAD' state|Everything up-to-date$|(?:Enumerating|Counting|Compressing|Writing|Receiving|Resolving) (?:objects|deltas): |Please commit your changes or stash them |diff --git a\/|diff --cc \S|Auto-merging \S|Unstaged changes after reset:$|Successfully rebased and updated |(?:Initialized empty|Reinitialized existing) Git repository in |! \[(?:remote )?rejected\] )/,
    'git',
  ],
  // git status's report (also under commit, stash and checkout, which print it as status does),
  // and its short form's branch line with an upstream (`## main...origin/main [ahead 1]`).
  [
    /^(?:On branch \S+$|HEAD detached (?:at|from) |Your branch (?:is (?:up to date|ahead|behind|based on) |and '[^']+' have diverged,$)|nothing to commit|no changes added to commit|Changes (?:not staged for commit|to be committed):$|Untracked files:$|Unmerged paths:$|## (?:\S+\.\.\.\S+(?: \[(?:ahead|behind|gone)[^\]]*\])?|No commits yet on \S+|HEAD \(no branch\))$)/,
    ['git', 'git-status'],
  ],
  // A diffstat's lines, which git diff --stat, merge, pull and apply --stat print.
  [
    /^(?:\d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?$|\S+ \| +\d+ \+*-*$)/,
    'git',
  ],
  // git stash's own report of what it saved, and its list's entries (the stash's ref, then the
  // branch it was made on).
  [/^Saved working directory and index state /, ['git', 'git-stash']],
  [/^stash@\{\d+\}: (?:WIP on|On) [^\s:]+: /, ['git-stash', 'git']],
  [
    /^error: (?:pathspec '.*' did not match any file\(s\) known to git|failed to push some refs to |Your local changes to the following files would be overwritten by |src refspec \S+ does not match any|The following untracked working tree files would be |cannot pull with rebase: |could not apply )/,
    'git',
  ],
  // jq's `parse error: … at line 1, column 9` (before 1.7 jq printed it without its name).
  [/^parse error: .* at line \d+, column \d+$/, 'jq'],
  // The sqlite3 shell's: SQL given as an argument, then SQL read from a script or standard input,
  // and the files it cannot open as a database (SQLite's own wording after the shell's `Error: `).
  [
    /^(?:Error: (?:in prepare|stepping), |(?:Parse|Runtime) error near line \d+: |Error: (?:file is not a database|unable to open database "))/,
    'sqlite3',
  ],
  // file's refusal quotes the name in its own way: `x: cannot open `x' (No such file or directory)`.
  [/^\S+: cannot open `[^']*' \(/, 'file'],
  // A Python traceback's header and frames, and the exceptions only Python raises by these names.
  [
    /^Traceback \(most recent call last\):$|^File "[^"]+", line \d+(?:, in |$)|^(?:ModuleNotFoundError|ImportError|IndentationError|TabError|ZeroDivisionError|KeyError|IndexError|AttributeError|UnboundLocalError|FileNotFoundError|PermissionError|ValueError|RecursionError|UnicodeDecodeError|UnicodeEncodeError|json\.decoder\.JSONDecodeError|subprocess\.CalledProcessError): /,
    'python',
  ],
  // Python's own SyntaxError wordings (JavaScript's start with a capital: `Unexpected token`).
  [
    /^SyntaxError: (?:invalid syntax|unterminated (?:string|triple-quoted string) literal|expected ':'|'[([{]' was never closed|unmatched '[)\]}]'|Missing parentheses in call to |invalid character |unexpected EOF while parsing|EOL while scanning)/,
    'python',
  ],
  // Python's json module (`python3 -m json.tool`) says where the text stopped being JSON.
  [
    /^(?:Expecting (?:value|property name enclosed in double quotes|',' delimiter|':' delimiter)|Extra data|Unterminated string starting at|Invalid control character at): line \d+ column \d+ \(char \d+\)$/,
    'python',
  ],
  // gsettings' unknown schema in its curly quotes.
  [/^No such schema “/, 'gsettings'],
  // Node names its version under an uncaught exception.
  [/^Node\.js v\d+\.\d+\.\d+$/, 'node'],
  [
    /^(?:Exception in thread "[^"]*" |Error: (?:Could not find or load main class|Unable to access jarfile|A JNI error has occurred|Could not create the Java Virtual Machine\.$)|Invalid (?:initial|maximum) heap size: |Unrecognized option: -)/,
    'java',
  ],
  // tmux's bare client errors.
  [
    /^(?:no server running on \S|error connecting to \S+ \(|no sessions$|can't find (?:session|window|pane|client): |sessions should be nested with care|duplicate session: \S|open terminal failed: )/,
    'tmux',
  ],
  // tmux lsw's line for a window: its index (gone as a gutter's by then) and name, panes and size.
  [/^(?:\d+: )?\S+ \(\d+ panes?\) \[\d+x\d+\]/, 'tmux'],
  // tmux ls's line for a session (its creation date has gone as a timestamp by then).
  [/^[^\s:]+: \d+ windows \(created\b/, 'tmux'],
  // The openssl tool's refusals to read a file (curl and servers say so after their own name).
  [
    /^(?:Could not read|[Uu]nable to load) (?:(?:private |public )?key|certificates?|certificate file|CRL|X509 request|Private Key|Public Key)\b/,
    'openssl',
  ],
  // OpenSSL's printout of a certificate (`openssl x509 -text`) or a request (`openssl req -text`):
  // its headline and the headings of its layout, which no other tool words so.
  [/^(?:Certificate|Subject Public Key Info|X509v3 extensions):$/, ['openssl-x509', 'openssl']],
  [/^(?:Certificate Request|Requested Extensions):$/, ['openssl-req', 'openssl']],
  // x509 -checkend's verdict, and a key's fingerprint as ssh-keygen -l (and ssh-add -l) print it.
  [/^Certificate will (?:not )?expire$/, ['openssl-x509', 'openssl']],
  // s_client's report of a connection: the chain's verification, the session's summary.
  [
    /^(?:depth=\d+ |verify (?:error:num=\d+:|return:\d)|CONNECTED\b|Certificate chain$|Server certificate$|No client certificate CA names sent$|Peer signing digest: |Peer signature type: |Server Temp Key: |SSL handshake has read \d+ bytes|Verification error: |New, (?:TLS|SSL)v|Server public key is \d+ bit$|Secure Renegotiation IS |Verify return code: \d+|No ALPN negotiated$|Early data was not sent$)/,
    ['openssl-s_client', 'openssl'],
  ],
  // x509's single fields (-subject, -issuer, -dates, -fingerprint).
  [
    /^(?:subject|issuer)=|^not(?:Before|After)=|^(?:SHA1|SHA256|sha1|sha256|MD5|md5) Fingerprint=/,
    ['openssl-x509', 'openssl'],
  ],
  // (Its key type in brackets, `(ED25519)`, may be gone by then, dropped as hex.)
  [/^\d+ SHA256:[A-Za-z0-9+/]{43}(?: |$)/, ['ssh-keygen', 'ssh-add']],
  // diff's normal format: a change command (`2c2`, `5,7d4`) opens each hunk.
  [DIFF_CHANGE, 'diff'],
  [/^\S+ \S+ differ: (?:byte|char) \d+, line \d+$/, 'cmp'],
  // diff's verdict on files that are not text (git diff says it too, of its `a/` and `b/` paths).
  [/^Binary files .+ and .+ differ$/, 'diff'],
  // tree's drawing of a directory (`├── src`, `│   └── main.c`; `|-- src` without UTF-8) and its
  // count; systemctl's and lsblk's trees draw one dash (`├─sda1`).
  [/^(?:[│|]\s+)*(?:[├└]──|[|`]--)\s\S|^\d+ director(?:y|ies), \d+ files?$/, 'tree'],
  [/^\S+: nothing appropriate\.?$/, ['whatis', 'apropos']],
  // iproute2's verdicts on an argument (its utilities', which tc shares) and on a device.
  [/^Error: [\w ]+ (?:prefix|address) is expected rather than "/, ['ip', 'ip-route', 'ip-address']],
  [
    /^Error: (?:argument ".*" is wrong: |either ".*" is duplicate, or ".*" is a garbage\.$|duplicate ".*": ".*" is the second value\.$)/,
    ['ip', 'tc'],
  ],
  [/^(?:Device ".*" does not exist\.$|Cannot find device ")/, ['ip', 'ip-link', 'ip-address']],
  [/^(?:Command|Object) ".*" is unknown, try "ip /, 'ip'],
  // bc: a run-time error in a function, and a parse error on standard input.
  [/^Runtime error \(func=|^\(standard_in\) \d+: /, 'bc'],
  // ed explains its `?` only when asked (`H`); these are its wordings.
  [
    /^(?:No match|Invalid address|No previous pattern|Invalid command suffix|Invalid destination|Warning: buffer modified)$/,
    'ed',
  ],
  [/^(?:Error \d+|Warning) : /, 'lz4'],
  [/^not a dynamic executable$/, 'ldd'],
  // The dynamic loader's refusal to start a program, after the program's name.
  [/^\S+: error while loading shared libraries: /, ['ld-linux', 'ld.so', 'ldd']],
  // The linker's failure as the compiler driver reports it: ld failed, and the driver ran it.
  [/^collect2: (?:fatal )?error: ld returned \d+ exit status$/, ['ld', 'gcc', 'cc', 'c99']],
  // The C compiler (GCC, also run as cc and c99): a diagnostic at a source line, the function it
  // arose in, and its driver's last words.
  [
    new RegExp(
      `^${C_SOURCE}:\\d+(?::\\d+)?: (?:fatal error|error|warning|note): |^\\S+: In (?:function|member function|constructor|destructor|static member function|lambda function) |^In file included from ${C_SOURCE}:\\d+|^compilation terminated\\.$|^collect2: (?:fatal )?error: `,
    ),
    ['gcc', 'cc', 'c99'],
  ],
  // GNU make's warning about a target with two recipes, at the makefile's lines.
  [/^\S+:\d+: warning: (?:overriding|ignoring old) recipe for target '/, 'make'],
  [/^(?:No manual entry for \S|What manual page do you want\?)/, 'man'],
  // Perl's own wordings where no `at FILE line N.` follows (a module loaded by `-M`).
  [
    /^(?:Can't locate \S+\.pm in @INC|BEGIN failed--compilation aborted|Can't locate object method "|Global symbol "[^"]+" requires explicit package name)/,
    'perl',
  ],
  [
    /^(?:Connecting to \S.*:\d+\.\.\. |Resolving \S+ \([^)]*\)\.\.\. |(?:HTTP|Proxy) request sent, awaiting response\.\.\. |ERROR \d{3}: |Saving to: |Reusing existing connection to |\S+: Unsupported scheme [‘'"]|\S.*: Bad port number\.$)/,
    'wget',
  ],
  [/^% Total % Received % Xferd /, 'curl'],
  // curl -v's own lines (its request and response headers are `> ` and `< ` lines: see
  // CURL_VERBOSE).
  [CURL_VERBOSE, 'curl'],
  [
    /^(?:patching file |checking file |Hunk #\d+ (?:FAILED|succeeded|ignored) at |\d+ out of \d+ hunks? (?:FAILED|ignored)|can't find file to patch at input line |Reversed \(or previously applied\) patch detected!|File to patch: |Skip this patch\? |Apply anyway\? )/,
    'patch',
  ],
  [
    /^(?:Archive: \S|(?:inflating|extracting|linking): \S|replace \S.* \[y\]es, \[n\]o|End-of-central-directory signature not found\.|caution: filename not matched: )/,
    'unzip',
  ],
  [/^(?:adding|updating|deleting): \S.* \((?:stored|deflated) \d+%\)$/, 'zip'],
  [
    /^(?:(?:sending|receiving) incremental file list$|sent (?:[\d,.]+[KMGT]? )?bytes received |total size is (?:[\d,.]+[KMGT]? )?speedup is |created directory \S)/,
    'rsync',
  ],
  [
    /^(?:PID TTY (?:STAT )?TIME (?:CMD|COMMAND)$|USER PID %CPU %MEM |UID PID PPID C STIME TTY TIME CMD$|F S UID PID PPID )/,
    'ps',
  ],
  // A header ps -o prints: its own column names only, PID among them (top's has PR, VIRT, TIME+).
  [
    /^(?=.*\bPID\b)(?:(?:PID|PPID|PGID|SID|TGID|LWP|NLWP|USER|RUSER|EUSER|UID|RUID|GROUP|GID|%CPU|%MEM|PSR|RSS|RSZ|VSZ|SZ|TTY|TT|STAT|NI|PRI|WCHAN|START|STIME|LSTART|TIME|ELAPSED|COMMAND|CMD|COMM|ARGS|CLS|RTPRIO)(?: |$)){3,}$/,
    'ps',
  ],
  [/^Filesystem (?:Type )?(?:Size|Inodes|\d+[KMG]?-blocks) /, 'df'],
  [/^total used free shared buff\/cache available$/, 'free'],
  // util-linux's and iproute2's tables by their default columns.
  [/^TARGET SOURCE FSTYPE OPTIONS$/, 'findmnt'],
  [
    /^NAME (?:MAJ:MIN RM SIZE RO TYPE |FSTYPE (?:FSVER )?LABEL UUID (?:FSAVAIL FSUSE% )?)MOUNTPOINTS?$/,
    'lsblk',
  ],
  // ss's table (without State under a state filter), and the counts of ss -s.
  [/^(?:Netid )?(?:State )?Recv-Q Send-Q Local Address:Port Peer Address:Port(?: ?Process)?$/, 'ss'],
  [/^(?:TCP: \d+ \(estab \d+, closed \d+, orphaned \d+, timewait \d+\)$|Transport Total IP IPv6$)/, 'ss'],
  // iproute2: the kernel's refusal as its tools report it, and the listings of ip route, ip neigh
  // and ip's brief (-br) address and link tables, each by its layout.
  [/^RTNETLINK answers: /, ['ip', 'tc']],
  // net-tools' tools report the kernel's refusal by the ioctl they called: route's routing-table
  // calls, ifconfig's interface calls, arp's cache calls.
  [/^SIOC(?:ADD|DEL)RT: /, 'route'],
  [/^SIOC[GS]IF\w+: /, 'ifconfig'],
  [/^SIOC[DGS]ARP(?:\(\w+\))?: /, 'arp'],
  [
    /^(?:default|(?:local |broadcast )?\d{1,3}(?:\.\d{1,3}){3}(?:\/\d+)?) (?:via \S+ )?dev \S+ (?:proto|scope|metric|src|via)\b/,
    ['ip-route', 'ip'],
  ],
  [
    /^\S+ dev \S+ (?:lladdr (?:\S+ )?)?(?:router )?(?:REACHABLE|STALE|DELAY|PROBE|FAILED|INCOMPLETE|NOARP|PERMANENT)$/,
    ['ip-neighbour', 'ip'],
  ],
  [
    /^\S+ (?:UNKNOWN|UP|DOWN|LOWERLAYERDOWN|DORMANT|NOTPRESENT) (?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:]*)\/\d+/,
    ['ip-address', 'ip'],
  ],
  // (A MAC address may be gone by then, dropped with other byte pairs.)
  [
    /^\S+ (?:UNKNOWN|UP|DOWN|LOWERLAYERDOWN|DORMANT|NOTPRESENT) (?:(?:[0-9a-f]{2}:){5}[0-9a-f]{2} )?<[A-Z_,-]+>$/,
    ['ip-link', 'ip'],
  ],
  // ip address's record of an interface (ip link's first line is the same), its addresses and
  // their lifetimes; a line's leading `1: ` has gone as a gutter by then.
  [
    /^(?:\S+: <[A-Z0-9_,-]*> mtu (?:\d+ )?qdisc |link\/(?:ether|loopback|none|ipip|sit|gre|tunnel6|void|ieee802\.11)\b)/,
    ['ip-address', 'ip-link', 'ip'],
  ],
  [
    /^(?:inet6? \S+\/\d+ (?:peer \S+ )?(?:brd \S+ )?scope (?:global|host|link|site|nowhere)\b|valid_lft (?:forever|\d+sec) preferred_lft )/,
    ['ip-address', 'ip'],
  ],
  // uname -a's line, id's, a line of mount's table, and env's listing by the variables every
  // login has (env sets `_` to its own path).
  [/^Linux \S+ \d+\.\d+\S* #\d+ .*\bGNU\/Linux$/, 'uname'],
  [/^\S+ on \/\S* type \S+ \(/, 'mount'],
  [/^(?:_=\S*\/(?:env|printenv)|(?:HOME|LOGNAME|OLDPWD|PWD|SHELL|SHLVL|USER)=\S*)$/, ['env', 'printenv']],
  // openssl verify's verdict on a chain.
  [/^error \d+ at \d+ depth lookup: |^error \S+: verification failed$/, ['openssl-verify', 'openssl']],
  // procps', util-linux's and shadow's reports by their layout: w's header and the uptime line
  // above it, vmstat -s's counters (their long numbers dropped by then), lsmem's table, last's
  // trailer, chage -l's fields.
  [/^USER TTY FROM LOGIN@ IDLE JCPU PCPU WHAT$/, 'w'],
  // (Its clock has gone as a timestamp by then.)
  [/^(?:\d\d:\d\d:\d\d )?up \S.*load average: /, ['uptime', 'w']],
  // top's summary area and its table's header, vmstat's headers, lscpu's fields that no other
  // report has, lsof's header.
  [
    /^(?:top - .*load average: |Tasks: \d+ total, +\d+ running, |%Cpu\(s\): |[KMGT]iB (?:Mem|Swap) ?: |PID USER PR NI VIRT RES SHR S %CPU %MEM TIME\+ COMMAND$)/,
    'top',
  ],
  [
    /^(?:procs -+memory-+ -+swap-+ -+io-+ -+system-+ -+cpu-+$|r b swpd free buff cache si so bi bo in cs us sy id wa st\b)/,
    'vmstat',
  ],
  [
    /^(?:CPU op-mode\(s\)|Thread\(s\) per core|Core\(s\) per (?:socket|cluster)|Socket\(s\)|NUMA node\(s\)|On-line CPU\(s\) list): /,
    'lscpu',
  ],
  [/^COMMAND PID (?:TID )?(?:TASKCMD )?USER FD TYPE DEVICE SIZE\/OFF NODE NAME$/, 'lsof'],
  // dpkg -l's legend and rows (their `|` rules gone as separators), apt list's rows.
  [
    /^(?:Desired=Unknown\/Install\/Remove\/Purge\/Hold$|Status=Not\/Inst\/Conf-files\/|\/ Err\?=\(none\)\/Reinst-required|\/ Name +Version +Architecture +Description$|(?:ii|rc|hi|iU|iF|un|pn) +\S+ +\S+ +(?:amd64|arm64|armhf|armel|i386|ppc64el|s390x|riscv64|all) +\S)/,
    ['dpkg', 'dpkg-query'],
  ],
  [
    /^\S+\/\S+ \S+ (?:amd64|arm64|armhf|armel|i386|ppc64el|s390x|riscv64|all) \[(?:installed|upgradable)/,
    'apt',
  ],
  // sysctl's `key = value` (a dotted kernel parameter), and update-alternatives --display.
  [/^[a-z][\w-]*(?:\.[\w-]+)+ = \S/, 'sysctl'],
  [
    /^(?:\S+ - (?:auto|manual) mode$|link best version is \/|link currently points to \/|link \S+ is \/|slave \S+ is \/)/,
    'update-alternatives',
  ],
  // gzip -l's and xz -l's headers, split --verbose's report.
  [/^compressed uncompressed ratio uncompressed_name$/, 'gzip'],
  [/^Strms Blocks Compressed Uncompressed Ratio Check Filename$/, 'xz'],
  [/^creating file '[^']+'$/, 'split'],
  [/^\s*(?:\d+ )?K (?:total|used|active|inactive|free) memory$/, 'vmstat'],
  [/^RANGE SIZE STATE REMOVABLE BLOCK$/, 'lsmem'],
  [/^[bwu]tmp(?:\.\d+)? begins\b/, 'last'],
  [
    /^(?:Last password change|Password expires|Password inactive|Account expires|(?:Minimum|Maximum) number of days between password change|Number of days of warning before password expires)\s*: /,
    'chage',
  ],
  // psmisc's killall names the process it did not find, and pstree the user.
  [/^\S+: no process found$/, 'killall'],
  [/^No such user name: /, 'pstree'],
  // apt-cache policy's record of a package.
  [/^\s*(?:Installed: (?:\(none\)|\S+)$|Candidate: \S+$|Version table:$)/, ['apt-cache', 'apt']],
  [/^\S+:\d+ - (?:no response|accepting connections|rejecting connections|no attempt)$/, 'pg_isready'],
  // less names the file it cannot show and nothing else; crontab (given a file), ssh-keygen (-f)
  // and wget (-O into a missing directory) word a missing file the same way.
  [/^\S+ is a directory$/, 'less'],
  [/^\S*[/.]\S*: No such file or directory$/, ['less', 'crontab', 'ssh-keygen', 'wget']],
  // The openssl tool's answer to a command it does not have.
  [/^Invalid command '.*'; type "help" for a list\.$/, 'openssl'],
  // enc -d's verdict on input that has no salt header (not its own output, or not decrypted by it).
  [/^bad magic number$/, ['openssl-enc', 'openssl']],
  // coreutils' -v reports: cp's (install's and ln's too) `'a' -> 'b'`, mv's `renamed`, rm's
  // `removed`, chmod's and chown's changes.
  [/^'[^']+' -> '[^']+'$/, ['cp', 'install', 'ln']],
  [/^renamed '[^']+' -> '[^']+'$/, 'mv'],
  [/^removed (?:directory )?'[^']+'$/, 'rm'],
  [/^mode of '.+' (?:changed from|retained as) /, 'chmod'],
  [/^(?:changed ownership|ownership|changed group|group) of '.+' (?:from|retained as) /, ['chown', 'chgrp']],
  // ssh: the server's refusal, host keys, the connection's end, and its checks of local files.
  [
    /Permission denied \((?:publickey|password|keyboard-interactive|hostbased|gssapi-with-mic)(?:,[\w-]+)*\)\.?$|^(?:Permission denied, please try again\.$|Host key verification failed\.$|The authenticity of host '|Are you sure you want to continue connecting \(yes\/no|Warning: Permanently added '|@ WARNING: (?:REMOTE HOST IDENTIFICATION HAS CHANGED|UNPROTECTED PRIVATE KEY FILE)! @$|IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!$|kex_exchange_identification: |Connection closed by \S+ port \d+$|Connection to \S+ closed(?: by remote host)?\.$|Bad owner or permissions on |Enter passphrase for key '|Unable to negotiate with \S+ port \d+: no matching |Connection timed out during banner exchange$|Bad port '|client_loop: send disconnect: |Received disconnect from |Bad (?:local|remote|dynamic) forwarding specification '|Warning: Identity file \S+ not accessible: |no such identity: |sign_and_send_pubkey: |channel \d+: open failed: |Warning: remote port forwarding failed for listen port |bind \[[^\]]*\]:\d+: |Could not request local forwarding\.$)/,
    'ssh',
  ],
  // ssh's verdict on its configuration (`-o` options are its `command-line: line 0`, and a value
  // it cannot take has no colon after the file: `command-line line 0: unsupported option`); awk's
  // `awk: line 1: …` has other words after the line.
  [
    /^\S+:? line \d+: (?:Bad configuration option|[Uu]nsupported option|keyword \S+ extra arguments at end of line|garbage at end of line|Missing argument)|^\S+: terminating, \d+ bad configuration options$/,
    'ssh',
  ],
  // A private key ssh could not load (`bad permissions` after its banner, most often), or ssh-keygen.
  [/^Load key "[^"]*": /, ['ssh', 'ssh-keygen']],
  [
    /^(?:Could not open a connection to your authentication agent\.$|Identity added: |Error connecting to agent: |The agent has no identities\.$|All identities removed\.$)/,
    'ssh-add',
  ],
  [
    /^(?:Generating public\/private \S+ key pair\.$|unknown key type \S+$|Your (?:identification|public key) has been saved in |The key fingerprint is:$|The key's randomart image is:$|Enter file in which to save the key |Enter same passphrase again: |Saving key ".*" failed: |Cannot stat \S|\S+ is not a (?:public )?key file\.$)/,
    'ssh-keygen',
  ],
  [
    /^(?:\S+ is not in the sudoers file\.|Sorry, try again\.$|Sorry, user \S+ (?:is not allowed to|may not run sudo)|\[sudo\] password for |We trust you have received the usual lecture)/,
    'sudo',
  ],
  // apt and apt-get share their messages; scripts run apt-get (apt warns that its interface is
  // not stable there), so its page, which documents them, comes first.
  [/^WARNING: apt does not have a stable CLI interface/, 'apt'],
  [/^The following packages have unmet dependencies:$/, ['apt-get', 'apt']],
  // dpkg's summary of the packages it failed on, under apt's run too.
  [/^Errors were encountered while processing:$/, ['dpkg', 'apt-get', 'apt']],
  [
    /^(?:[EWN]: [A-Z]|(?:Reading package lists|Building dependency tree|Reading state information)\.\.\.|Err:\d+ |(?:Get|Hit|Ign):\d+ \S+:\/\/)/,
    ['apt-get', 'apt'],
  ],
  [/^npm (?:ERR!|error|warn|WARN|notice) /, 'npm'],
  [
    /^(?:ERROR: (?:Could not find a version that satisfies|No matching distribution found for|Could not install packages|Invalid requirement: |Could not open requirements file)|error: externally-managed-environment$|Requirement already satisfied: |Successfully (?:installed|uninstalled) |Installing collected packages: |WARNING: Running pip as the 'root' user)/,
    'pip',
  ],
  // Reports by their headers and fields: systemctl list-unit-files, netstat and route, zstd -l,
  // fincore, systemd-analyze calendar, dpkg -s's status, openssl rsa -check, ssh-agent's variables
  // (a pid may have gone as a long number), systemd-delta's count, unzip's directory check, filefrag,
  // blkid's tags, and file's descriptions of what a file holds.
  [/^UNIT FILE STATE(?: (?:VENDOR )?PRESET)?$/, 'systemctl'],
  [/^Active (?:Internet connections|UNIX domain sockets)\b/, 'netstat'],
  [/^Kernel IP routing table$/, ['netstat', 'route']],
  [/^Frames Skips Compressed Uncompressed Ratio Check Filename$/, 'zstd'],
  [/^RES PAGES SIZE FILE$/, 'fincore'],
  [/^(?:Original form|Normalized form|Next elapse|From now): |^[μu]s:(?: \d+)?$/, 'systemd-analyze'],
  // The verb systemctl (and systemd's other *ctl tools, less often typed) does not know.
  [/^Unknown command verb '?[^'\s]+'?\.$/, 'systemctl'],
  // su's verdict on the line of its password prompt, which the typed password never ended.
  [/^Password: su: /, 'su'],
  [
    /^Status: (?:install|deinstall|purge|hold|unknown) (?:ok|reinstreq) (?:installed|not-installed|config-files|half-installed|unpacked|half-configured|triggers-awaited|triggers-pending)$/,
    ['dpkg', 'dpkg-query'],
  ],
  [/^RSA key ok$/, ['openssl-rsa', 'openssl']],
  [
    /^SSH_(?:AUTH_SOCK|AGENT_PID)=\S*; export SSH_(?:AUTH_SOCK|AGENT_PID);$|^echo Agent pid \d*;$/,
    'ssh-agent',
  ],
  [/^\d+ overridden configuration files? found\.$/, 'systemd-delta'],
  [/^checkdir(?: error)?: /, 'unzip'],
  [/^Filesystem type is: /, 'filefrag'],
  [/^\/\S+: (?:LABEL|UUID|BLOCK_SIZE|TYPE|PARTUUID|PTUUID|PTTYPE|PARTLABEL)="/, 'blkid'],
  [
    /^\S+: (?:ASCII text|Unicode text, UTF-8 text|UTF-8 Unicode text|gzip compressed data|bzip2 compressed data|XZ compressed data|Zstandard compressed data|Zip archive data|POSIX tar archive|ELF (?:32|64)-bit [LM]SB |PEM certificate|PEM RSA private key|OpenSSH private key|SQLite 3\.x database|JSON (?:text )?data|PNG image data|JPEG image data|PDF document|Debian binary package|current ar archive|Bourne-Again shell script|POSIX shell script|Python script|symbolic link to )/,
    'file',
  ],
  // lsattr's flags: a row of dashes and letters, wider than ls's mode, before the name.
  [/^(?=[-a-zA-Z]*-{4})[-a-zA-Z]{16,24} \S/, ['lsattr', 'chattr']],
  // du's human-readable size before a name (du -h, du -sh *).
  [/^\d+(?:[.,]\d+)?[KMGTPE] \S+$/, 'du'],
  // A bare HTTP status line heads curl -I's (and curl -i's) answer.
  [/^HTTP\/\d(?:\.\d)? \d{3}(?: |$)/, 'curl'],
  [
    /^(?:Error response from daemon: |Cannot connect to the Docker daemon at |Unable to find image '|Got permission denied while trying to connect to the Docker daemon socket at )/,
    'docker',
  ],
  [
    /^(?:Unit \S+ could not be found\.$|System has not been booted with systemd as init system \(PID 1\)\. Can't operate\.$|Failed to connect to bus: |Failed to (?:start|stop|restart|reload|enable|disable|mask|unmask) \S+: |Failed to (?:enable|disable|reenable|mask|unmask|preset|link|revert) units?[,:] |Job for \S+ failed because |Loaded: (?:loaded|not-found|masked|error|bad-setting) \(|Active: (?:active|inactive|failed|activating|deactivating|reloading) \(|Created symlink \S+ → |Failed to get unit file state for |Failed to parse lines '|Main PID: (?:\d+ )?\(|Process: (?:\d+ )?Exec\w+=)/,
    'systemctl',
  ],
  // journalctl's verdict on --since may end the line once shaping has dropped the date it quotes.
  [
    /^(?:-- No entries --$|-- (?:Logs begin at|Journal begins at|Boot \S+ --)|No journal files were found\.$|Failed to parse timestamp:(?: |$)|--since= must be before --until=\.$|Unknown output format '|Unknown log level \S)/,
    'journalctl',
  ],
  [
    /^(?:no crontab for \S+$|crontab: installing new crontab$|must be privileged to use -u$|"[^"]+":\d+: bad (?:minute|hour|day-of-month|month|day-of-week|command|time specifier|username)|errors in crontab file, can't install\.$)/,
    'crontab',
  ],
  // What a unit's service manager logs about it (systemctl status shows the last lines, the journal
  // all), also after the journal's `systemd[1]: ` (its pid gone by then).
  [
    /^(?:systemd: )?\S+\.(?:service|socket|timer|mount|path): (?:Main process exited, code=|Control process exited, code=|Failed with result '|Scheduled restart job, restart counter is at |Start request repeated too quickly\.|Failed to (?:execute|locate executable|set up) )/,
    ['systemctl', 'journalctl'],
  ],
  [/^Failed to parse calendar specification '/, 'systemd-analyze'],
  // git's refusals about a remote or a tag (git first, as for its other messages), and the
  // listings of git remote show and of git branch on a detached HEAD.
  [/^error: (?:remote \S+ already exists\.$|No such remote:? ')/, ['git', 'git-remote']],
  [/^error: tag '.*' not found\.$/, ['git', 'git-tag']],
  [/^\* remote \S+$|^\s*(?:Fetch|Push) +URL: /, ['git-remote', 'git']],
  // (Openings are read after hex is dropped: `at 1a2b3c4` is `at `.)
  [/^\* \(HEAD detached (?:at|from) ?\S*\)$/, ['git-branch', 'git']],
  // git clean's dry run (-n); pip's uninstaller says `Would remove:` before an indented list.
  [/^Would (?:remove|skip repository) \S/, ['git-clean', 'git']],
  // wipefs's table of the signatures it found, by its default columns.
  [/^DEVICE OFFSET TYPE UUID LABEL$/, 'wipefs'],
  // Vim numbers its errors (`E212: Can't open file for writing`).
  [/^E\d{2,4}: [A-Z]|^Vim: /, 'vim'],
  // capsh --print's report, rpcgen's error at a line of its `.x` file, and a systemd unit file's
  // error at its line as systemd-analyze verify prints it (the journal's has `systemd[1]: ` first).
  [/^(?:Current: =|Bounding set =|Ambient set =|Current IAB: )/, 'capsh'],
  [/^\S+\.x, line \d+: /, 'rpcgen'],
  [
    /^\S+\.(?:service|socket|timer|mount|automount|swap|target|path|slice|scope|device):\d+: /,
    'systemd-analyze',
  ],
];

// A script's own file in a bin directory is the program the user ran: Perl's `… at
// /usr/bin/json_pp line 51.` and Python's `File "/usr/bin/foo", line 8, in <module>` name
// json_pp and foo, before the interpreter.
const SCRIPT_FRAME =
  / at \/(?:usr\/(?:local\/)?)?s?bin\/([\w.+-]+) line \d+|^\s*File "\/(?:usr\/(?:local\/)?)?s?bin\/([\w.+-]+)", line \d+/;

/** The program whose script `stamped` (the line before its timestamps went) shows a frame of. */
export function scriptProgram(stamped: string): string | undefined {
  if (!stamped.includes('bin/')) return undefined;
  const m = SCRIPT_FRAME.exec(stamped);
  return m ? (m[1] ?? m[2])!.toLowerCase() : undefined;
}

const list = (p: Programs): readonly string[] => (typeof p === 'string' ? [p] : p);

// All openings as one pattern, each its own group: one match per line instead of a test per form
// (8× faster on lines that match none, which are most). A form with a group of its own would shift
// the numbering, so forms use only non-capturing groups, checked once. Built at the first shaping,
// not at import: a command that never shapes a query does not pay the few milliseconds.
let anyOpening: RegExp | undefined;
function openingPattern(): RegExp {
  if (anyOpening) return anyOpening;
  for (const [form] of OPENINGS)
    if (new RegExp(`${form.source}|`).exec('')!.length !== 1 || form.flags !== '')
      throw new Error(`output-forms: ${form} has a capturing group or flags`);
  anyOpening = new RegExp(OPENINGS.map(([form]) => `(${form.source})`).join('|'));
  return anyOpening;
}

/** The programs whose line opening `line` (shaped) is, or none (the earliest match in the line). */
// A long listing's line: ls -l's (`-rw-r--r-- 1 sam staff 248 Dec  5 19:24 Makefile`, with -i or -s
// numbers before it, -h sizes, -o or -g one name fewer, a device's `8, 1` for its size, and the
// dates of --time-style and other locales) and tar -tv's (`-rw-r--r-- sam/staff 248 2024-05-01
// 19:24 Makefile`, owner and group joined). The mode, links, owner, group, size and date are the
// same words in every listing (and in intro(1)'s example of one), so only the name stays.
const MODE = '[-bcdlpsDn][r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-][.+@]?';
const SIZE = String.raw`(?:\d+(?:[.,]\d+)?[KMGTPEZY]?|\d+,\s*\d+)`;
const CLOCK_OR_YEAR = String.raw`(?:\d{1,2}:\d\d|\d{4})`;
const LISTING_DATE = [
  String.raw`\p{L}{3,5}\.?\s+\d{1,2}\.?\s+${CLOCK_OR_YEAR}`,
  String.raw`\d{1,2}\.?\s+\p{L}{3,5}\.?\s+${CLOCK_OR_YEAR}`,
  String.raw`\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s*[+-]\d{4})?)?`,
  String.raw`\d\d-\d\d\s+\d\d:\d\d`,
].join('|');
const LISTINGS: ReadonlyArray<readonly [RegExp, Programs]> = [
  [
    new RegExp(
      String.raw`^(?:\d+\s+){0,2}${MODE}\s+\d+\s+\S+(?:\s+\S+)??\s+${SIZE}\s+(?:${LISTING_DATE})\s+(\S.*)$`,
      'u',
    ),
    'ls',
  ],
  [
    new RegExp(
      String.raw`^${MODE}\s+[^\s/]+/\S+\s+${SIZE}\s+\d{4}-\d\d-\d\d\s+\d\d:\d\d(?::\d\d)?\s+(\S.*)$`,
      'u',
    ),
    'tar',
  ],
];
const LISTING_START = /^(?:[-bcdlpsDn][r-][w-]|\d)/;
/** `total 48` (`total 396K` with -h) heads ls -l's listing. */
export const LISTING_TOTAL = /^total \d+(?:[.,]\d+)?[KMGTPEZY]?$/;

/** A long listing's line (see above): the program that prints it and the name it lists. */
export function listingEntry(line: string): { programs: readonly string[]; name: string } | undefined {
  const trimmed = line.trim();
  // A listing line opens with its mode's file type, or with -i's inode or -s's block count: most
  // lines fail here, before any pattern runs.
  if (trimmed.length < 20 || !LISTING_START.test(trimmed)) return undefined;
  for (const [form, programs] of LISTINGS) {
    const m = form.exec(trimmed);
    if (m) return { programs: list(programs), name: m[1]! };
  }
  return undefined;
}

export function openingPrograms(line: string): readonly string[] {
  const m = openingPattern().exec(line);
  if (!m) return [];
  const row = m.findIndex((g, i) => i > 0 && g !== undefined) - 1;
  return list(OPENINGS[row]![1]);
}

/** The programs whose output form `stamped` (the line before its timestamps went) shows. */
export function signaturePrograms(stamped: string): string[] {
  const out: string[] = [];
  for (const [literal, form, programs] of SIGNATURES)
    if (stamped.includes(literal) && form.test(stamped)) out.push(...list(programs));
  const entry = listingEntry(stamped);
  if (entry) out.push(...entry.programs);
  return out;
}
