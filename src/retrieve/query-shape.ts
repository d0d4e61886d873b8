// Selection → query: what a user selects in a terminal is made into a search query before
// retrieval. Pure. Only retrieval uses the result; the model still sees the selection as it was.
//
// Dropped, because they match nothing in documentation or match everything:
//   - escape sequences (CSI colours, OSC titles and hyperlinks, other ESC pairs), backspace
//     overstrike and the text a carriage return overwrote;
//   - shell and REPL prompts (`$ `, `# `, `user@host:~$ `, `[user@host dir]$ `, `➜  dir git:(main) ✗ `,
//     `❯ `, fish's `user@host ~/dir> `, `>>> `, `... `, `In [3]: `, `PS C:\dir> `, `irb(main):001:0> `);
//     the line after a prompt is remembered as the command line;
//   - timestamps (ISO 8601, syslog and ctime dates, clock times, `[  12.345678]` kernel times) and
//     the host name a syslog line carries;
//   - hex addresses and hashes, UUIDs, numbers of five or more digits (pids, sizes, ports, counters)
//     and the pid of a `prog[123]:` line;
//   - line-number gutters (`  12 | `, `12:`, `cat -n`'s `    12<TAB>`) and bare `|` gutter lines;
//   - repeated lines (compared with their digits ignored, so `retry 1/5`…`retry 5/5` count once);
//   - on a line that is a question (it ends with `?` or opens with how/what/why/…), the words that
//     only make it one: `how do I`, `is there a way to`, `what option lets me` (QUESTION_WORDS);
//     an auxiliary right before `not` stays (`how do I do not overwrite` keeps `do not overwrite`).
// Kept: the program name of `prog: message` lines (`tar: Cannot open: …` → `tar`), flags and paths
// (the lexical tokenizer splits them itself), short numbers (`HTTP 502`, `exit 128`).
//
// Programs: the names of the programs the selection shows, for the lexical search's name signal
// (a document named after the program that printed an error or runs a command is the likeliest
// answer): the command word of each command (after a prompt, after a shell trace's `+ `, a lone
// line that reads as a command, or an indented command with a flag that output suggests) and of
// each command it pipes to or chains; the `prog:` of output lines (`tar: …`, `tar (child): …`,
// `zip error: …`, `/usr/bin/ld: …`, `-bash: …`); the program a `usage:` line, a `Try 'prog --help'`
// hint or a quoted command to run (`(use "git add" to track)`) names; the shell of a script's error
// (`install.sh: line 4: …`); the format a file is not (`not a git repository`); and the program of
// an output form or a line opening that is one program's although it does not name it (make's
// `file:2: *** …`, git's `fatal: `, ssh's `Permission denied (publickey).`; output-forms.ts).
// `sudo`, `env`, `time` and variable assignments are skipped.
// Programs on command and error lines lead the list; the error and warning lines below a command
// count for its programs too (in a scrollback, the command that failed leads the one before it).
// When nothing of that names a program, a question or goal may name one in prose (`how to exclude
// a directory when using find`, `make xz use all cores`; MENTIONS).
//
// A long selection keeps its most informative lines within QUERY_WORD_BUDGET words: command lines,
// then error, fatal and failure lines, then warnings, then the first and last lines of the
// selection (a trace's headline and its innermost or final line), then the rest in order. Lines are
// kept in the order they were selected.

import {
  CURL_VERBOSE,
  cronCommand,
  DIFF_CHANGE,
  LISTING_TOTAL,
  listingEntry,
  openingPrograms,
  scriptProgram,
  signaturePrograms,
} from './output-forms.js';

/**
 * Words a shaped query keeps. An error line with its command is 10–30 words; 64 leaves room for a
 * few of each while keeping a 500-line scrollback from turning into a bag of every word in it: each
 * extra line adds terms that match unrelated documents and dilutes the ones that matter, and the
 * lexical search costs a posting-list walk per distinct term.
 */
export const QUERY_WORD_BUDGET = 64;

/** What shaping removed, by kind (counts of occurrences; `repeats` and `budget` count lines). */
export interface ShapeDropped {
  escapes: number;
  prompts: number;
  timestamps: number;
  hex: number;
  uuids: number;
  numbers: number;
  gutters: number;
  /** Long-listing lines (ls -l, tar -tv) whose mode, owner, size and date went (the name stays). */
  listings: number;
  repeats: number;
  /** Words that only made a line a question (`how`, `do`, `I`, …). */
  question: number;
  /** Lines left out to keep the query within the word budget. */
  budget: number;
}

export interface ShapedQuery {
  /** The query retrieval uses ('' when the selection was only noise). */
  query: string;
  /** Non-blank lines of the selection, and how many of them the query keeps. */
  lines: number;
  keptLines: number;
  /** Words of the shaped query (never more than the budget). */
  words: number;
  /** Command lines found after a prompt (prompt removed). */
  commands: string[];
  /** Program names the selection shows (lowercase, first seen first, at most MAX_PROGRAMS). */
  programs: string[];
  /** The programs are named in prose (a question or a goal), not shown by output or a command. */
  prose: boolean;
  dropped: ShapeDropped;
}

// --- escapes -------------------------------------------------------------------------------

// OSC (…BEL or …ST), DCS/SOS/PM/APC strings, CSI (7- and 8-bit), then any other ESC pair.
const ESCAPES =
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]/g;
const OVERSTRIKE = /[^\n]\x08/g;
const OTHER_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

// --- prompts -------------------------------------------------------------------------------

const PROMPTS: readonly RegExp[] = [
  // A Python virtualenv or conda prefix before any prompt: `(venv) `.
  // user@host:path$ (bash, Debian), [user@host path]$ (RHEL), user@host path % (zsh), fish's `>`;
  // git's prompt helper adds the branch and its state: `user@host:~/app (main *)$ `.
  /^(?:\([\w.-]+\) )?\[?[\w.-]+@[\w.-]+(?::|\s+)[^\s$#%>]*(?: \([^()\s][^()]{0,40}\))?\]?\s?[$#%>] ?/,
  // Oh My Zsh (robbyrussell): `➜  dir git:(main) ✗ `.
  /^➜\s+\S+(?:\s+git:\([^)]*\))?(?:\s+✗)?\s+/,
  // Starship, pure, lambda and arrow prompts.
  /^[❯λ→»](?:\s+|$)/,
  // PowerShell and cmd.exe: `PS C:\dir> `, `C:\dir> `.
  /^(?:PS )?[A-Za-z]:\\[^>]*> ?/,
  // Python, IPython, irb, pry, node and database shells.
  /^(?:>>>|\.\.\.)(?: |$)/,
  /^(?:In|Out) ?\[\d+\]: ?/,
  /^(?:irb|pry)\([^)]*\)(?::\d+)*[>*] ?/,
  /^(?:mysql|sqlite|postgres|psql|mongo|redis[\w.:-]*|gdb|\(gdb\)|\(Pdb\)|ftp|sftp)[=#>-]*> ?/,
  // bash's `history` listing: the entry's number, right-aligned, then two blanks and the command
  // line (` 1290  sudo passwd -l olduser`). `uniq -c` and `wc` put one blank after their counts.
  /^\s*\d{1,6} {2}(?=[a-z][\w.+-]*(?: |$))/,
  // A Dockerfile's RUN (BuildKit's flags after it) and a CI step's `run:` run a command line.
  /^(?:RUN(?: --[\w-]+=\S+)* |(?:- )?run: (?![|>][-+]?\s*$))/,
  // A bare sigil: `$ `, `# `, `% `, `> ` (a lone `>` quote loses only punctuation). Not `# ` before
  // a second blank or a capitalised word: a comment, a heading or a test's diagnostic (`# Looks
  // like you failed 2 tests of 4.`, `#   Failed test 'hours'`) is no root prompt's command.
  /^(?:\([\w.-]+\) )?(?:[$%>] |# (?! |[A-Z][a-z]))/,
];

// --- noise inside a line ---------------------------------------------------------------------

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const CLOCK = '\\d{1,2}:\\d{2}(?::\\d{2})?(?:[.,]\\d+)?';
const ZONE = '(?:\\s?(?:Z|[+-]\\d{2}:?\\d{2}|UTC|GMT|[A-Z]{2,4}T))?';
// syslog/journal: `Mar  4 12:03:04 host prog[123]: msg` → `prog[123]: msg` (host name dropped too).
const SYSLOG = new RegExp(
  `^(?:${DAY},? )?${MONTH}\\s+\\d{1,2}\\s+${CLOCK}${ZONE}\\s+[\\w.-]+\\s+(?=\\S+:)`,
  '',
);
const TIMESTAMPS: readonly RegExp[] = [
  // ISO 8601 and its log variants: 2026-12-04T05:20:56.123Z, 2026/12/04 05:20:56,123 +0100.
  new RegExp(`\\[?\\d{4}[-/]\\d{2}[-/]\\d{2}(?:[T ]${CLOCK})?${ZONE}\\]?`, 'g'),
  // ctime and HTTP dates: Fri Dec  4 05:20:56 UTC 2026, Fri, 04 Dec 2026 05:20:56 GMT, 04/Dec/2026:05:20:56 +0000.
  new RegExp(`(?:${DAY},?\\s+)?${MONTH}\\s+\\d{1,2}\\s+${CLOCK}${ZONE}(?:\\s+\\d{4})?`, 'g'),
  new RegExp(`(?:${DAY},?\\s+)?\\d{1,2}[ /]${MONTH}[ /]\\d{4}[ :]${CLOCK}${ZONE}`, 'g'),
  // Kernel log times `[  123.456789]`, then any clock time `12:03:04`, `[12:03:04.123]`.
  /\[\s*\d+\.\d{3,}\]/g,
  new RegExp(`\\[?\\b\\d{1,2}:\\d{2}:\\d{2}(?:[.,]\\d+)?\\b${ZONE}\\]?`, 'g'),
];
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
// 0x-prefixed hex of four digits or more (addresses; `0x1F` is a value worth asking about), and bare runs of 7+ hex digits holding both a digit and a letter (hashes,
// addresses): an English word has a letter outside a–f, a number has no letter.
const HEX_CANDIDATE = /\b(?:0x[0-9a-f]{4,}|[0-9a-f]{7,})\b/gi;
// Bytes written as pairs between colons, four or more: a key's modulus, a certificate's serial
// and fingerprint (`57:8a:32:0e:be:3e:…`), a MAC address. Left whole, a line that starts `e9:`
// once its neighbours go reads as a program's `e9: ` line.
const BYTE_LIST = /(?<![\w:])[0-9a-f]{2}(?::[0-9a-f]{2}){3,}:?(?![\w:])/gi;
const BYTE_TAIL = /^\s*[0-9a-f]{2}(?::[0-9a-f]{2}){0,3}:?\s*$/i;
const DIGIT = /\d/;
const HEX_LETTER = /[a-f]/i;
const isHex = (m: string) => m[1] === 'x' || m[1] === 'X' || (DIGIT.test(m) && HEX_LETTER.test(m));
// Not a part of a word, version (`1.2.12345`) or decimal; `-` may touch it (`00400000-00401000`),
// but not after a letter: `tmux-65534` is one name (a path's part), which dropping would split.
const LONG_NUMBER = /(?<![\w.]|[A-Za-z]-)\d{5,}(?!\w|\.\d)/g;
// The pid of a `prog[123]:` line, however short: `sshd[812]: …` → `sshd: …`.
const PID = /(?<=\w)\[\d+\](?=:)/g;
// `12:` but not a clock time `12:03`.
const GUTTER = /^\s*(?:\d+\s*[|│┃]|\d+:(?!\d)|\d+\t|[|│┃]\s)/;
const BOX_ROW = /^\s*[|│┃].*[|│┃]\s*$/;
const GUTTER_ONLY = /^\s*[|│┃]?\s*$/;

// --- program names ---------------------------------------------------------------------------

/** At most this many program names are kept: a scrollback of many commands names its leading ones. */
export const MAX_PROGRAMS = 6;
const PROGRAM = /^[A-Za-z0-9][\w.+-]{0,63}$/;
const ASSIGNMENT = /^[A-Za-z_]\w*=/;
// Words that run the next word as the command.
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'time',
  'exec',
  'command',
  'builtin',
  'nice',
  'nohup',
  'then',
  'do',
  '!',
]);
// `word:` openings of output lines that are labels, not programs.
const LABELS = new Set(
  (
    'error warning warn fatal note hint info debug trace usage caused remote file line details detail ' +
    'reason cause message help tip status fail failed ok done success summary see at from in'
  ).split(' '),
);
// `tar: `, `tar (child): `, `zip error: `, `gpg: error: `: a program-like first word, a colon. A
// program run by its path prints the path (`/usr/bin/ld: cannot find -lssl`, `/bin/sh: 1: …`), a
// login shell its name after a dash (`-bash: cd: …`).
const OUTPUT_PROGRAM =
  /^(?:-(?=[a-z])|\.{0,2}\/(?:[\w.+-]+\/)*)?([a-z][\w.+-]{0,63})(?: \([\w -]+\))?(?: (?:error|warning|fatal|info))?: /;
// A shell's error in a script names the script and its line: bash `install.sh: line 4: syntax
// error …`, dash (Debian's sh) `install.sh: 4: Syntax error: …`. The script is no program; the shell
// is. Only a shell script's suffix says so: awk (`awk: line 1: …`) and ssh (`ssh_config: line 2: …`)
// print lines of the same form.
const SCRIPT_ERROR = /^(?:\S*\/)?[\w.+-]+\.(?:sh|bash): (line )?\d+: /;
// A shell's error about a command it ran names the command after the shell (and the line of a
// `-c` string): `bash: line 1: kill: (42) - No such process`, `-bash: cd: x: No such file …`,
// dash's `/bin/sh: 1: foo: not found`. The command is what the user ran; the shell follows it.
const SHELL_COMMAND_ERROR =
  /^(?:-|\S*\/)?(?:bash|sh|dash|zsh|ksh|mksh)(?:: line \d+|: \d+)?: ([a-z][\w.+-]{0,63}): /;
const USAGE = /^usage: +(?:\S*\/)?([A-Za-z0-9][\w.+-]*)/i;
const TRY_HELP = /\bTry [`'"‘]?(?:\S*\/)?([A-Za-z0-9][\w.+-]*) (?:--help|-h)\b/;
// A quoted command the output tells the user to run: `(use "git add" to track)`, `See "systemctl
// status nginx.service" and …`, ``Run `npm audit` for details``.
const HINT = /\b(?:see|try|run|use|type)\s+[`'"‘“]([a-z][\w.+-]{0,63})(?=[\s`'"’”])/gi;
// A version banner names its program: the first line of `--version` (`git version 2.39.5`,
// `tar (GNU tar) 1.34`, `GNU Make 4.3`, `GNU bash, version 5.2.15(1)-release`) and the line
// e2fsprogs' tools print before their output (`dumpe2fs 1.47.0 (5-Feb-2023)`), util-linux's
// (`fsck from util-linux 2.38.1`, also fsck's first line of a check). A name and a dotted version,
// nothing between them but a parenthesis, `version` or `from util-linux`.
const VERSION_BANNER =
  /^(?:GNU )?([A-Za-z][\w+-]{0,63}),?(?: \([^)]{1,40}\))? +(?:version +|from util-linux +)?v?\d+\.\d+[\w.+~-]*(?=[\s,(]|$)/;
// What a file is not, or does not look like, names the program of its format: `fatal: not a git
// repository`, `x is not a bzip2 file`, `not in gzip format`, `does not look like a tar archive`.
// A word that names no document (`not a regular file`) raises nothing.
const NOT_FORMAT =
  /\b(?:not|like) (?:an?|in) ([a-z][\w.+-]{0,63}) (?:repository|file|archive|format|database)\b/gi;
// Its article: a case-sensitive pattern that opens with a space, which most lines fail at once.
const ARTICLE = / (?:an?|in) [a-z]/;
// A command the output suggests on an indented line of its own, with a flag or a `<placeholder>`
// among its first four words: git's `    git push --set-upstream origin feature`,
// `    git remote add <name> <url>`. These keep out indented code (`    file = open("x")`) and stack
// frames (`    at Object.<anonymous> (/app.js:1:2)`: the placeholder must stand as a word).
const SUGGESTED = /^[a-z][\w.+-]*(?: (?!=)\S+){0,3}? (?:--?[A-Za-z]|<[a-z][\w-]*>(?:\s|$))/;
// An indented line of output: a suggestion, a stack frame, code, or a dumped object's `key: value`
// (`  code: 'MODULE_NOT_FOUND',` after node's error), never a program's own `prog: message`.
const INDENT = /^(?: {2,}|\t)/;
// diff's normal format marks an old line `< ` and a new one `> `, curl -v its request and response
// headers (see shapeQuery).
const DIFF_LINE = /^[<>] /;
// A shell trace (`set -x`): `+ cmd`, `++ cmd` inside a substitution.
const XTRACE = /^\++ (?=\S)/;
// A unified diff's hunk header (diff -u, git diff), with its counts of old and new lines: the
// `+`, `-` and context lines below it are the diff's.
const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
// A lone line that reads as a command: a lowercase command word, then a flag, a quote, a pipe or
// an assignment within its first four arguments, or (four arguments at most) a path, a file name
// or a `user@host` right after it or after one plain word (`cat .env.production`, `chmod 600
// ~/.ssh/authorized_keys`, `tar xf site.tar`); not a question (`?` at the end), and no `word: ` right
// after the command word (that is output). A lowercase question that starts with a program's name
// (`make tar skip existing files with --skip-old-files`) has its flag too late to count. A `+`
// flag counts as one (`chattr +i`, `set +e`). sudo or doas followed by a word is always a command
// (`sudo mount /dev/sdb1 /mnt`, `sudo systemctl restart nginx`): the word they run is the program.
// A shell's `&&`, `||` or `2>&1` anywhere makes one too (`ip addr add 10.0.0.5/24 dev eth1 && ip
// link set eth1 up`): prose does not write them.
const COMMAND_LIKE =
  /^(?!.*\?\s*$)(?:(?:sudo|doas)\s+(?:-\S+\s+)*[a-z]|[a-z][\w.+-]*(?:(?:\s+\S+){0,3}?\s+(?:(?:--?|\+)[A-Za-z]|['"]|\||&&|\w+=)|(?:\s+[^\s./@]+)?\s+\S*[./@]\S*(?:\s+\S+){0,2}$|(?:\s+\S+)*?\s+(?:&&|\|\||2>&1)(?:\s|$)))/;

// A program named in prose: a question or a goal line names the program it is about (`how to
// exclude a directory when using find`, `make xz use all CPU cores`, `reattach to my tmux session`).
// Only places where a word is a program's name in English usage count, never a bare word (`find
// the PID of a process` is a verb): right after `use`/`with`/`in`/`of`/… at the end of a clause
// (`in the file` is a noun's place, so no article may come between), before
// `command`/`option`/`session`/…, after `make` or an auxiliary with a verb after it, before a verb
// a program is the subject of (not after an article or a participle: `a compressed file isn't`
// is a noun's), and a backticked command. A word that names no document raises nothing, so `in
// place` or `with care` cost nothing.
// Not a flag's letters (`the -z flag`), a path's or a file name's part.
const MENTION_NAME = "(?<![-\\w./'])([A-Za-z][\\w+-]{0,63})";
const MENTIONS: readonly RegExp[] = [
  new RegExp(
    `\\b(?:use|using|uses|with|via|in|into|through|from|of|run|running|runs|call|calling|invoke|invoking)\\s+${MENTION_NAME}(?:'s)?(?=\\s*(?:[?,;:!)]|\\.(?:\\s|$)|$)|\\s+(?:command|utility|tool|program|binary|cli|options?|flags?|switch(?:es)?|and|but|so|when|without|while|or|to|instead|itself|alone|do|does)\\b)`,
    'gi',
  ),
  new RegExp(
    `\\b${MENTION_NAME}(?:'s)?\\s+(?:command|utility|tool|program|binary|options?|flags?|switch(?:es)?|sessions?|one-liner|man\\s+page|manpage|prompt|config)\\b`,
    'gi',
  ),
  // `the -P flag in rsync`, `the --delete option of rsync`: an option belongs to its program.
  new RegExp(
    `\\b(?:flags?|options?|switch(?:es)?|arguments?|parameters?|subcommands?)\\s+(?:in|of|for)\\s+${MENTION_NAME}\\b`,
    'gi',
  ),
  new RegExp(`\\bmake\\s+${MENTION_NAME}\\s+[a-z]`, 'gi'),
  // `get make to compile in parallel`, `tell grep to ignore case`, `force git to overwrite`
  new RegExp(`\\b(?:get|getting|tell|telling|force|forcing)\\s+${MENTION_NAME}\\s+to\\s+[a-z]`, 'gi'),
  // After a subject the auxiliary's next word is a verb: `so I can switch branches`.
  new RegExp(
    `(?<!\\b(?:i|you|we|they|he|she|it|one)\\s+)\\b(?:does|do|did|can|will|would|could|should)\\s+${MENTION_NAME}\\s+[a-z]`,
    'gi',
  ),
  new RegExp(
    `(?<!\\b(?:a|an|the|this|that|each|every|one|any|some|my|your|its|their|\\w+ed)\\s+)\\b${MENTION_NAME}\\s+(?:supports?|prints|shows|says|complains|fails|hangs|exits|refuses|keeps|ignores|outputs|reports|returns|won't|doesn't|can't|cannot|isn't)\\b`,
    'gi',
  ),
];
/** A backticked command in prose (`ip route get 1.1.1.1`): read as a command line. */
const BACKTICKED = /`([A-Za-z][\w.+-]{0,63})([^`]*)`/g;
/** A question is a sentence or two: a longer line (minified code, a dump) is read this far for mentions. */
const MAX_PROSE_CHARS = 1000;
/** Words a mention pattern can catch that are never a program's name here. */
const NOT_MENTIONS: ReadonlySet<string> = new Set(
  (
    'a an the it its them this that these those there here i you we they he she me my your our their ' +
    'all some any each every one two both sure which what how who when where why not no so last ' +
    'previous next same other first new old whole single given main specific following default shell ' +
    'custom simple multiple several long short entire current unknown invalid illegal bad ' +
    'unrecognized unsupported missing required wrong ' +
    // auxiliaries: `so I can switch branches` is no program `can` with its `switch`
    'can could do does did will would should shall may might must ' +
    // prepositions and conjunctions: `get make to compile` reads `make to` as make's `to`
    'to for with from into onto on by of off up out over under about as if and or but'
  ).split(' '),
);
/** A manual's placeholders, not programs when written in capitals (`into DIR`; `dir` is a program). */
const PLACEHOLDERS: ReadonlySet<string> = new Set(
  (
    'DIR FILE FILES PATH NAME PATTERN COMMAND CMD ARGS ARG N NUM NUMBER SIZE MODE USER GROUP OWNER ' +
    'DEST SRC SOURCE TARGET LIST STRING TEXT PROG PROGRAM DIRECTORY'
  ).split(' '),
);

/** The line's first MAX_PROSE_CHARS characters, cut at a blank so no word is cut in two. */
function proseHead(line: string): string {
  if (line.length <= MAX_PROSE_CHARS) return line;
  const cut = line.lastIndexOf(' ', MAX_PROSE_CHARS);
  // One word of that length is no prose (a hash, minified code): nothing to read.
  return cut > 0 ? line.slice(0, cut) : '';
}

// The subcommands prose names after their program (`move onto it with git switch`, `git stash
// doesn't save new files`), for the programs that give each its own page: the common ones, as
// their own documentation lists them. A word outside the list is English (`my git changes`).
const PROSE_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    git:
      'add am apply archive bisect blame branch bundle checkout cherry-pick clean clone commit config ' +
      'describe diff fetch format-patch fsck gc grep init log ls-files ls-remote merge mv notes pull ' +
      'push range-diff rebase reflog remote reset restore revert rev-parse rm shortlog show sparse-checkout ' +
      'stash status submodule switch tag worktree',
    openssl:
      'asn1parse ca ciphers cms crl dgst dhparam ecparam enc genpkey genrsa ocsp passwd pkcs12 pkey ' +
      'rand req rsa s_client s_server smime speed verify x509',
    docker:
      'build compose exec images inspect login logs network ps pull push rm rmi run start stop tag volume',
    npm: 'audit ci exec init install link ls outdated pack publish run test uninstall update',
    cargo: 'add bench build check clippy doc fmt init install new publish run test update',
    perf: 'annotate list record report sched script stat top trace',
  }).map(([p, subs]) => [p, new Set(subs.split(' '))]),
);
const PROSE_SUBCOMMAND = new RegExp(
  `(?<![-\\w./'])(${[...PROSE_SUBCOMMANDS.keys()].join('|')})\\s+([a-z][\\w-]*)\\b`,
  'gi',
);

/** The programs a prose line names (see MENTIONS), first seen first. */
function mentionedPrograms(line: string): string[] {
  const out: string[] = [];
  // `git log` in prose names git-log, then git; its `log` is no program of its own.
  const subs = new Set<string>();
  for (const m of line.matchAll(PROSE_SUBCOMMAND)) {
    const program = m[1]!.toLowerCase();
    const sub = m[2]!.toLowerCase();
    if (!PROSE_SUBCOMMANDS.get(program)!.has(sub)) continue;
    subs.add(sub);
    for (const name of [`${program}-${sub}`, program]) if (!out.includes(name)) out.push(name);
  }
  for (const re of MENTIONS)
    for (const m of line.matchAll(re)) {
      const name = m[1]!.toLowerCase();
      if (PLACEHOLDERS.has(m[1]!) || subs.has(name)) continue;
      if (!NOT_MENTIONS.has(name) && !out.includes(name)) out.push(name);
    }
  // A backticked command names its programs as a command line does (`ip route get` names
  // ip-route, then ip); a wrapper alone (`sudo -E`) names itself.
  for (const m of line.matchAll(BACKTICKED)) {
    const names = commandPrograms(m[1]! + m[2]!);
    for (const name of names.length > 0 ? names : [m[1]!.toLowerCase()])
      if (!NOT_MENTIONS.has(name) && !out.includes(name)) out.push(name);
  }
  return out;
}

// Programs that document each subcommand on a page of its own, filed as `program-subcommand`
// (git-log, openssl-s_client, perf-record). The subcommand is the word after the program, past
// its long options and git's `-C dir` and `-c key=value`; another short option ends the search.
// Other programs' next word is an argument (`make build`, `cat notes`), no page's name.
const SUBCOMMAND_PAGES: ReadonlySet<string> = new Set(
  (
    'git openssl perf docker podman buildah skopeo npm cargo ip gh flatpak ostree btrfs zfs zpool ' +
    'borg restic git-annex'
  ).split(' '),
);
const SUBCOMMAND = /^[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*$/;
const OPTION_WITH_VALUE = new Set(['-C', '-c']);
/** What separates the commands of one line: pipes, `||`, `&&`, `;`, a substitution's opening. */
const COMMAND_SEPARATORS = /\|\|?|&&|;|\$\(|`/;

/**
 * The command words of a command line: its first command's and each piped or chained one's. The
 * first command's subcommand page comes before it, the most specific page first: `git log` names
 * git-log, then git. A name no document of a store bears takes no rank there (snapshot-search.ts),
 * so where git-log has no page, git leads.
 */
function commandPrograms(line: string): string[] {
  const out = commandWords(line);
  // `echo … | sudo tee -a file`, `cat log | grep x`: the first command only feeds the pipe; the
  // one it feeds does the work the user asks about. So does the command whose output echo or printf
  // prints (`echo "VERSION=$(jq -r .version package.json)"`).
  if (
    out.length > 1 &&
    PIPE_FEEDERS.has(out[0]!) &&
    (FIRST_SEPARATOR.exec(line)?.[0] === '|' || (PRINTERS.has(out[0]!) && SUBSTITUTION.test(line)))
  )
    out.push(out.shift()!);
  return out;
}
const PRINTERS: ReadonlySet<string> = new Set(['echo', 'printf']);
const SUBSTITUTION = /\$\(|`/;
const PIPE_FEEDERS: ReadonlySet<string> = new Set(['echo', 'printf', 'cat', 'yes']);
const FIRST_SEPARATOR = new RegExp(COMMAND_SEPARATORS.source);

function commandWords(line: string): string[] {
  const out: string[] = [];
  for (const segment of line.split(COMMAND_SEPARATORS)) {
    const words = segment.trim().split(/\s+/);
    let i = 0;
    while (i < words.length && wrapping(words, i)) i++;
    const word = words[i]?.replace(/^.*\//, '');
    if (!word || !PROGRAM.test(word)) continue;
    if (out.length > 0 || !SUBCOMMAND_PAGES.has(word)) {
      out.push(word.toLowerCase());
      continue;
    }
    let j = i + 1;
    while (OPTION_WITH_VALUE.has(words[j] ?? '') || words[j]?.startsWith('--'))
      j += words[j]!.startsWith('--') ? 1 : 2;
    const sub = words[j];
    if (sub && SUBCOMMAND.test(sub)) out.push(`${word}-${sub}`);
    out.push(word);
  }
  return out;
}

/**
 * Whether `words[i]` is part of what runs a command rather than the command: a wrapper, an
 * assignment, an option, a wrapper's number (`nice -n 10 make`: 10 is no program) or an option's
 * value.
 */
function wrapping(words: readonly string[], i: number): boolean {
  const w = words[i]!;
  return (
    WRAPPERS.has(w) ||
    ASSIGNMENT.test(w) ||
    w.startsWith('-') ||
    (i > 0 && (WRAPPER_NUMBER.test(w) || optionValue(words, i)))
  );
}
const WRAPPER_NUMBER = /^\d+(?:\.\d+)?[smhd]?$/;
// Options of sudo, doas and env whose value is the next word (`sudo -u postgres psql`: postgres is
// the user, psql the program). Other wrappers' options take none (`time -p make`).
const WRAPPER_VALUE_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['sudo', new Set(['-u', '-g', '-U', '-C', '-D', '-h', '-p', '-r', '-t', '-T'])],
  ['doas', new Set(['-u', '-C'])],
  ['env', new Set(['-u', '-C'])],
]);

/** Whether `words[i]` is the value of the option before it, an option of the nearest wrapper. */
function optionValue(words: readonly string[], i: number): boolean {
  for (let j = i - 2; j >= 0; j--)
    if (WRAPPERS.has(words[j]!)) return WRAPPER_VALUE_OPTIONS.get(words[j]!)?.has(words[i - 1]!) ?? false;
  return false;
}

/** The wrappers a command line runs its programs through (`sudo`, `nice`, `env`, `nohup`). */
function commandWrappers(line: string): string[] {
  const out: string[] = [];
  for (const segment of line.split(COMMAND_SEPARATORS)) {
    const words = segment.trim().split(/\s+/);
    for (let i = 0; i < words.length && wrapping(words, i); i++)
      if (WRAPPERS.has(words[i]!)) out.push(words[i]!);
  }
  return out;
}

/**
 * The program names one line shows (see above); `command` when it followed a prompt, `lone` when
 * it reads as a command on its own (the whole selection, or a command output suggests on an
 * indented line); `stamped` is the line before its timestamps, hex numbers and long numbers were
 * dropped; `indented` when it is indented output, which has no `prog:` of its own; `untraced`
 * when it cannot be a shell trace. `ran` when the line runs its programs (a command or a trace);
 * `shell` when it is that shell's own error at a line of the script it runs.
 */
function linePrograms(
  line: string,
  command: boolean,
  lone: boolean,
  stamped: string,
  indented: boolean,
  untraced: boolean,
): { programs: string[]; ran: boolean; frame?: string; shell?: string } {
  if (command) return { programs: commandPrograms(line), ran: true };
  const signatures = signaturePrograms(stamped);
  // A crontab's entry is about the command it schedules first, then about crontab and cron. Its
  // signature already matched: the entry's form is not read again on other lines.
  const scheduled = signatures.includes('cron') ? cronCommand(stamped) : undefined;
  if (scheduled !== undefined)
    return { programs: [...new Set([...commandPrograms(scheduled), ...signatures])], ran: false };
  // diff -u's `+++ b.txt<TAB>time` is no shell trace of `b.txt`.
  const trace = untraced || signatures.length > 0 ? null : XTRACE.exec(line);
  if (trace) return { programs: commandPrograms(line.slice(trace[0].length)), ran: true };
  const frame = scriptProgram(stamped);
  return { ...outputPrograms(line, lone, indented, signatures, frame), ran: false, frame };
}

/**
 * The program names an output line shows, with those its output forms (`signatures`) name, after
 * the script whose frame it shows (`frame`: the script is the program, its interpreter follows);
 * `shell` when the line is a shell's error at a line of its script.
 */
function outputPrograms(
  line: string,
  lone: boolean,
  indented: boolean,
  signatures: readonly string[],
  frame: string | undefined,
): { programs: string[]; shell?: string } {
  const out: string[] = frame ? [frame] : [];
  // An opening that is one program's is read first: jq's `parse error: ` is no `prog: `.
  const opening = openingPrograms(line);
  const script = indented || opening.length > 0 ? null : SCRIPT_ERROR.exec(line);
  const shell = script ? (script[1] ? 'bash' : 'sh') : undefined;
  const prog = indented || opening.length > 0 ? undefined : OUTPUT_PROGRAM.exec(line)?.[1];
  if (opening.length > 0) out.push(...opening);
  else if (shell) out.push(shell);
  else if (prog && !LABELS.has(prog)) {
    const command = SHELL_COMMAND_ERROR.exec(line)?.[1];
    if (command && !LABELS.has(command)) out.push(command);
    out.push(prog);
  }
  const banner = indented || out.length > 0 ? undefined : VERSION_BANNER.exec(line)?.[1];
  if (banner) out.push(banner.toLowerCase());
  const usage = USAGE.exec(line)?.[1];
  if (usage) out.push(usage.toLowerCase());
  const hint = TRY_HELP.exec(line)?.[1];
  if (hint) out.push(hint.toLowerCase());
  for (const m of line.matchAll(HINT)) out.push(m[1]!.toLowerCase());
  if (ARTICLE.test(line)) for (const m of line.matchAll(NOT_FORMAT)) out.push(m[1]!.toLowerCase());
  out.push(...signatures);
  if (out.length === 0 && lone) return { programs: commandPrograms(line) };
  return { programs: [...new Set(out)], shell };
}

// --- which lines matter ----------------------------------------------------------------------

const ERROR_LINE =
  /\b(?:error|errors|err|fatal|failed|failure|fail|cannot|can't|could not|couldn't|unable|denied|refused|not found|no \w+ found|no such|invalid|unknown|unrecognized|unrecognised|illegal|missing|panic|panicked|exception|traceback|abort(?:ed)?|segmentation fault|core dumped|timed out|timeout|not permitted|usage|unexpected|corrupt|corrupted)\b/i;
// errno names (ENOENT, ECONNREFUSED), compiler codes (E0425, C2065), exception class names.
const ERROR_CODE = /\bE[A-Z]{3,}\b|\b[A-Z]\d{3,5}\b|\w(?:Error|Exception)\b/;
// A shell's refusal of a command line before anything ran: a glob that matched nothing (zsh, bash's
// failglob), a bad pattern, history expansion, a syntax error.
const SHELL_REFUSAL =
  /^-?(bash|zsh|sh|dash|ksh|mksh)\b.{0,40}?: (?:no matches found|no match|bad pattern|event not found|syntax error near unexpected token|parse error near)\b/;
// The line every OpenSSL command prints after a bad argument, with the command's name.
const OPENSSL_APP = /^([a-z][\w.-]*): Use -help for summary\.$/;
// make's fatal errors, which need no error word: `make: *** No rule to make target 'x'.  Stop.`
const MAKE_STOP = /\*\*\* .*\.\s+Stop\.$/;
const WARNING_LINE = /\b(?:warning|warn|deprecated|notice)\b/i;

type Priority = 0 | 1 | 2 | 3 | 4;

interface Line {
  text: string;
  words: number;
  priority: Priority;
  index: number;
  /** The line before its question words went, when it is prose (no command, nor indented output). */
  prose: string | undefined;
}

function emptyDropped(): ShapeDropped {
  return {
    escapes: 0,
    prompts: 0,
    timestamps: 0,
    hex: 0,
    uuids: 0,
    numbers: 0,
    gutters: 0,
    listings: 0,
    repeats: 0,
    question: 0,
    budget: 0,
  };
}

/**
 * A question's scaffolding: interrogatives, auxiliaries and pronouns. In documentation they match
 * prose everywhere and say nothing about the subject, and unlike the index's stop words they are
 * common enough to pull pages in but not to weigh nothing ("How do I …?" as a search costs the
 * option questions of docs/EVAL.md 0.06 MRR). Dropped only on question lines, where they cannot be
 * an error's own words.
 */
const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    'how what why where when who whom whose do does did can could should would shall may might must ' +
    "am i i'm i've me my you your we us our way let lets let's want wanted need needed please possible"
  ).split(' '),
);
/** The question words that stay right before `not` (`do not overwrite`). */
const AUXILIARIES: ReadonlySet<string> = new Set(
  'do does did can could should would shall may might must'.split(' '),
);
/** A question: ends with `?`, or opens with an interrogative followed by a word (not `what():`). */
const QUESTION_LINE = /\?\s*$|^(?:how|what|why|where|when|who|which)\s+\p{L}/iu;

/** A contraction's clitic (`what's`, `I'd`, `you've`, `tar's`): the word it leans on is the word. */
const CLITIC = /'(?:s|re|ve|ll|d|m)$/;

/**
 * A question line without its question words; counts what went. The tokenizer splits at an
 * apostrophe, so a contraction left whole would search a stray `s`, `d` or `m` (every `-s` flag and
 * possessive) and its question word: `what's` is `what`, `I'd` is `I`. A negation stays whole
 * (`doesn't`, `don't`): manuals write it so (`Don't stop at the first match`).
 */
function dropQuestionWords(line: string, dropped: ShapeDropped): string {
  const words = line.split(' ');
  const bare = words.map((w) =>
    w
      .toLowerCase()
      .replace(/^["'(]+|[?!.,:;"')]+$/g, '')
      .replace(/\u2019/g, "'"),
  );
  const kept: string[] = [];
  words.forEach((w, i) => {
    const b = bare[i]!;
    const base = b.replace(CLITIC, '');
    if (!QUESTION_WORDS.has(base)) {
      // The word keeps its own case: `GitHub's` is GitHub (git and hub to the tokenizer), not github.
      kept.push(base === b ? w : w.replace(/['\u2019](?:s|re|ve|ll|d|m)(?=[?!.,:;"')\u2019]*$)/i, ''));
      return;
    }
    // `do not overwrite`: a negated auxiliary is what the user wants done, not the question's form.
    if (bare[i + 1] === 'not' && AUXILIARIES.has(b)) {
      kept.push(w);
      return;
    }
    dropped.question++;
  });
  return kept.join(' ');
}

/** Replaces every match of `re` with `by` (a space: words either side stay apart) and counts them. */
function drop(text: string, re: RegExp, count: (n: number) => void, by = ' '): string {
  let n = 0;
  const out = text.replace(re, () => {
    n++;
    return by;
  });
  if (n) count(n);
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const wordCount = (s: string) => (s ? s.split(' ').length : 0);

/** The line as the terminal showed it: what a carriage return overwrote is gone. */
function lastOverwrite(line: string): string {
  // A carriage return that ends the line (a program's CRLF, cut from its LF) overwrote nothing.
  const text = line.replace(/\r+$/, '');
  const cr = text.lastIndexOf('\r');
  return cr === -1 ? text : text.slice(cr + 1);
}

/** Shapes a terminal selection into the query retrieval uses. */
export function shapeQuery(selection: string, budget = QUERY_WORD_BUDGET): ShapedQuery {
  const dropped = emptyDropped();
  const commands: string[] = [];
  // An escape sits inside a word (`\x1b[1mfatal\x1b[0m:`): it goes without a trace.
  let text = drop(selection, ESCAPES, (n) => (dropped.escapes += n), '');
  text = text.replace(OVERSTRIKE, '').replace(OTHER_CONTROLS, (c) => (c === '\r' ? c : ' '));
  const raw = text
    .split(/\r?\n/)
    .map(lastOverwrite)
    .filter((l) => l.trim() !== '');

  // diff's normal format marks old and new lines `< ` and `> `, and curl -v its request and
  // response headers: where diff's change commands (`2c2`) or curl's own `* ` lines are in the
  // selection, those are no prompts.
  const headers = raw.some((l) => DIFF_CHANGE.test(l.trim()) || CURL_VERBOSE.test(l));
  // ls -l's `total 48` goes with the listing it heads.
  const listed = raw.some((l) => listingEntry(l) !== undefined);
  // OpenSSL's commands print their own name (`dgst: Unknown option …`, then `dgst: Use -help for
  // summary.`): each is `openssl dgst`, documented on openssl-dgst's page.
  const apps = new Set<string>();
  for (const l of raw) {
    const app = OPENSSL_APP.exec(l.trim())?.[1];
    if (app) apps.add(app);
  }
  const seen = new Set<string>();
  const kept: Line[] = [];
  // Each program's weight: the sum of its lines' priorities (a program that ran and failed leads).
  // Plain output (no error, no warning) counts once per program: a 30-line `ls -l` listing above
  // a failed tar names ls, but must not outweigh the command that failed.
  const programs = new Map<string, number>();
  const credit = (p: string, weight: number) => programs.set(p, (programs.get(p) ?? 0) + weight);
  // A subcommand's page goes right above its program's, whatever else the program was credited.
  const subcommandLeads = (sub: string, program: string) => {
    const top = programs.get(sub) ?? 0;
    if ((programs.get(program) ?? 0) >= top) programs.set(program, top - 0.5);
  };
  const plain = new Set<string>();
  // Scripts in a bin directory that a stack frame shows: the program the user ran, which leads its
  // interpreter however many lines the interpreter's own forms name.
  const frames = new Set<string>();
  // Shells whose own error at a script's line the selection shows: the failure is theirs, and
  // they lead every command the trace above it ran.
  const failedShells = new Set<string>();
  // Each command or trace line's programs, and whether an error or a warning followed it.
  const runs: { programs: readonly string[]; weight: number; failed: boolean }[] = [];
  // The programs of the last command line: the error and warning lines below it are theirs too,
  // so in a scrollback the command that failed leads the one that listed files before it.
  let ran: string[] = [];
  // The wrappers the last command line ran its programs through.
  let wrappedBy: string[] = [];
  // Whether the line above was a byte list, wholly dropped.
  let bytesAbove = false;
  // The old and new lines a unified diff's open hunk has still to show (blank context lines are
  // not in `raw`, so a hunk may stay open a little long; a command line closes it).
  let hunk: { old: number; new: number } | undefined;
  for (const [index, original] of raw.entries()) {
    let line = original;
    // Byte lists go first: `19:0a:5e:…` would read as a gutter's line number, `12:30:45` as a time.
    // A list's last line holds fewer pairs (`21:07` after a modulus) and goes with it.
    const belowBytes = bytesAbove;
    bytesAbove = false;
    if (line.includes(':') || belowBytes) {
      const before = line;
      line = drop(line, BYTE_LIST, (n) => (dropped.hex += n));
      if (line !== before && line.trim() === '') bytesAbove = true;
      else if (belowBytes && BYTE_TAIL.test(line)) {
        dropped.hex++;
        line = '';
      }
      if (line.trim() === '') continue;
    }
    // xxd's offset (`00000000: 7f45 …`) reads as a gutter's line number; its layout says otherwise.
    const gutter = GUTTER.test(line) && signaturePrograms(line).length === 0;
    // A row of a box (ssh-keygen's randomart `|++ O + * o       |`) is drawn, whatever it starts with.
    const boxed = BOX_ROW.test(line);
    if (gutter) {
      dropped.gutters++;
      line = line.replace(GUTTER, ' ');
    } else if (GUTTER_ONLY.test(line)) {
      dropped.gutters++;
      continue;
    }
    let command = false;
    const trimmed = line.trimStart();
    // A line in a gutter or box is a listing's (ssh-keygen's randomart row `|   # o .   |`), no prompt.
    // strace -c's `% time     seconds …` is its table's header, no zsh prompt.
    const formed = trimmed.startsWith('%') && signaturePrograms(trimmed).length > 0;
    for (const p of gutter || boxed || formed || (headers && DIFF_LINE.test(trimmed)) ? [] : PROMPTS) {
      const m = p.exec(trimmed);
      if (m) {
        dropped.prompts++;
        line = trimmed.slice(m[0].length);
        command = line.trim() !== '';
        break;
      }
    }
    let inHunk = false;
    const header = command ? null : HUNK.exec(line);
    if (command) hunk = undefined;
    else if (header) hunk = { old: Number(header[1] ?? 1), new: Number(header[2] ?? 1) };
    else if (hunk) {
      inHunk = true;
      // `\ No newline at end of file` counts as neither side's line.
      if (!line.startsWith('\\')) {
        if (!line.startsWith('+')) hunk.old--;
        if (!line.startsWith('-')) hunk.new--;
        if (hunk.old <= 0 && hunk.new <= 0) hunk = undefined;
      }
    }
    if (SYSLOG.test(line)) {
      dropped.timestamps++;
      line = line.replace(SYSLOG, '');
    }
    const stamped = line;
    const entry = listingEntry(line);
    if (entry) {
      dropped.listings++;
      line = entry.name;
    } else if (listed && LISTING_TOTAL.test(line.trim())) {
      dropped.listings++;
      continue;
    }
    // A line in a gutter (an editor's or a compiler's listing) is code, not indented output.
    const indented = !gutter && !command && INDENT.test(stamped);
    // Every timestamp, hex number, UUID and long number holds a digit: most prose lines skip these.
    if (DIGIT.test(line)) {
      for (const re of TIMESTAMPS) line = drop(line, re, (n) => (dropped.timestamps += n));
      if (line.includes('-')) line = drop(line, UUID, (n) => (dropped.uuids += n));
      line = line.replace(HEX_CANDIDATE, (m) => {
        if (!isHex(m)) return m;
        dropped.hex++;
        return ' ';
      });
      line = drop(line, PID, (n) => (dropped.numbers += n), '');
      line = drop(line, LONG_NUMBER, (n) => (dropped.numbers += n));
    }
    // Brackets and separators a removed timestamp or pid leaves behind: `prog[]:`, `[] `, `()`.
    line = squash(line.replace(/\[ +\]|\( +\)/g, '').replace(/^[\s:,;|]+/, ''));
    // Whether a lone line reads as a command is decided before a question loses its question
    // words: `what does the -z flag of sort do?` would read as the command `the -z …` after.
    const lone =
      !command &&
      ((raw.length === 1 && COMMAND_LIKE.test(line)) || (raw.length > 1 && indented && SUGGESTED.test(line)));
    // Mentions are read before a question loses its words: `does rsync resume …` names rsync by its
    // auxiliary.
    const prose = command || lone || indented ? undefined : line;
    if (!command && QUESTION_LINE.test(line)) line = dropQuestionWords(line, dropped);
    // ed's only diagnostic, a lone `?`, names ed and holds no word to search for.
    if (line === '?') credit('ed', 1);
    if (!line || !/[\p{L}\p{N}]/u.test(line)) {
      // od's lines are numbers only, all dropped; their layout still names od.
      for (const p of signaturePrograms(stamped)) {
        if (plain.has(p)) continue;
        plain.add(p);
        credit(p, 1);
      }
      continue;
    }
    const key = line.toLowerCase().replace(/\d+/g, '0');
    if (seen.has(key)) {
      dropped.repeats++;
      continue;
    }
    seen.add(key);
    if (command) commands.push(line);
    // A unified diff's `+++ b/a.txt` (after its `--- a/a.txt`) and a line in a box or gutter
    // (`| + O =o.. + |` of ssh-keygen's randomart) are no shell trace.
    const untraced =
      gutter || boxed || inHunk || (line.startsWith('+++ ') && raw[index - 1]?.startsWith('--- ') === true);
    const shown = linePrograms(line, command, lone, stamped, indented, untraced);
    // A `prog: ` line of a program the last command ran is its diagnostic whatever its words
    // (`xz: a.tar.xz: File format not recognized`, `sudo: a password is required`): programs write
    // those to stderr when something went wrong. It counts as a warning at least. A wrapper's own
    // (`nice: cannot set niceness`, `env: './deploy.sh': Permission denied`) is the wrapper's
    // failure: the program it wraps may never have run.
    const said = command || shown.ran ? '' : (OUTPUT_PROGRAM.exec(line)?.[1] ?? '');
    const wrapperSaid = said !== '' && wrappedBy.includes(said) && !ran.includes(said);
    const diagnostic =
      said !== '' && (ran.includes(said) || ran.some((p) => PRINTS_AS.get(p) === said) || wrapperSaid);
    // The shell's own error at a line of the script it runs (`./release.sh: line 16: X: unbound
    // variable`) is a failure whatever its words, and the shell's: the commands it traced are
    // context.
    const floor = shown.shell ? 3 : diagnostic ? 2 : 0;
    const priority: Priority = command ? 4 : (Math.max(floor, rank(line)) as Priority);
    if (apps.size > 0 && !shown.ran)
      shown.programs = shown.programs.flatMap((p) => (apps.has(p) ? [`openssl-${p}`, 'openssl'] : [p]));
    const refusal = command ? null : SHELL_REFUSAL.exec(line);
    for (const p of shown.programs) {
      if (priority === 0 && !shown.ran) {
        if (plain.has(p)) continue;
        plain.add(p);
      }
      credit(p, priority + 1);
    }
    if (shown.frame) frames.add(shown.frame);
    if (shown.shell) failedShells.add(shown.shell);
    if (shown.ran) {
      ran = shown.programs;
      wrappedBy = commandWrappers(command ? line : line.replace(XTRACE, ''));
      runs.push({ programs: ran, weight: priority, failed: false });
    } else if (refusal || shown.shell) {
      // The shell refused the command line (`zsh:1: no matches found: *.bak`), or stopped the
      // script at a line of its own: the last command is context, and the error is the shell's.
      if (refusal && !shown.programs.includes(refusal[1]!)) credit(refusal[1]!, priority + 1);
      const last = runs.at(-1);
      if (last && last.programs === ran && !last.failed) {
        for (const p of ran) credit(p, -last.weight);
        // Still a failure: the commands before it are its context.
        last.failed = true;
      }
    } else if (priority >= 2) {
      for (const p of wrapperSaid ? [said] : ran) credit(p, priority);
      const last = runs.at(-1);
      if (last) last.failed = true;
    }
    kept.push({ text: line, words: wordCount(line), priority, index, prose });
  }

  // In a scrollback where a command failed, the commands that printed no error or warning are
  // its context (`cat Makefile`, `ls`, `git log` before a failed `make`): each counts as plain output.
  if (runs.some((r) => r.failed))
    for (const r of runs) if (!r.failed) for (const p of r.programs) credit(p, -r.weight);
  // The page of a subcommand that failed leads its program's (`git switch develop` then `fatal: …`),
  // however many other git commands the scrollback shows. Where it is the only one, its error lines
  // decide: `not a git repository` is git's, whichever subcommand ran.
  for (const r of runs) {
    const [sub, program] = r.programs;
    if (!r.failed || !sub || !program || !sub.startsWith(`${program}-`)) continue;
    if (!runs.some((o) => o !== r && o.programs.includes(program))) continue;
    subcommandLeads(sub, program);
  }

  // The command OpenSSL's lines name leads openssl, whose error queue follows them.
  for (const app of apps) subcommandLeads(`openssl-${app}`, 'openssl');

  // The last run (index into `runs`) of each program a command or trace line ran; programs not in
  // it only printed something.
  const lastRun = new Map<string, number>();
  runs.forEach((r, i) => {
    for (const p of r.programs) lastRun.set(p, i);
  });
  // ssh speaks for the program that ran it (scp, rsync, git): its refusal comes first, then the
  // program's own verdict (`scp: Connection closed`), which leads unless the user ran ssh. Only
  // those programs run ssh: next to ssh-keygen's name (`Load key "…": bad permissions`, which both
  // print) ssh keeps its place.
  if (programs.has('ssh') && !lastRun.has('ssh') && [...programs.keys()].some(runsSsh))
    programs.set('ssh', 0);
  for (const lead of [failedShells, frames])
    if (lead.size > 0) {
      const top = Math.max(...programs.values());
      for (const p of lead) programs.set(p, top + 1);
    }
  const chosen = withinBudget(kept, budget, dropped);
  // Programs named in prose count only when nothing else in the selection names one, and only on
  // the lines the query keeps (the budget bounds the cost of reading them).
  const mentions: string[] = [];
  if (programs.size === 0)
    for (const l of chosen)
      if (l.prose !== undefined)
        for (const p of mentionedPrograms(proseHead(l.prose))) if (!mentions.includes(p)) mentions.push(p);
  const query = chosen.map((l) => l.text).join('\n');
  return {
    query,
    lines: raw.length,
    keptLines: chosen.length,
    words: wordCount(squash(query)),
    commands,
    programs:
      programs.size > 0 ? leading(programs, lastRun).slice(0, MAX_PROGRAMS) : mentions.slice(0, MAX_PROGRAMS),
    prose: programs.size === 0 && mentions.length > 0,
    dropped,
  };
}

/**
 * Programs that are another program under a second name and sign their diagnostics with its name:
 * `gunzip x.gz` answers `gzip: x.gz: not in gzip format`.
 */
const PRINTS_AS: ReadonlyMap<string, string> = new Map([
  ['gunzip', 'gzip'],
  ['zcat', 'gzip'],
  ['unzstd', 'zstd'],
  ['zstdcat', 'zstd'],
]);

/** The programs that run ssh for their transport (and git's subcommand pages, by their prefix). */
const SSH_CALLERS: ReadonlySet<string> = new Set(['scp', 'sftp', 'rsync', 'git', 'ssh-copy-id', 'sshfs']);
const runsSsh = (program: string) => SSH_CALLERS.has(program) || program.startsWith('git-');

/**
 * Programs by weight, heaviest first. Map order is first-seen order, and the sort is stable: ties
 * keep it, except that among programs of equal weight that commands ran, the later command's lead:
 * where no command printed an error (`cd app`, then `python3 app.py` with nothing below it yet),
 * the last one is what the user is at. Programs that only printed keep their places.
 */
function leading(programs: ReadonlyMap<string, number>, lastRun: ReadonlyMap<string, number>): string[] {
  const sorted = [...programs].sort((a, b) => b[1] - a[1]);
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]![1] === sorted[i]![1]) j++;
    const slots = [];
    for (let k = i; k < j; k++) if (lastRun.has(sorted[k]![0])) slots.push(k);
    const ran = slots.map((k) => sorted[k]!);
    // Stable: programs of one command keep their order (the inner program of `sudo`, `nice`).
    ran.sort((a, b) => lastRun.get(b[0])! - lastRun.get(a[0])!);
    slots.forEach((k, n) => {
      sorted[k] = ran[n]!;
    });
    i = j;
  }
  return sorted.map(([p]) => p);
}

function rank(line: string): Priority {
  if (ERROR_LINE.test(line) || ERROR_CODE.test(line) || MAKE_STOP.test(line) || SHELL_REFUSAL.test(line))
    return 3;
  if (WARNING_LINE.test(line)) return 2;
  return 0;
}

/** The most informative lines that fit `budget` words, in their original order. */
function withinBudget(lines: Line[], budget: number, dropped: ShapeDropped): Line[] {
  const total = lines.reduce((n, l) => n + l.words, 0);
  if (total <= budget) return lines;
  // The first and last lines frame a trace (its headline, its innermost or final line).
  const order = lines
    .map((l, i) => ({
      l,
      p: i === 0 || i === lines.length - 1 ? Math.max(l.priority, 1) : l.priority,
    }))
    .sort((a, b) => b.p - a.p || a.l.index - b.l.index);
  const chosen: Line[] = [];
  let left = budget;
  for (const { l } of order) {
    if (left <= 0) break;
    if (l.words <= left) {
      chosen.push(l);
      left -= l.words;
    } else if (chosen.length === 0 || l.priority >= 3) {
      // A line too long for what is left keeps its first words (its program name and message).
      const text = l.text.split(' ').slice(0, left).join(' ');
      chosen.push({ ...l, text, words: left });
      left = 0;
    }
  }
  dropped.budget += lines.length - chosen.length;
  return chosen.sort((a, b) => a.index - b.index);
}
