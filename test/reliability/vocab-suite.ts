import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractVocabs, vocabFileName } from '../../src/embed/vocab-bundle.js';
import { check, createRow, rng, type SuiteRow, sleep } from './common.js';

// First-run vocabulary extraction (src/embed/vocab-bundle.ts) is SIGKILLed at random moments while
// its private git repository (`.bundle-*`, ~30 MB) exists. The next extraction must remove every
// killed run's repository, an untagged one from an older version once it is older than an
// extraction can take, and must keep the repository of an extraction that is still running
// (another live process's, and this process's own) and a fresh untagged one; and it still
// produces the vocabulary.

const DRIVER = fileURLToPath(new URL('./vocab-driver.js', import.meta.url));

export interface VocabSuiteOptions {
  kills: number;
  seed?: number;
  log?: (line: string) => void;
}

const bundles = async (dir: string) =>
  (await readdir(dir).catch(() => [])).filter((n) => n.startsWith('.bundle-'));

export async function runVocabSuite(opts: VocabSuiteOptions): Promise<SuiteRow[]> {
  const row = createRow('vocabulary extraction killed: stale .bundle-* removed, live ones kept');
  const random = rng(opts.seed ?? 0x766f6361);
  const cache = await mkdtemp(join(tmpdir(), 'kortty-rel-vocab-'));
  let sleeper: ChildProcess | undefined;
  try {
    let leftovers = 0;
    // Present from the start: asking for it again is only the next run's look at the cache.
    await extractVocabs(['qwen2'], cache);
    for (let n = 0; n < opts.kills; n++) {
      await row.trial(
        async () => {
          await rm(join(cache, vocabFileName('bert-bge')), { force: true });
          const child = fork(DRIVER, [], {
            env: { ...process.env, REL_VOCABS: 'bert-bge', REL_CACHE: cache },
            stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          });
          const exited = new Promise<void>((r) => child.on('exit', () => r()));
          // Wait for its repository to appear, then kill it a random moment later (the fetch takes seconds).
          const deadline = Date.now() + 60_000;
          while ((await bundles(cache)).length === 0) {
            check(Date.now() < deadline, 'the extraction never created its repository');
            check(
              child.exitCode === null,
              `the extraction ended before it could be killed (${child.exitCode})`,
            );
            await sleep(5);
          }
          await sleep(random() * 1500);
          child.kill('SIGKILL');
          await exited;
          if ((await bundles(cache)).length > 0) leftovers++;
          // The next run clears it, even one that finds its vocabulary complete.
          await extractVocabs(['qwen2'], cache);
          const left = await bundles(cache);
          check(left.length === 0, `left after the next extraction: ${left.join(', ')}`);
        },
        `kill ${n + 1}`,
      );
    }
    row.note(`${leftovers} of ${opts.kills} killed extractions left a repository behind`);

    await row.trial(async () => {
      sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
      const live = [`.bundle-${sleeper.pid}-aaaaaa`, `.bundle-${process.pid}-bbbbbb`, '.bundle-cccccc'];
      const dead = ['.bundle-dddddd', `.bundle-${sleeper.pid}-eeeeee`];
      for (const name of [...live, ...dead]) await mkdir(join(cache, name, 'objects'), { recursive: true });
      const hours = new Date(Date.now() - 2 * 3600_000);
      // An untagged one from an older version, two hours old; a live pid's two hours old (pid reuse).
      for (const name of dead) await utimes(join(cache, name), hours, hours);
      const [path] = await extractVocabs(['bert-bge'], cache);
      check(path === join(cache, vocabFileName('bert-bge')), `extracted to ${path}`);
      const left = (await bundles(cache)).sort();
      check(left.join(',') === [...live].sort().join(','), `after extraction: ${left.join(', ')}`);
    }, 'a live extraction and a fresh untagged one kept, old ones removed');
    opts.log?.(`vocabulary bundles: ${row.failures} failure(s)`);
  } finally {
    sleeper?.kill('SIGKILL');
    await rm(cache, { recursive: true, force: true });
  }
  return [row];
}
