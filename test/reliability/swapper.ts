// A separate process that races the scanner (hostile-fs-suite.ts): it swaps entries of a source
// folder for symbolic links (to a private folder, to /dev/zero) or for a FIFO and back, with
// sub-millisecond random pauses, until told to stop. Being its own process, its renames land
// between any two system calls of the scan and of extraction. Every swap is undone before it
// reports, so the tree ends as it started.
//
// argv[2]: JSON { seed, swaps: Swap[] }. Swap:
//   { kind: 'dir-link', path, target, park }   directory <-> link to `target`
//   { kind: 'file-link', path, target, park }  file <-> link to `target` (a file or /dev/zero)
//   { kind: 'fifo', path, park, fifo }         file <-> the FIFO at `fifo`
//   { kind: 'flip', path, versions }           rewrite the file with the next of `versions`, so
//                                              the next scan sees it changed and extracts it again

import { renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { rng } from './common.js';

type Swap =
  | { kind: 'dir-link' | 'file-link'; path: string; target: string; park: string }
  | { kind: 'fifo'; path: string; park: string; fifo: string }
  | { kind: 'flip'; path: string; versions: string[]; next?: number };

const spec = JSON.parse(process.argv[2] ?? '{}') as { seed: number; swaps: Swap[]; maxPauseMs?: number };
const rand = rng(spec.seed);
const maxPause = spec.maxPauseMs ?? 3;
const gate = new Int32Array(new SharedArrayBuffer(4));
const pause = () => Atomics.wait(gate, 0, 0, rand() * maxPause);
let stop = false;
let swaps = 0;
let errors = 0;

process.on('message', (m) => {
  if (m === 'stop') stop = true;
});
process.on('disconnect', () => {
  stop = true;
});

function swapOnce(s: Swap): void {
  if (s.kind === 'flip') {
    s.next = ((s.next ?? 0) + 1) % s.versions.length;
    writeFileSync(s.path, s.versions[s.next]!);
    return;
  }
  renameSync(s.path, s.park);
  try {
    if (s.kind === 'fifo') renameSync(s.fifo, s.path);
    else symlinkSync(s.target, s.path);
    pause();
  } finally {
    if (s.kind === 'fifo') renameSync(s.path, s.fifo);
    else unlinkSync(s.path);
    renameSync(s.park, s.path);
  }
}

// Synchronous bursts between short event-loop turns, so 'stop' is seen within a few ms.
function burst(): void {
  const until = performance.now() + 20;
  while (!stop && performance.now() < until) {
    const s = spec.swaps[Math.floor(rand() * spec.swaps.length)]!;
    try {
      swapOnce(s);
      swaps++;
    } catch {
      errors++;
    }
    pause();
  }
  if (stop) {
    process.send?.({ swaps, errors }, () => process.exit(0));
    return;
  }
  setImmediate(burst);
}

burst();
