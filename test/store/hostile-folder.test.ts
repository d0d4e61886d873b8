import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath } from '../../src/storage/paths.js';
import { addSources, createStore, findStore, updateSources } from '../../src/store/engine.js';
import { homeWithStarter, prose, tempDir, writeTree } from '../helpers/store-env.js';
import { deadline } from '../helpers/wait.js';

// A source folder is untrusted: between the scan and extraction (here: during the review step,
// which is exactly that moment) a file or a directory is swapped for something else. Extraction
// must open only the file the scan read, through the directories the scan entered, read at most
// its scanned size, and skip anything else with a reason, never hang and never bloat.
// Serial: the byte counts come from this process's /proc/self/io.

const MiB = 1024 * 1024;

async function setup(files: Record<string, string>) {
  const home = await homeWithStarter();
  const root = await tempDir('kortty-hostile-src-');
  await writeTree(root, files);
  await createStore({ name: 'Docs', modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
  await addSources('Docs', [{ kind: 'folder', path: root }], {}, home);
  return { home, root };
}

const tree = {
  'a.md': prose('apples', 20, 1),
  'sub/b.md': prose('bicycles', 20, 2),
  'sub/victim.md': prose('victims', 20, 3),
};

/** Bytes this process has read through read(2) and friends so far. */
const bytesRead = () => Number(/^rchar: (\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

async function indexedPaths(home: string): Promise<string[]> {
  const snap = await openSnapshot(snapshotPath((await findStore('Docs', home)).id, home));
  const paths = snap?.data.docs.map((d) => d.path) ?? [];
  snap?.close();
  return paths;
}

/** An update whose review step (after the scan, before extraction) runs `swap`. */
function updateWithSwap(home: string, swap: () => Promise<void>) {
  return updateSources(
    'Docs',
    'all',
    {
      confirm: async () => {
        await swap();
        return true;
      },
    },
    home,
  );
}

async function problemFor(home: string, path: string) {
  const src = (await findStore('Docs', home)).sources[0]!;
  return src.problemList.find((p) => p.path === path);
}

test.serial(
  'a file swapped for a link to /dev/zero after the scan is skipped; the job stays small',
  async (t) => {
    const { home, root } = await setup(tree);
    const victim = join(root, 'sub/victim.md');
    await writeFile(victim, prose('victims', 21, 4)); // changed: it must be extracted again
    const peak0 = process.resourceUsage().maxRSS * 1024;
    const read0 = bytesRead();
    await deadline(
      updateWithSwap(home, async () => {
        await unlink(victim);
        await symlink('/dev/zero', victim);
      }),
      60_000,
      'the update',
    );
    const p = await problemFor(home, victim);
    t.is(p?.reason, 'symlink', p?.explanation);
    t.regex(p?.explanation ?? '', /replaced by a symbolic link since the scan/);
    t.true(bytesRead() - read0 < 64 * MiB, `${((bytesRead() - read0) / MiB).toFixed(0)} MiB read`);
    t.true(process.resourceUsage().maxRSS * 1024 - peak0 < 128 * MiB, 'the process did not grow');
    const paths = await indexedPaths(home);
    t.true(paths.includes(join(root, 'a.md')) && paths.includes(join(root, 'sub/b.md')));
    t.false(paths.includes(victim));
  },
);

test.serial(
  'a file swapped for a FIFO after the scan is skipped at once; the job never waits on it',
  async (t) => {
    const { home, root } = await setup(tree);
    const victim = join(root, 'sub/victim.md');
    await writeFile(victim, prose('victims', 21, 4));
    t.teardown(() => {
      // Had a reader blocked on the FIFO, let it go (a writer appearing and leaving is EOF).
      try {
        closeSync(openSync(victim, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {}
    });
    await deadline(
      updateWithSwap(home, async () => {
        await unlink(victim);
        execFileSync('mkfifo', [victim]);
      }),
      60_000,
      'the update',
    );
    const p = await problemFor(home, victim);
    t.is(p?.reason, 'special-file', p?.explanation);
    t.regex(p?.explanation ?? '', /FIFO/);
    t.true((await indexedPaths(home)).includes(join(root, 'sub/b.md')));
  },
);

test.serial(
  'a file that grew after the scan is read no further than its scanned size + 1 byte',
  async (t) => {
    const { home, root } = await setup(tree);
    const victim = join(root, 'sub/victim.md');
    await writeFile(victim, prose('victims', 21, 4));
    const read0 = bytesRead();
    await updateWithSwap(home, () => appendFile(victim, Buffer.alloc(200 * MiB, 'grown line\n')));
    const p = await problemFor(home, victim);
    t.is(p?.reason, 'read-error');
    t.regex(p?.explanation ?? '', /changed since the scan \(it grew\)/);
    t.true(bytesRead() - read0 < 16 * MiB, `${((bytesRead() - read0) / MiB).toFixed(0)} MiB read`);
  },
);

test.serial(
  'a file replaced by another one (same bytes, new inode) after the scan is not read',
  async (t) => {
    const { home, root } = await setup(tree);
    const victim = join(root, 'sub/victim.md');
    const text = prose('victims', 21, 4);
    await writeFile(victim, text);
    await updateWithSwap(home, async () => {
      await writeFile(`${victim}.new`, text);
      await rename(`${victim}.new`, victim);
    });
    const p = await problemFor(home, victim);
    t.is(p?.reason, 'read-error');
    t.regex(p?.explanation ?? '', /replaced by another one since the scan/);
    // The next update sees the new file and indexes it.
    await updateSources('Docs', 'all', {}, home);
    t.true((await indexedPaths(home)).includes(victim));
  },
);

test.serial(
  'a directory swapped for a link to a private folder after the scan: nothing in it is read',
  async (t) => {
    const { home, root } = await setup(tree);
    const victim = join(root, 'sub/victim.md');
    const text = prose('victims', 21, 4);
    await writeFile(victim, text);
    // The private folder holds a file of the same name and the very same bytes, so only the path
    // it was reached by (not its content) can tell it apart.
    const secret = await mkdtemp(join(tmpdir(), 'kortty-private-'));
    await writeFile(join(secret, 'victim.md'), text);
    t.teardown(() => rm(secret, { recursive: true, force: true }));
    await updateWithSwap(home, async () => {
      await rename(join(root, 'sub'), join(root, '.sub-moved'));
      await symlink(secret, join(root, 'sub'));
    });
    const p = await problemFor(home, victim);
    t.is(p?.reason, 'symlink', p?.explanation);
    t.regex(p?.explanation ?? '', /a folder on its path was replaced by a symbolic link/);
    t.false((await indexedPaths(home)).includes(victim));
    // And a folder replaced by another real folder (new inode) is refused the same way.
    await unlink(join(root, 'sub'));
    await rename(join(root, '.sub-moved'), join(root, 'sub'));
    await writeFile(victim, prose('victims', 22, 5));
    await updateWithSwap(home, async () => {
      await rename(join(root, 'sub'), join(root, '.sub-old'));
      await mkdir(join(root, 'sub'));
      await writeFile(join(root, 'sub/victim.md'), prose('victims', 22, 5));
    });
    const q = await problemFor(home, victim);
    t.is(q?.reason, 'read-error', q?.explanation);
    t.regex(q?.explanation ?? '', /folder .*sub was replaced by another one since the scan/);
  },
);
