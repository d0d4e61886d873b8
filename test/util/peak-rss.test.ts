import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const helper = new URL('../../src/util/peak-rss.js', import.meta.url).href;

// A child spawned by a large process: the figure must be the child's, not its parent's.
test('the own peak counts the child alone, where ru_maxrss also counts the parent it was forked from', async (t) => {
  const ballast = Buffer.alloc(384 * MiB, 1); // touched pages: this process is resident at 384 MiB or more
  const script = `
    const { ownPeakRssKb } = await import(${JSON.stringify(helper)});
    const before = ownPeakRssKb();
    const held = Buffer.alloc(96 * 1024 * 1024, 1);
    console.log(JSON.stringify({ before, after: ownPeakRssKb(), maxrss: process.resourceUsage().maxRSS, held: held.length }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  const r = JSON.parse(stdout) as { before: number; after: number; maxrss: number };
  t.true(ballast[ballast.length - 1] === 1);
  t.true(r.before / 1024 < 200, `a fresh child's own peak is ${r.before / 1024} MiB`);
  t.true(
    r.after - r.before >= 90 * 1024,
    `96 MiB more raised the peak by ${(r.after - r.before) / 1024} MiB`,
  );
  if (process.platform === 'linux') {
    // The pitfall itself, so this test fails if the kernel ever stops showing it and the module can go.
    t.true(r.maxrss / 1024 >= 384, `ru_maxrss ${r.maxrss / 1024} MiB`);
  }
});
