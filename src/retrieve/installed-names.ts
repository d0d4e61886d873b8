// The other names a program runs as (pure): on Debian `awk` is a link through the alternatives
// system to mawk, `vi` to vim.basic, and their manuals are filed under those names. The I/O that
// follows the links is app/installed-names-file.ts.

/** A program's name as a command line shows it: no path, no shell syntax. */
export const PROGRAM_NAME = /^[A-Za-z0-9][\w.+-]{0,63}$/;

/**
 * The names a program is installed as, given the file its command resolves to: the file's name,
 * then that name before its first dot (`vim.basic` → vim, whose page is filed under vim); the
 * program's own name and anything that is no program name are left out.
 */
export function installedNamesFor(program: string, resolved: string): string[] {
  const own = program.toLowerCase();
  const base = resolved.slice(resolved.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.indexOf('.');
  const names = dot > 0 ? [base, base.slice(0, dot)] : [base];
  return [...new Set(names)].filter((n) => n !== own && PROGRAM_NAME.test(n));
}
