import { dirname } from 'node:path';
import { buildSnapshot } from '../../src/index/snapshot-build.js';
import { writeSnapshot } from '../../src/index/snapshot-io.js';
import { makeData } from './fixtures.js';

// Child for snapshot-kill.test.ts: activates snapshots A and B alternately at `path` until killed.
// `makeData` is deterministic, so the parent knows the exact bytes of both.

const path = process.argv[2]!;
const a = await buildSnapshot(makeData(KILL_DATA(1)), { scratchDir: dirname(path) });
const b = await buildSnapshot(makeData(KILL_DATA(2)), { scratchDir: dirname(path) });
process.stdout.write('ready\n');
for (let i = 0; ; i++) await writeSnapshot(path, i % 2 === 0 ? b : a);

function KILL_DATA(seed: number) {
  return { sources: 2, docsPerSource: 20, chunksPerDoc: 5, dim: 32, seed };
}
