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

let byStem: Map<string, string[]> | undefined;

/** The stems a query word's stem also matches (its group's other members), or undefined. */
export function synonymsOf(stem: string): readonly string[] | undefined {
  if (!byStem) {
    byStem = new Map();
    for (const g of GROUPS) {
      const stems = [...new Set(g.split(' ').map((w) => stemWord(w)))];
      for (const s of stems)
        byStem.set(s, [...new Set([...(byStem.get(s) ?? []), ...stems.filter((x) => x !== s)])]);
    }
  }
  return byStem.get(stem);
}
