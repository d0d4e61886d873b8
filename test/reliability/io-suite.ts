import { readdir, readFile } from 'node:fs/promises';
import { isKorttyError } from '../../src/errors.js';
import { snapshotPath, storeConfigPath, storeDir } from '../../src/storage/paths.js';
import { runSync } from '../../src/store/index-job.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { loadStore, saveStore } from '../../src/store/store-config.js';
import { createRecordingEnv, ERRNOS, type Errno, type FsOp } from '../helpers/fault-env.js';
import { check, createRow, type SuiteRow } from './common.js';
import {
  type ChangeKind,
  convergeAndCheck,
  laneHome,
  restoreStore,
  type Scenario,
  STORE_ID,
  sharedScenario,
} from './store-fixture.js';

// Item 3: ENOSPC, EIO and EACCES injected at every FsEnv call of an "Update now" (open the old
// snapshot, write/fsync/verify/rename/fsync-dir the new one, then the same for store.json) and of
// a plain store.json save. After each: a specific error (code, the file, the errno) or, where the
// failing call is a best-effort clean-up, a complete success; the live files are exactly the old
// ones unless the log shows they were renamed (then exactly the new ones); no temp file is left;
// nothing is renamed after a failed fsync; the lock is released; and a following Update now
// converges to the from-scratch snapshot.

export interface IoOptions {
  log?: (line: string) => void;
  /** How many errnos per call (1: rotate ENOSPC/EIO/EACCES over the calls; 3: all three at each). */
  errnos?: number;
  /** Change set of the update (default `edit`: the job embeds; `delete` is quicker). */
  kind?: ChangeKind;
}

function renamedTo(log: FsOp[], live: string): boolean {
  return log.some((op) => op.kind === 'rename' && !op.error && op.to === live);
}

function checkCommon(log: FsOp[], home: string): Promise<void> {
  // Nothing is renamed after a failed fsync.
  const failedSync = log.findIndex((op) => (op.kind === 'sync' || op.kind === 'syncDir') && op.error);
  if (failedSync >= 0) {
    const later = log.slice(failedSync + 1).find((op) => op.kind === 'rename' && !op.error);
    check(!later, () => `renamed ${later!.path} after a failed fsync of ${log[failedSync]!.path}`);
  }
  return readdir(storeDir(STORE_ID, home)).then((names) => {
    const left = names.filter((n) => n.startsWith('.tmp-') || n.startsWith('lock'));
    check(left.length === 0, () => `left behind: ${left.join(', ')}`);
  });
}

function checkError(err: unknown, code: Errno, op: FsOp | undefined, home: string): string {
  check(isKorttyError(err), () => `not a specific error: ${(err as Error)?.stack ?? err}`);
  check(
    err.code === 'IO_FAILED' || err.code === 'FSYNC_FAILED' || err.code === 'DIR_FSYNC_FAILED',
    `unexpected error code ${err.code}: ${err.message}`,
  );
  check(err.message.includes(storeDir(STORE_ID, home)), `the message does not name the file: ${err.message}`);
  // FsEnv.exists reports any lstat error as "does not exist", as the real env does.
  if (op?.kind !== 'exists')
    check(err.message.includes(code), `the message does not name ${code}: ${err.message}`);
  return err.code;
}

export async function runIoErrorSuite(opts: IoOptions = {}): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const sc = await sharedScenario(opts.kind ?? 'edit');
  const { home, ports } = await laneHome(sc);
  const snapFile = snapshotPath(STORE_ID, home);
  const cfgFile = storeConfigPath(STORE_ID, home);
  const sourceIds = (await loadStore(STORE_ID, home)).sources.map((s) => s.id);
  const errnos = Math.max(1, Math.min(3, opts.errnos ?? 3));

  // Baseline: how many calls a fault-free sync makes.
  const baseline = createRecordingEnv();
  await runSync({ storeId: STORE_ID, home, sourceIds, ports, env: baseline });
  const calls = baseline.calls;
  await restoreStore(home, sc.template);
  log(`io: a sync makes ${calls} FsEnv calls: ${baseline.log.map((o) => o.kind).join(' ')}`);

  const syncRows = new Map(
    ERRNOS.map((e) => [e, createRow(`${e} at each of the ${calls} FsEnv calls of Update now`)]),
  );
  const outcomes = new Map<string, number>();
  for (let c = 0; c < calls; c++) {
    const codes = errnos === 3 ? ERRNOS : [ERRNOS[c % 3]!];
    for (const code of codes) {
      const row = syncRows.get(code)!;
      await row.trial(async () => {
        await restoreStore(home, sc.template);
        const env = createRecordingEnv({ fault: { call: c, code } });
        let err: unknown;
        await runSync({ storeId: STORE_ID, home, sourceIds, ports, env }).catch((e) => {
          err = e;
        });
        check(env.faultHit, `call ${c} was not reached`);
        const op = env.log.find((o) => o.call === c);
        const key = `${op?.kind ?? '?'}`;
        if (err === undefined) {
          // Only a best-effort step may fail without failing the job, and then nothing is lost:
          // the stale-temp sweep (readdir, unlink), or FsEnv.exists, which cannot report an error
          // (an lstat failure reads as "missing"; saving store.json then just re-creates and
          // fsyncs its existing directory).
          check(
            op?.kind === 'readdir' || op?.kind === 'unlink' || op?.kind === 'exists',
            `a failed ${op?.kind} of ${op?.path} went unreported`,
          );
          check(
            (await readFile(snapFile)).equals(sc.newSnap),
            'the job succeeded but the snapshot is not the new one',
          );
          outcomes.set(`${key}: tolerated`, (outcomes.get(`${key}: tolerated`) ?? 0) + 1);
        } else {
          const errCode = checkError(err, code, op, home);
          outcomes.set(`${key}: ${errCode}`, (outcomes.get(`${key}: ${errCode}`) ?? 0) + 1);
          const snap = await readFile(snapFile);
          if (renamedTo(env.log, snapFile))
            check(snap.equals(sc.newSnap), 'the renamed snapshot is not the new one');
          else check(snap.equals(sc.oldSnap), 'the old snapshot is not byte-identical');
          const cfg = await readFile(cfgFile);
          if (renamedTo(env.log, cfgFile))
            check(!cfg.equals(sc.oldCfg), 'store.json was renamed but is the old one');
          else check(cfg.equals(sc.oldCfg), 'store.json is not byte-identical');
        }
        await checkCommon(env.log, home);
        await convergeAndCheck(home, sc, ports);
      }, `${code} at call ${c}`);
    }
  }
  const first = syncRows.get(ERRNOS[0]!)!;
  first.note(
    `outcome by failing call: ${[...outcomes]
      .sort()
      .map(([k, n]) => `${k} ×${n}`)
      .join(', ')}`,
  );
  log(`io: Update now done`);
  const rows: SuiteRow[] = [...syncRows.values()];

  // A plain store.json save (what every edit of a store's settings does).
  rows.push(...(await storeJsonSaves(sc, home, ports, errnos)));
  return rows;
}

async function storeJsonSaves(
  sc: Scenario,
  home: string,
  ports: PipelinePorts,
  errnos: number,
): Promise<SuiteRow[]> {
  await restoreStore(home, sc.template);
  const cfgFile = storeConfigPath(STORE_ID, home);
  const cfg = await loadStore(STORE_ID, home);
  const next = { ...cfg, roles: ['coding' as const, 'text' as const], autonomous: !cfg.autonomous };
  const baseline = createRecordingEnv();
  await saveStore(next, home, baseline);
  const calls = baseline.calls;
  const rows = new Map(
    ERRNOS.map((e) => [e, createRow(`${e} at each of the ${calls} FsEnv calls of a store.json save`)]),
  );
  for (let c = 0; c < calls; c++) {
    const codes = errnos === 3 ? ERRNOS : [ERRNOS[(c + 1) % 3]!];
    for (const code of codes) {
      await rows.get(code)!.trial(async () => {
        await restoreStore(home, sc.template);
        const env = createRecordingEnv({ fault: { call: c, code } });
        let err: unknown;
        await saveStore(next, home, env).catch((e) => {
          err = e;
        });
        check(env.faultHit, `call ${c} was not reached`);
        const op = env.log.find((o) => o.call === c);
        const bytes = await readFile(cfgFile);
        if (err === undefined) {
          // FsEnv.exists cannot fail (an lstat error reads as "missing"): an extra mkdir -p and
          // directory fsync, then a normal save.
          check(op?.kind === 'exists', `a failed ${op?.kind} went unreported`);
          check(
            JSON.parse(bytes.toString()).autonomous === next.autonomous,
            'the save reported success but did not happen',
          );
          await checkCommon(env.log, home);
          return;
        }
        checkError(err, code, op, home);
        // A failed directory fsync names the directory, which is what failed.
        if (op?.kind !== 'syncDir')
          check((err as Error).message.includes('store.json'), 'the message does not name store.json');
        if (renamedTo(env.log, cfgFile))
          check(
            JSON.parse(bytes.toString()).autonomous === next.autonomous,
            'renamed store.json is not the new one',
          );
        else check(bytes.equals(sc.oldCfg), 'store.json is not byte-identical');
        await checkCommon(env.log, home);
      }, `${code} at call ${c}`);
    }
  }
  await restoreStore(home, sc.template);
  await convergeAndCheck(home, sc, ports);
  return [...rows.values()];
}
