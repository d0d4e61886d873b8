import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createError, type KorttyError } from '../errors.js';
import { korttyHome, ragDir } from '../storage/paths.js';
import { isInside } from './source-rules.js';

// A source must not contain the data directory ($KORTTY_HOME) nor lie inside it: it would index
// store.json, job files and run logs, and in automatic mode every sync would change the folder
// it watches and start the next one. Both sides are compared after realpath, so a link on either
// side changes nothing; rag/ is checked as well, since it may be a link to somewhere else.

/** realpath of `p`, or of its nearest existing ancestor with the rest appended. */
function realish(p: string): string {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch {
      const up = dirname(cur);
      if (up === cur) return p;
      rest.push(basename(cur));
      cur = up;
    }
  }
}

/** SOURCE_DATA_DIR when `sourcePath` contains or lies inside the data directory, else null. */
export function dataDirConflict(sourcePath: string, home = korttyHome()): KorttyError | null {
  const src = realish(sourcePath);
  const dataDirs = [...new Set([realish(home), realish(ragDir(home))])];
  for (const data of dataDirs) {
    if (isInside(src, data))
      return createError('SOURCE_DATA_DIR', { path: sourcePath, relation: 'lies inside', home: data });
    if (isInside(data, src))
      return createError('SOURCE_DATA_DIR', { path: sourcePath, relation: 'contains', home: data });
  }
  return null;
}
