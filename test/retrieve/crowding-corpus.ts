// Generated documents for the multi-store tests: a small notes store next to a large store of
// man-page-like text files, as a user who indexes `man` output next to their notes would have.
// Deterministic (a fixed LCG), so every run builds the same stores.

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

const COMMON = (
  'file files directory output input option options default value name names line lines print ' +
  'write read standard error exit status mode user group time size number format display show ' +
  'set change copy move remove create link path pattern match search sort count report verbose ' +
  'quiet force recursive follow symbolic argument arguments command program shell environment ' +
  'variable text byte bytes block device system process signal terminal page column field'
).split(' ');

/** One page of made-up but man-shaped text for command `name`. */
function genericPage(name: string, r: () => number): string {
  const words = (n: number) => Array.from({ length: n }, () => COMMON[Math.floor(r() * COMMON.length)]!);
  const sentence = () => {
    const w = words(6 + Math.floor(r() * 10));
    return `${w[0]![0]!.toUpperCase()}${w[0]!.slice(1)} ${w.slice(1).join(' ')}.`;
  };
  const options: string[] = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < 4 + Math.floor(r() * 8); i++) {
    const long = words(1 + Math.floor(r() * 2)).join('-');
    options.push(`       -${letters[i]}, --${long}\n              ${sentence()} ${sentence()}`);
  }
  return [
    `${name.toUpperCase()}(1)                    User Commands                    ${name.toUpperCase()}(1)`,
    '',
    'NAME',
    `       ${name} - ${words(3).join(' ')}`,
    '',
    'SYNOPSIS',
    `       ${name} [OPTION]... [FILE]...`,
    '',
    'DESCRIPTION',
    `       ${sentence()} ${sentence()} ${sentence()}`,
    '',
    ...options,
    '',
    'EXIT STATUS',
    `       ${sentence()}`,
    '',
  ].join('\n');
}

const TAR = `TAR(1)                    User Commands                    TAR(1)

NAME
       tar - an archiving utility

SYNOPSIS
       tar -c [-f ARCHIVE] [OPTIONS] [FILE...]
       tar -t [-f ARCHIVE] [OPTIONS] [MEMBER...]
       tar -x [-f ARCHIVE] [OPTIONS] [MEMBER...]

DESCRIPTION
       tar stores many files together in a single archive on tape or disk and can restore
       single files from that archive. The first option names the operation: create an
       archive, list its members, or extract them. The archive is read from or written to
       the file named by -f, or to standard output when the name is a dash.

OPERATION MODE
       -c, --create
              Create a new archive from the named files and directories.
       -t, --list
              List the contents of an archive without extracting anything. With member
              names as arguments, only those members are listed. Combine with -v to show
              permissions, owner, size and modification time of each member.
       -x, --extract, --get
              Extract files from an archive into the current directory.
       -r, --append
              Append files to the end of an archive.
       -u, --update
              Append files that are newer than the copy in the archive.
       -d, --diff, --compare
              Find differences between the archive and the file system.

       -A, --catenate, --concatenate
              Append the members of other archives to the end of this one.
       --delete
              Delete members from the archive (not on magnetic tapes).
       --test-label
              Test the volume label and exit.

OPERATION MODIFIERS
       --check-device
              Check device numbers when creating incremental archives.
       -g, --listed-incremental=FILE
              Handle new GNU-format incremental backups, with metadata kept in FILE.
       -G, --incremental
              Handle old GNU-format incremental backups.
       --hole-detection=METHOD
              Use METHOD to detect holes in sparse files: seek or raw.
       --ignore-failed-read
              Do not exit with nonzero status on unreadable files.
       --level=NUMBER
              Set the dump level for a created listed-incremental archive.
       -n, --seek
              Assume the archive is seekable.
       --no-check-device
              Do not check device numbers when creating incremental archives.
       --occurrence[=N]
              Process only the Nth occurrence of each file in the archive.
       --sparse-version=MAJOR[.MINOR]
              Set the version of the sparse format to use.
       -S, --sparse
              Handle sparse files efficiently.

OVERWRITE CONTROL
       -k, --keep-old-files
              Do not replace existing files when extracting.
       --keep-directory-symlink
              Preserve existing symlinks to directories when extracting.
       --keep-newer-files
              Do not replace existing files that are newer than their copies.
       --no-overwrite-dir
              Preserve metadata of existing directories.
       --one-top-level[=DIR]
              Extract all files into DIR, or into a directory named after the archive.
       --overwrite
              Overwrite existing files when extracting.
       --overwrite-dir
              Overwrite metadata of existing directories when extracting.
       --recursive-unlink
              Recursively remove all files in a directory prior to extracting it.
       --remove-files
              Remove files from disk after adding them to the archive.
       --skip-old-files
              Do not replace existing files when extracting, silently skip them.
       -U, --unlink-first
              Remove each file prior to extracting over it.
       -W, --verify
              Verify the archive after writing it.

OUTPUT STREAM SELECTION
       --ignore-command-error
              Ignore subprocess exit codes.
       --no-ignore-command-error
              Treat nonzero exit codes of children as an error.
       -O, --to-stdout
              Extract files to standard output.
       --to-command=COMMAND
              Pipe extracted files to COMMAND.

HANDLING OF FILE ATTRIBUTES
       --atime-preserve[=METHOD]
              Preserve access times on dumped files.
       --delay-directory-restore
              Delay setting modification times and permissions of extracted directories.
       --group=NAME[:GID]
              Force NAME as group for added files.
       --mode=CHANGES
              Force symbolic mode CHANGES for added files.
       --mtime=DATE-OR-FILE
              Set the modification time for added files.
       -m, --touch
              Do not extract the file modification time.
       --no-delay-directory-restore
              Cancel the effect of the prior --delay-directory-restore option.
       --no-same-owner
              Extract files as yourself (default for ordinary users).
       --numeric-owner
              Always use numbers for user and group names.
       --owner=NAME[:UID]
              Force NAME as owner for added files.
       --same-owner
              Try extracting files with the same ownership as exists in the archive.
       -s, --preserve-order, --same-order
              Sort names to extract to match the archive.
       --sort=ORDER
              Sort directory entries when creating an archive: none, name or inode.

DEVICE SELECTION AND SWITCHING
       --force-local
              Archive file is local even if it has a colon.
       -L, --tape-length=N
              Change tape after writing N units of 1024 bytes.
       -M, --multi-volume
              Create, list or extract a multi-volume archive.
       --rmt-command=COMMAND
              Use COMMAND instead of rmt when accessing remote archives.
       --volno-file=FILE
              Keep track of which volume of a multi-volume archive is being worked in FILE.

COMMON OPTIONS
       -f, --file=ARCHIVE
              Use the archive file or device ARCHIVE.
       -v, --verbose
              Verbosely list the files processed.
       -z, --gzip
              Filter the archive through gzip.
       -j, --bzip2
              Filter the archive through bzip2.
       -J, --xz
              Filter the archive through xz.
       -C, --directory=DIR
              Change to directory DIR before any operation.
       --exclude=PATTERN
              Exclude files that match the shell pattern.
       -p, --preserve-permissions
              Keep the permission bits of extracted files.

EXAMPLES
       tar -cf backup.tar notes/     create backup.tar from the notes directory
       tar -tvf backup.tar           list every member of backup.tar in detail
       tar -xf backup.tar -C /tmp    extract backup.tar under /tmp
`;

// Other archivers mention archives and listing too: the relevant page must win on its own merits.
const CPIO = `CPIO(1)                    User Commands                    CPIO(1)

NAME
       cpio - copy files to and from archives

DESCRIPTION
       cpio copies files into or out of a cpio or tar archive. In copy-in mode it reads an
       archive from standard input and extracts files, or with -t prints a table of contents.

OPTIONS
       -i, --extract
              Copy-in mode: extract files from an archive read from standard input.
       -o, --create
              Copy-out mode: create an archive on standard output.
       -t, --list
              Print a table of contents of the input.
`;

const AR = `AR(1)                    GNU Development Tools                    AR(1)

NAME
       ar - create, modify, and extract from archives

DESCRIPTION
       The ar program creates, modifies, and extracts from archives. An archive is a single
       file holding a collection of other files, most often object files for a library.

OPTIONS
       t      Display a table listing the contents of archive.
       x      Extract members from the archive.
       r      Insert the files into the archive, replacing existing members.
`;

/** `count` man pages as text files: tar.txt, cpio.txt, ar.txt and generated pages for the rest. */
export function manPages(count = 300): Record<string, string> {
  const r = lcg(2024);
  const out: Record<string, string> = { 'tar.txt': TAR, 'cpio.txt': CPIO, 'ar.txt': AR };
  const syll = [
    'ba',
    'co',
    'di',
    'fe',
    'gu',
    'ha',
    'ki',
    'lo',
    'mu',
    'ne',
    'po',
    'ri',
    'sa',
    'tu',
    've',
    'zo',
  ];
  while (Object.keys(out).length < count) {
    const name = Array.from(
      { length: 2 + Math.floor(r() * 2) },
      () => syll[Math.floor(r() * syll.length)],
    ).join('');
    if (!out[`${name}.txt`]) out[`${name}.txt`] = genericPage(name, r);
  }
  return out;
}

/** Three notes; deploy.md mentions a release archive in passing, the others nothing of the kind. */
export function notes(): Record<string, string> {
  return {
    'deploy.md':
      '# Deploy\n\nBuild the release with `make dist` and upload the archive to the web host.\n' +
      'Restart the app service, then check the health page and the error log for a minute.\n',
    'todo.md': '# To do\n\n- renew the domain before March\n- book the dentist\n- water the kiwi plants\n',
    'meeting.md':
      '# Team meeting\n\nAgreed: weekly sync moves to Thursday. Budget review next month.\n' +
      'Anna owns the onboarding guide; Ben drafts the hiring plan.\n',
  };
}

export const TAR_QUERY = 'tar: how do I list the contents of an archive without extracting';
