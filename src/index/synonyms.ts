import { stemWord } from './stem.js';

// Words users and manuals say differently (pure data and a lookup). A user asks to "delete a
// folder"; the manual says "remove a directory". Each group is a set of single words that name the
// same thing in a terminal's documentation; a query word of a group also matches the others, as
// one term (bm25.ts: their frequencies add up, weighted, before saturation). Written from general
// usage, not from any evaluation query; words that are also common program names (kill, sort,
// join, watch, env, make) are left out, since a page's title holds its name.

const GROUPS: readonly string[] = [
  'delete remove erase unlink',
  'folder directory dir',
  'subfolder subdirectory subdir',
  'symlink symbolic softlink',
  'perms permissions',
  'xattr xattrs attributes',
  'unprintable nonprinting nonprintable nongraphic',
  'recursive recursively recurse',
  'overwrite clobber',
  'decompress uncompress extract unpack',
  'compress pack',
  'tarball archive',
  'download fetch retrieve',
  'redirect redirects location',
  'resume continue',
  'rename move',
  'gigabytes gigabyte gb gib',
  'megabytes megabyte mb mib',
  'kilobytes kilobyte kb kib',
  'nul null',
  'whitespace blanks',
  'checksum hash digest',
  'encrypt encipher',
  'decrypt decipher',
  'cert certificate',
  'passphrase password',
  'quiet silent suppress',
  'verbose detailed',
  'exclude ignore',
  'merge combine concatenate',
  'timestamp mtime',
  'modified changed',
  'temp temporary tmp',
  'canonical absolute resolved',
  'duplicate duplicated repeated',
  'column field',
  'delimiter separator',
  'reverse descending',
  'numeric numerical',
  'parallel concurrent simultaneous',
  'identical equal',
  'usage consumption',
  'login logon',
  'daemon service',
  'journal logs',
  'hidden dotfiles',
  'wildcard glob',
  'verify validate',
  'owner ownership',
  'preserve keep retain',
  'truncate shorten',
  'prepend prefix',
  'count tally',
  'occurrences matches',
  'ask prompt confirm',
  'encoding charset codeset',
  'sleep delay pause',
  'limit maximum max',
  'newest latest',
  'largest biggest',
];

// Everyday words a manual seldom uses, each toward the manual's words for the same thing, one way:
// a user's "drive" also matches "disk", but a manual's "disk" does not reach a page about "drives"
// (the manual's word is the precise one). Written from general usage, as the groups above. A
// target may be a program's name (`alphabetical` → sort, `shelve` → stash): the user's word then
// reaches the page that does it, while a query naming the program is untouched.
const TOWARD: readonly string[] = [
  'drive: disk',
  'room: space',
  'storage: disk space',
  'ram: memory',
  'hog: usage',
  'shortcut: symlink link',
  'runnable: executable execute',
  'launch: run execute start',
  'quit: terminate exit',
  'app: program application',
  'look: search',
  'hunt: search',
  'grab: extract select',
  'save: write',
  'trash: remove delete',
  'bundle: archive',
  'upload: transfer send',
  'startup: boot',
  'nightly: daily',
  'night: daily',
  'comma: delimiter',
  'uppercase: upper',
  'lowercase: lower',
  'dedupe: duplicate unique',
  'deduplicate: duplicate unique',
  'alphabetical: sort',
  'alphabetically: sort',
  'admin: root superuser',
  'administrator: root superuser',
  'rights: permissions',
  'undo: revert reset restore',
  'history: log',
  'huge: large',
  'big: large',
  'config: configuration',
  'settings: configuration options',
  'distro: distribution release',
  'box: host',
  'disconnect: hangup',
  'shelve: stash',
  'own: owner',
  'crash: fail failure',
  'die: terminate',
  'computer: machine host',
  'eat: usage consumption',
  'peek: display view',
  'csv: delimiter field',
  'capital: upper',
  'replace: substitute',
  'task: process job',
  'internet: network',
  'website: url http',
  'wifi: wireless',
  'speed: rate bandwidth',
  'throttle: limit rate bandwidth',
  'sync: synchronize',
  'account: user',
  'passwordless: key',
  'stick: device',
  'clock: time',
  'timezone: zone time',
  'software: package',
  'uninstall: remove',
];

let byStem: Map<string, string[]> | undefined;

function build(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  const add = (s: string, more: readonly string[]) =>
    map.set(s, [...new Set([...(map.get(s) ?? []), ...more.filter((x) => x !== s)])]);
  for (const g of GROUPS) {
    const stems = [...new Set(g.split(' ').map((w) => stemWord(w)))];
    for (const s of stems) add(s, stems);
  }
  for (const line of TOWARD) {
    const [from, to] = line.split(': ') as [string, string];
    add(
      stemWord(from),
      to.split(' ').map((w) => stemWord(w)),
    );
  }
  return map;
}

/** The stems a query word's stem also matches (its group's other members, the manual's words for an everyday word), or undefined. */
export function synonymsOf(stem: string): readonly string[] | undefined {
  byStem ??= build();
  return byStem.get(stem);
}
