import { realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { InstalledNames } from '../index/bm25.js';
import { installedNamesFor, PROGRAM_NAME } from '../retrieve/installed-names.js';

// Which names the programs a query shows run as on this machine: the first PATH entry of the
// name, as the shell would pick it, with its links followed. Read-only; nothing is run.

/** Names remembered per process; the query service asks about the same few programs all day. */
const CACHE_LIMIT = 1000;

/** `(program) → the other names it is installed as` over `env.PATH`'s absolute directories. */
export function createInstalledNames(env: NodeJS.ProcessEnv = process.env): InstalledNames {
  // A relative PATH entry depends on the working directory of whichever process asks: skipped.
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '' && isAbsolute(d));
  const cache = new Map<string, readonly string[]>();
  return (program) => {
    const known = cache.get(program);
    if (known) return known;
    let names: readonly string[] = [];
    if (PROGRAM_NAME.test(program))
      for (const dir of dirs) {
        let resolved: string;
        try {
          resolved = realpathSync(join(dir, program));
        } catch {
          continue;
        }
        names = installedNamesFor(program, resolved);
        break;
      }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(program, names);
    return names;
  };
}
