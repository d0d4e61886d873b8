// Child process of the hostile-files suite: rewrites the given files in place, as fast as it
// can, until killed, so the scanner and the extractor read them while they change (truncated
// to empty, half written, or a whole other version). argv: files... ; the versions are derived
// from each file's name so the parent can recompute them.

import { closeSync, openSync, writeSync } from 'node:fs';
import { rewriteVersions } from './rewrite-versions.js';

const files = process.argv.slice(2);
let n = 0;
for (;;) {
  for (const f of files) {
    const versions = rewriteVersions(f);
    const v = versions[n % versions.length]!;
    // O_TRUNC then two writes: readers see empty, partial or whole versions.
    const fd = openSync(f, 'w');
    const half = Math.floor(v.length / 2);
    writeSync(fd, v, 0, half);
    writeSync(fd, v, half, v.length - half);
    closeSync(fd);
  }
  n++;
}
