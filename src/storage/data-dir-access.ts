import { accessSync, constants } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { createError, type KorttyError } from '../errors.js';

// A data directory that cannot be written (a read-only mount, a home owned by someone else, a
// KORTTY_HOME pointing at a read-only folder) fails deep inside whichever write comes first,
// as a bare errno ("EACCES: permission denied, mkdir …", or ENOENT when a recursive mkdir gave
// up on the way). This turns such an error into one line naming the directory and what to do.

const WRITE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT']);

/** DATA_DIR_NOT_WRITABLE when `err` is a failed write under `home` that is not writable; else undefined. */
export function unwritableDataDir(err: unknown, home: string): KorttyError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e.code !== 'string' || typeof e.path !== 'string' || !WRITE_CODES.has(e.code))
    return undefined;
  const path = resolve(e.path);
  // Under the data directory, or on the way to it (creating a KORTTY_HOME that does not exist yet).
  const under = !relative(resolve(home), path).startsWith('..');
  const onTheWay = !relative(path, resolve(home)).startsWith('..');
  if (!under && !onTheWay) return undefined;
  const blocked = nearestExisting(path);
  if (blocked === undefined) return undefined;
  try {
    accessSync(blocked, constants.W_OK);
    return undefined; // writable after all: the error means something else, shown as it is
  } catch {
    return createError('DATA_DIR_NOT_WRITABLE', {
      home,
      path: blocked,
      reason: `${e.code}${e.syscall ? ` on ${e.syscall}` : ''} ${e.path}`,
    });
  }
}

function nearestExisting(path: string): string | undefined {
  for (let cur = path; ; cur = dirname(cur)) {
    try {
      accessSync(cur, constants.F_OK);
      return cur;
    } catch {
      if (dirname(cur) === cur) return undefined;
    }
  }
}
