import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { snapshotPath, storeConfigPath, storeDir, storesDir } from '../../src/storage/paths.js';
import { runSync } from '../../src/store/index-job.js';
import { listStores, loadStore, saveStore } from '../../src/store/store-config.js';
import type { StoreConfig } from '../../src/store/store-types.js';
import { createRecordingEnv, type FsOp, isMutation, type RecordingEnv } from '../helpers/fault-env.js';
import { check, createRow, type SuiteRow } from './common.js';
import { applyOp, type CrashState, crashStates, initialState, type ModelState } from './power-model.js';
import {
  type ChangeKind,
  laneHome,
  type Scenario,
  STORE_ID,
  scratchDir,
  sharedScenario,
} from './store-fixture.js';

// Item 2: simulated power loss. One real "Update now" (scan → embed → snapshot activation →
// store.json) runs through a recording FsEnv. For every prefix of its log, every on-disk state a
// power cut could leave (see power-model.ts) is written to a scratch store directory and opened
// like the next start would: it must be wholly the old or wholly the new state, readable, with
// store.json never ahead of the snapshot, and once the job has reported success, the new state.
// Then each fsync of the code path is removed in turn (a no-op in the env): the same harness must
// report a violation for every one of them, which shows it can fail.
//
// A second activation is modelled too: the first sync of a store whose directory was just
// created (store.json written by createStore's saveStore, then the first snapshot). There the
// store directory's own entry must be durable before success is reported.

export interface PowerOptions {
  log?: (line: string) => void;
  /** Check only every n-th prefix (0 or 1: all). */
  sample?: number;
  /** Change set of the recorded update (default `edit`: the job embeds; `delete` is quicker). */
  kind?: ChangeKind;
}

interface Expect {
  oldSnap?: Buffer;
  oldCfg?: Buffer;
  newSnap: Buffer;
  newCfg: Buffer;
  fingerprint: StoreConfig['fingerprint'];
}

interface Recorded {
  env: RecordingEnv;
  initialFiles: Map<string, Buffer>;
  initialDirs: string[];
  /** The modelled tree's root (durable by assumption). */
  root: string;
  home: string;
  expect: Expect;
}

/** A pid that is certainly not running (temp names carry their writer's pid). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}

async function listTree(dir: string, files: Map<string, Buffer>, dirs: string[]): Promise<void> {
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) {
      if (d.name === 'lock') continue;
      dirs.push(p);
      await listTree(p, files, dirs);
    } else if (d.isFile()) files.set(p, await readFile(p));
  }
}

/** "Update now" on a store in the old state, recorded. */
async function recordUpdate(sc: Scenario, dropSync?: number): Promise<Recorded> {
  const { home, ports } = await laneHome(sc);
  const root = storesDir(home);
  const initialFiles = new Map<string, Buffer>();
  const initialDirs: string[] = [];
  await listTree(root, initialFiles, initialDirs);
  const env = createRecordingEnv({ dropSync });
  const cfg = await loadStore(STORE_ID, home);
  await runSync({ storeId: STORE_ID, home, sourceIds: cfg.sources.map((s) => s.id), ports, env });
  env.mark('returned');
  return {
    env,
    initialFiles,
    initialDirs,
    root,
    home,
    expect: {
      oldSnap: sc.oldSnap,
      oldCfg: sc.oldCfg,
      newSnap: await readFile(snapshotPath(STORE_ID, home)),
      newCfg: await readFile(storeConfigPath(STORE_ID, home)),
      fingerprint: sc.fingerprint,
    },
  };
}

/** createStore's save of store.json into a new directory, then the first sync of a source. */
async function recordFirstActivation(sc: Scenario, dropSync?: number): Promise<Recorded> {
  const { home, ports } = await laneHome(sc);
  const cfg0 = await loadStore(STORE_ID, home);
  const root = storesDir(home);
  await rm(storeDir(STORE_ID, home), { recursive: true, force: true });
  const initialFiles = new Map<string, Buffer>();
  const initialDirs: string[] = [];
  await listTree(root, initialFiles, initialDirs);
  const env = createRecordingEnv({ dropSync });
  const fresh: StoreConfig = { ...cfg0, sources: [] };
  await saveStore(fresh, home, env);
  env.mark('store created');
  const source = { ...cfg0.sources[0]!, status: 'NEW' as const, files: 0, chunks: 0, hashes: {} };
  await runSync({ storeId: STORE_ID, home, addSources: [source], ports, env });
  env.mark('returned');
  return {
    env,
    initialFiles,
    initialDirs,
    root,
    home,
    expect: {
      newSnap: await readFile(snapshotPath(STORE_ID, home)),
      newCfg: await readFile(storeConfigPath(STORE_ID, home)),
      fingerprint: sc.fingerprint,
    },
  };
}

interface HarnessResult {
  states: number;
  prefixes: number;
  violations: string[];
  worstMs: number;
}

/** Check every crash state of every prefix of a recorded run. */
async function harness(rec: Recorded, scratch: string, pid: number, sample = 1): Promise<HarnessResult> {
  const { env, expect } = rec;
  const log = env.log;
  const snapName = snapshotPath(STORE_ID, rec.home);
  const cfgName = storeConfigPath(STORE_ID, rec.home);
  const storeDirPath = storeDir(STORE_ID, rec.home);
  // Progress may be recorded only after the durable commit: from the first operation on a
  // store.json temp of the job (after the snapshot's activation), the new snapshot must survive.
  const activationStart = log.findIndex(
    (op) => op.kind === 'create' && op.path.startsWith(join(storeDirPath, '.tmp-index.hnsw.')),
  );
  const progressAt = log.findIndex(
    (op, i) =>
      i > activationStart &&
      activationStart >= 0 &&
      op.kind === 'create' &&
      op.path.startsWith(join(storeDirPath, '.tmp-store.json.')),
  );
  const created = env.marks.find((m) => m.label === 'store created')?.at;
  const returned = env.marks.find((m) => m.label === 'returned')!.at;
  const scratchStores = join(scratch, 'rag', 'stores');
  const cache = new Map<string, string | null>();
  const violations: string[] = [];
  let states = 0;
  let prefixes = 0;
  let worstMs = 0;
  const model: ModelState = initialState(rec.initialFiles, rec.initialDirs);
  const handles = new Map<string, number>();
  const points = [...Array(log.length + 1).keys()].filter(
    (p) => p === 0 || p === log.length || isMutation(log[p - 1]!),
  );
  let applied = 0;
  for (const [k, p] of points.entries()) {
    while (applied < p) applyOp(model, log[applied++]!, handles);
    if (sample > 1 && k % sample !== 0 && p !== log.length) continue;
    prefixes++;
    for (const st of crashStates(model, [rec.root])) {
      const t0 = performance.now();
      states++;
      const key = keyOf(st);
      let problem = cache.get(key);
      if (problem === undefined) {
        problem = await checkState(st, { rec, scratchStores, pid, snapName, cfgName, expect });
        cache.set(key, problem);
      }
      // Durability rules depend on the prefix, not only on the files.
      const snapNew = problem === null && st.files.get(snapName)?.equals(expect.newSnap);
      const cfgNew = problem === null && st.files.get(cfgName)?.equals(expect.newCfg);
      let v = problem;
      if (v === null && progressAt >= 0 && p > progressAt && !snapNew)
        v =
          'store.json is being written but the new snapshot is not durable (progress recorded before the commit)';
      if (v === null && created !== undefined && p >= created && !st.files.has(cfgName))
        v = 'the store was reported created, but its store.json is gone';
      if (v === null && p >= returned && !(snapNew && cfgNew))
        v = 'the job reported success, but the new state did not survive';
      if (v !== null && violations.length < 5)
        violations.push(`after op ${p}/${log.length} (${describe(log[p - 1])}); ${st.describe}: ${v}`);
      else if (v !== null) violations.push('');
      worstMs = Math.max(worstMs, performance.now() - t0);
    }
  }
  return { states, prefixes, violations, worstMs };
}

function describe(op: FsOp | undefined): string {
  if (!op) return 'start';
  const b = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  return `${op.kind} ${b(op.path)}${op.to ? `→${b(op.to)}` : ''}${op.dropped ? ' (dropped)' : ''}${op.error ? ` (${op.error})` : ''}`;
}

function keyOf(st: CrashState): string {
  const h = createHash('sha256');
  for (const d of [...st.dirs].sort()) h.update(`d${d}\0`);
  for (const [p, b] of [...st.files].sort(([a], [c]) => (a < c ? -1 : 1)))
    h.update(`f${p}\0`).update(b).update('\0');
  return h.digest('hex');
}

/** Materialise one crash state and open it like the next start would; null when it is fine. */
async function checkState(
  st: CrashState,
  ctx: {
    rec: Recorded;
    scratchStores: string;
    pid: number;
    snapName: string;
    cfgName: string;
    expect: Expect;
  },
): Promise<string | null> {
  const { rec, scratchStores, pid, expect } = ctx;
  await rm(scratchStores, { recursive: true, force: true });
  await mkdir(scratchStores, { recursive: true });
  const map = (p: string) =>
    join(scratchStores, p.slice(rec.root.length + 1)).replace(`.${process.pid}-`, `.${pid}-`);
  for (const d of [...st.dirs].sort()) await mkdir(map(d), { recursive: true });
  for (const [p, bytes] of st.files) {
    await mkdir(dirname(map(p)), { recursive: true });
    await writeFile(map(p), bytes);
  }
  const snapBytes = st.files.get(ctx.snapName);
  const cfgBytes = st.files.get(ctx.cfgName);
  const isOld = (b: Buffer | undefined, old: Buffer | undefined) =>
    old === undefined ? b === undefined : b?.equals(old);
  const snapWhich = isOld(snapBytes, expect.oldSnap)
    ? 'old'
    : snapBytes?.equals(expect.newSnap)
      ? 'new'
      : null;
  const cfgWhich = isOld(cfgBytes, expect.oldCfg) ? 'old' : cfgBytes?.equals(expect.newCfg) ? 'new' : null;
  // A brand-new store may legitimately hold the store.json of createStore (no sources yet).
  if (cfgWhich === null && cfgBytes !== undefined) {
    try {
      const cfg = JSON.parse(cfgBytes.toString('utf8')) as StoreConfig;
      if (!(expect.oldCfg === undefined && cfg.sources.length === 0))
        return `store.json is neither old nor new (${cfgBytes.length} bytes)`;
    } catch {
      return `store.json is unreadable (${cfgBytes.length} bytes)`;
    }
  }
  if (snapWhich === null)
    return `index.hnsw is neither old nor new (${snapBytes?.length ?? 'missing'} bytes)`;
  if (cfgWhich === 'new' && snapWhich !== 'new')
    return 'store.json records the new documents, the snapshot is old';
  const live = map(ctx.snapName);
  try {
    const snap = await openSnapshot(live, { expectFingerprint: expect.fingerprint });
    if (snapBytes !== undefined && !snap) return 'the snapshot does not open';
    snap?.close();
  } catch (err) {
    return `opening failed: ${(err as Error).message}`;
  }
  if (cfgBytes !== undefined) {
    try {
      const stores = await listStores(join(scratchStores, '..', '..'));
      check(stores.length === 1, 'the store is not listed');
    } catch (err) {
      return `store.json does not load: ${(err as Error).message}`;
    }
  }
  const dir = dirname(live);
  const left = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('.tmp-'));
  if (left.length > 0) return `temp files left after open: ${left.join(', ')}`;
  return null;
}

function syncLabel(rec: Recorded, k: number): string {
  const log = rec.env.log;
  const syncs = log.filter((op) => op.kind === 'sync' || op.kind === 'syncDir');
  const op = syncs[k];
  if (!op) return `fsync #${k + 1}`;
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.\d+-[0-9a-f]+$/, '');
  if (op.kind === 'sync') return `fsync #${k + 1} (${base(op.path)})`;
  // Name a directory fsync by the change it makes durable.
  const before = log.slice(0, log.indexOf(op)).reverse();
  const change = before.find((o) => o.kind === 'rename' || o.kind === 'mkdir');
  const what =
    change?.kind === 'rename' ? `${base(change.to!)} rename` : change ? `mkdir ${base(change.path)}` : '';
  return `fsync #${k + 1} (dir ${base(op.path)}/${what ? ` after ${what}` : ''})`;
}

export async function runPowerSuite(opts: PowerOptions = {}): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const sc = await sharedScenario(opts.kind ?? 'edit');
  const pid = deadPid();
  const rows: SuiteRow[] = [];
  const scratch = await scratchDir('kortty-rel-power-');
  for (const [name, short, record] of [
    ['Update now (existing store)', 'update', recordUpdate],
    ['first sync of a new store', 'new store', recordFirstActivation],
  ] as const) {
    const row = createRow(`power loss at every op prefix: ${name}`);
    const base = await record(sc);
    const r = await harness(base, scratch, pid, opts.sample);
    row.trials = r.states;
    row.worstMs = r.worstMs;
    for (const v of r.violations.filter(Boolean)) row.fail(v);
    row.failures = r.violations.length;
    row.note(`${r.prefixes} prefixes of ${base.env.log.length} logged calls, ${r.states} crash states`);
    rows.push(row);
    log(`power: ${name}: ${r.states} states, ${r.violations.length} violations`);
    // Remove each fsync in turn: the harness must catch every one.
    for (let k = 0; k < base.env.syncs; k++) {
      const what = syncLabel(base, k);
      const mrow = createRow(`power loss, ${short}, without ${what}: caught`);
      const rec = await record(sc, k);
      const m = await harness(rec, scratch, pid, opts.sample);
      mrow.trials = m.states;
      mrow.worstMs = m.worstMs;
      if (m.violations.length === 0)
        mrow.fail(`removing the ${what} went unnoticed: the harness cannot see it`);
      else mrow.note(`${m.violations.length} violating states, e.g. ${m.violations[0]}`);
      rows.push(mrow);
      log(`power: ${name} without ${what}: ${m.violations.length} violating states`);
      await rm(rec.home, { recursive: true, force: true });
    }
    await rm(base.home, { recursive: true, force: true });
  }
  await rm(scratch, { recursive: true, force: true });
  return rows;
}
