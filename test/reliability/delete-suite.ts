import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath, storeConfigPath, storeDir, storesDir } from '../../src/storage/paths.js';
import { addSources, createStore, deleteStore, storeStats } from '../../src/store/engine.js';
import { listStoreIds, listStores, loadStore } from '../../src/store/store-config.js';
import { DELETE_KILL_LABELS } from '../../src/util/kill-points.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { check, createRow, type SuiteRow } from './common.js';

// `store delete` killed at each of its steps. The CLI runs in a child process and is SIGKILLed
// at the labelled steps of the new code (lock held; directory renamed to its tombstone; rename
// fsynced) and, through strace's syscall fault injection, at the first file-system call that
// touches each entry of the store directory (so the test reaches the middle of any removal,
// whatever the code under test does) and at the n-th unlink/rmdir of the run. After each kill:
// the store is either listed with its store.json and snapshot byte-identical and verifying, or
// gone with no directory left; listing removes leftover tombstones; deleting again works (the
// dead holder's lock is taken over); and a new store of the same name starts empty, never with
// the deleted store's snapshot.

const CLI = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const SYSCALLS = 'unlink,unlinkat,rmdir,rename,renameat,renameat2';

export interface DeleteSuiteOptions {
  /** Kills at the n-th unlink/rmdir of the run, n = 1..this. */
  countedKills?: number;
  log?: (line: string) => void;
}

type Kill =
  | { kind: 'label'; label: string }
  | { kind: 'path'; path: string; name: string }
  | { kind: 'nth'; n: number };

function describe(k: Kill): string {
  return k.kind === 'label'
    ? `kill at ${k.label}`
    : k.kind === 'path'
      ? `kill at the first unlink/rmdir/rename of ${k.name}`
      : `kill at unlink/rmdir #${k.n}`;
}

function runDelete(
  home: string,
  kill: Kill,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const cli = [CLI, 'store', 'delete', 'Docs'];
  const env = { ...process.env, KORTTY_HOME: home, KORTTY_KILL_AT: kill.kind === 'label' ? kill.label : '' };
  const [cmd, args] =
    kill.kind === 'label'
      ? [process.execPath, cli]
      : [
          'strace',
          [
            '-f',
            '-qq',
            '-o',
            '/dev/null',
            ...(kill.kind === 'path'
              ? ['-P', kill.path, `-e`, `trace=${SYSCALLS}`, '-e', `inject=${SYSCALLS}:signal=KILL`]
              : [
                  '-e',
                  'trace=unlink,unlinkat,rmdir',
                  '-e',
                  `inject=unlink,unlinkat,rmdir:signal=KILL:when=${kill.n}`,
                ]),
            process.execPath,
            ...cli,
          ],
        ];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, args as string[], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    child.on('error', (err) =>
      reject(
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error(`${cmd} is not installed (it injects the kills at file-system calls)`)
          : err,
      ),
    );
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

export async function runDeleteSuite(opts: DeleteSuiteOptions = {}): Promise<SuiteRow[]> {
  const row = createRow('store delete killed at each step: whole store or none, never reused');
  const home = await homeWithStarter();
  // Sources never live inside the data directory (that is refused), so the tree is a sibling.
  const src = await mkdtemp(join(tmpdir(), 'kortty-delete-src-'));
  try {
    await writeTree(src, { 'a.md': prose('apples', 40, 1), 'b.md': prose('bananas', 40, 2) });
    const { id } = await createStore(
      { name: 'Docs', modelId: STARTER_MODEL_ID, chunk: { chunkTokens: 100, overlapTokens: 20 } },
      home,
    );
    await addSources('Docs', [{ kind: 'folder', path: src }], {}, home);
    const dir = storeDir(id, home);
    const template = {
      cfg: await readFile(storeConfigPath(id, home)),
      snap: await readFile(snapshotPath(id, home)),
    };
    const fingerprint = (await loadStore(id, home)).fingerprint;
    const docsBefore = (await storeStats(await loadStore(id, home), home)).documents;
    check(docsBefore === 2, `fixture store has ${docsBefore} documents`);

    const kills: Kill[] = [
      ...DELETE_KILL_LABELS.map((label): Kill => ({ kind: 'label', label })),
      ...['store.json', 'index.hnsw', 'lock', 'lock/owner.json', ''].map(
        (name): Kill => ({ kind: 'path', path: join(dir, name), name: name || 'the store directory' }),
      ),
      ...Array.from({ length: opts.countedKills ?? 4 }, (_, i): Kill => ({ kind: 'nth', n: i + 1 })),
    ];
    let killed = 0;
    let survived = 0;
    for (const kill of kills) {
      await row.trial(async () => {
        // The store as it was: the two files and nothing else.
        await rm(storesDir(home), { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        await writeFile(storeConfigPath(id, home), template.cfg);
        await writeFile(snapshotPath(id, home), template.snap);

        const res = await runDelete(home, kill);
        if (res.signal === 'SIGKILL') killed++;
        else check(res.code === 0, `the delete failed without a kill: ${res.code} ${res.stderr}`);

        const ids = await listStoreIds(home);
        const left = await readdir(storesDir(home));
        check(
          !left.some((n) => n.startsWith('.deleted-')),
          `tombstone left after listing: ${left.join(', ')}`,
        );
        if (ids.includes(id)) {
          survived++;
          check(res.signal === 'SIGKILL', 'a completed delete left the store listed');
          const entries = (await readdir(dir)).filter((e) => !e.startsWith('lock'));
          check(
            entries.sort().join(',') === 'index.hnsw,store.json',
            `a listed store holds ${entries.join(', ')}`,
          );
          check(
            (await readFile(storeConfigPath(id, home))).equals(template.cfg),
            'store.json of the listed store changed',
          );
          check(
            (await readFile(snapshotPath(id, home))).equals(template.snap),
            'the listed store lost or changed its snapshot',
          );
          const snap = await openSnapshot(snapshotPath(id, home), { expectFingerprint: fingerprint });
          check(snap?.data.docs.length === 2, 'the listed store does not open with its documents');
          snap?.close();
          // Deleting again succeeds: the killed holder's lock is taken over.
          await deleteStore('Docs', {}, home);
          check(!(await listStoreIds(home)).includes(id), 'a second delete left the store');
        } else {
          check(
            !left.includes(id),
            `the store is gone from the listing but its directory remains: ${left.join(', ')}`,
          );
        }
        // A new store of the same name starts empty.
        const fresh = await createStore({ name: 'Docs', modelId: STARTER_MODEL_ID }, home);
        const stats = await storeStats(fresh, home);
        check(stats.documents === 0, `a new store of the same name starts with ${stats.documents} documents`);
        await deleteStore('Docs', {}, home);
        check((await readdir(storesDir(home))).length === 0, 'the final delete left something behind');
      }, describe(kill));
    }
    // What an older version's interrupted `rm -r` could leave (the snapshot without store.json):
    // a new store of the same name must not adopt it.
    await row.trial(async () => {
      await rm(storesDir(home), { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await writeFile(snapshotPath(id, home), template.snap);
      check(!(await listStores(home)).some((x) => x.id === id), 'a directory without store.json is listed');
      const fresh = await createStore({ name: 'Docs', modelId: STARTER_MODEL_ID }, home);
      const stats = await storeStats(fresh, home);
      check(stats.documents === 0, `a new store adopted a leftover snapshot (${stats.documents} documents)`);
      await deleteStore('Docs', {}, home);
    }, 'leftover snapshot without store.json, then a new store of the name');
    row.note(`${killed} of ${kills.length} runs were killed; the store survived ${survived} kills whole`);
    opts.log?.(`store delete: ${row.failures} failure(s)`);
  } finally {
    await rm(home, { recursive: true, force: true });
    await rm(src, { recursive: true, force: true });
  }
  return [row];
}
