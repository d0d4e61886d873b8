import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import test from 'ava';
import { isKorttyError } from '../../src/errors.js';
import { buildSnapshot } from '../../src/index/snapshot-build.js';
import { openSnapshot, writeSnapshot } from '../../src/index/snapshot-io.js';
import { createNodeFsEnv, type FsEnv } from '../../src/storage/fs-env.js';
import { freshSnapshotPath, makeData, plain, useTempHome } from './fixtures.js';

useTempHome();

type Op = 'create' | 'write' | 'sync' | 'close' | 'readFile' | 'rename' | 'syncDir' | 'exists';

/** The real filesystem, with one injected failure at the n-th call; records every call. */
function faultyEnv(failAt: number, code: string) {
  const real = createNodeFsEnv();
  const log: Op[] = [];
  const hit = (op: Op) => {
    log.push(op);
    if (log.length - 1 === failAt) {
      throw Object.assign(new Error(`${code}: injected at ${op}`), { code });
    }
  };
  const env: FsEnv = {
    ...real,
    async create(path, mode) {
      hit('create');
      const f = await real.create(path, mode);
      return {
        async write(data) {
          hit('write');
          await f.write(data);
        },
        async sync() {
          hit('sync');
          await f.sync();
        },
        async close() {
          await f.close(); // always release the descriptor, then report
          hit('close');
        },
      };
    },
    async readFile(p) {
      hit('readFile');
      return real.readFile(p);
    },
    async rename(a, b) {
      hit('rename');
      await real.rename(a, b);
    },
    async syncDir(d) {
      hit('syncDir');
      await real.syncDir(d);
    },
    async exists(p) {
      hit('exists');
      return real.exists(p);
    },
  };
  return { env, log };
}

test('an I/O error at every filesystem call of a write: specific error, old snapshot intact, no temp file', async (t) => {
  const path = freshSnapshotPath();
  const oldData = makeData({ seed: 1 });
  await writeSnapshot(path, oldData);
  const old = readFileSync(path);
  const parts = await buildSnapshot(makeData({ seed: 2 }), { scratchDir: dirname(path) });
  // a clean run to learn the sequence of calls
  const probe = faultyEnv(-1, 'EIO');
  await writeSnapshot(freshSnapshotPath(), parts, { env: probe.env });
  t.deepEqual(probe.log, ['exists', 'create', 'write', 'sync', 'close', 'readFile', 'rename', 'syncDir']);

  for (const code of ['EIO', 'ENOSPC', 'EACCES']) {
    for (let at = 0; at < probe.log.length; at++) {
      const op = probe.log[at]!;
      const { env, log } = faultyEnv(at, code);
      const err = await t.throwsAsync(writeSnapshot(path, parts, { env }), undefined, `${code} at ${op}`);
      t.true(isKorttyError(err), `${code} at ${op}: ${err?.message}`);
      t.true(err!.message.includes(code), `${code} at ${op}: message names the cause: ${err!.message}`);
      const expectCode = op === 'sync' ? 'FSYNC_FAILED' : op === 'syncDir' ? 'DIR_FSYNC_FAILED' : 'IO_FAILED';
      t.is((err as { code?: string }).code, expectCode, `${code} at ${op}`);
      t.deepEqual(
        readdirSync(dirname(path)).filter((n) => n.startsWith('.tmp-')),
        [],
        `${code} at ${op}: no temp file`,
      );
      if (op === 'syncDir') {
        // the rename happened: the new snapshot is visible (not yet known durable), and whole
        t.deepEqual(plain((await openSnapshot(path))!.data), plain(parts.data));
        await writeSnapshot(path, oldData);
      } else {
        t.true(readFileSync(path).equals(old), `${code} at ${op}: old snapshot byte-identical`);
        // nothing is renamed after a failed fsync
        if (op === 'sync') t.false(log.includes('rename'));
      }
    }
  }
});
