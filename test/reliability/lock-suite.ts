import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSnapshot } from '../../src/index/snapshot-io.js';
import { readOwner } from '../../src/storage/lock.js';
import { snapshotPath, storeDir, storeLockPath } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { runSync } from '../../src/store/index-job.js';
import { loadStore, storeIdFor } from '../../src/store/store-config.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { check, createRow, type SuiteRow, scratchDirSync, sleep } from './common.js';

// Item 5: the store lock under contention. One contender process per core loops acquire → hold
// → assertHeld → "activate" for the whole run while the holder is SIGKILLed again and again;
// every process logs enter/exit/lost through O_APPEND to one file, whose line order is the
// kernel's order. Checked: no holder ever activates while another process entered after it
// (never two holders), a holder never loses a lock that was not stale yet, and after each kill of
// the holder someone takes over within the stale bound. Then holders are SIGSTOPped past the
// stale bound and SIGCONTed: each must have lost the lock and must not activate, both with the
// lock alone and with a real "Update now" (runSync) stalled in its review step. A deliberately
// broken lock (check-then-create, no re-check) is run through the same analysis, which must
// report it.

const CONTENDER = fileURLToPath(new URL('./lock-contender.js', import.meta.url));
const STALL_DRIVER = fileURLToPath(new URL('./stall-driver.js', import.meta.url));

export interface LockSuiteOptions {
  seconds: number;
  kills: number;
  stalls: number;
  contenders: number;
  staleMs?: number;
  syncStalls?: number;
  log?: (line: string) => void;
}

interface Rec {
  what: string;
  pid: number;
  nonce: string;
  t: number;
}

export function parse(logPath: string): Rec[] {
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [what, pid, nonce, t] = l.split(' ');
      return { what: what!, pid: Number(pid), nonce: nonce!, t: Number(t) };
    });
}

export interface Analysis {
  violations: string[];
  enters: number;
  lost: number;
  holderKills: number;
  stalls: number;
  /** ms from a kill/stop of the holder to the next enter, per event. */
  takeovers: number[];
  /** Holder kills/stops after which nobody entered. */
  noTakeover: number;
}

/** Replays the shared log in file order. */
export function analyse(recs: readonly Rec[], staleMs: number): Analysis {
  // A killed holder stays open: its `kill` line is written just before the signal, so the holder
  // may still log its `exit` in between, which means the kill landed after it let go.
  const open = new Map<number, { t: number; overlappedBy?: number; killedAt?: number }>();
  const a: Analysis = {
    violations: [],
    enters: 0,
    lost: 0,
    holderKills: 0,
    stalls: 0,
    takeovers: [],
    noTakeover: 0,
  };
  let waitingSince: number | undefined;
  const stopped = new Set<number>();
  // The holder logged after its kill line: the kill did not hit a holder, and nobody waits.
  const undoKill = (killedAt: number) => {
    a.holderKills--;
    if (waitingSince === killedAt) waitingSince = undefined;
  };
  for (const r of recs) {
    switch (r.what) {
      case 'enter':
        a.enters++;
        for (const [pid, h] of open)
          if (h.overlappedBy === undefined && pid !== r.pid) h.overlappedBy = r.pid;
        open.set(r.pid, { t: r.t });
        if (waitingSince !== undefined) {
          a.takeovers.push(r.t - waitingSince);
          waitingSince = undefined;
        }
        break;
      case 'exit': {
        const h = open.get(r.pid);
        if (h?.killedAt !== undefined) undoKill(h.killedAt);
        if (!h) a.violations.push(`pid ${r.pid} activated without holding the lock`);
        else if (h.overlappedBy !== undefined)
          a.violations.push(
            `pid ${r.pid} activated although pid ${h.overlappedBy} had taken the lock (two holders)`,
          );
        if (stopped.has(r.pid))
          a.violations.push(`pid ${r.pid} was stalled past the stale bound and still activated`);
        open.delete(r.pid);
        break;
      }
      case 'lost': {
        a.lost++;
        const h = open.get(r.pid);
        if (h?.killedAt !== undefined) undoKill(h.killedAt);
        // Losing the lock is right only when it had gone stale: held (by its own clock) longer
        // than the bound, or stalled from outside.
        if (h && !stopped.has(r.pid) && r.t - h.t < staleMs)
          a.violations.push(
            `pid ${r.pid} lost a lock it had held for only ${(r.t - h.t).toFixed(0)} ms (< ${staleMs})`,
          );
        open.delete(r.pid);
        break;
      }
      case 'kill': {
        const h = open.get(r.pid);
        if (h && h.killedAt === undefined) {
          a.holderKills++;
          if (waitingSince !== undefined) a.noTakeover++;
          waitingSince = r.t;
          h.killedAt = r.t;
        }
        break;
      }
      case 'stop':
        if (open.has(r.pid)) {
          a.stalls++;
          if (waitingSince !== undefined) a.noTakeover++;
          waitingSince = r.t;
          stopped.add(r.pid);
        }
        break;
      default:
        break;
    }
  }
  return a;
}

interface Proc {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

function spawnContender(env: Record<string, string>): Proc {
  const child = fork(CONTENDER, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    err = (err + s).slice(-2000);
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, stderr: () => err };
}

/**
 * A stalled holder's lock goes stale `staleMs` after its last heartbeat; a dead holder's at
 * once. Contenders retry every few ms, so the extra allowance only absorbs scheduling delay on a
 * loaded machine (other test files run alongside the fast subset).
 */
const takeoverBound = (staleMs: number) => staleMs + Math.max(1000, staleMs);

const stamp = () => (performance.timeOrigin + performance.now()).toFixed(3);

export async function runLockSuite(opts: LockSuiteOptions): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const staleMs = opts.staleMs ?? 1000;
  const dir = scratchDirSync('kortty-rel-lock-');
  const lockPath = join(dir, 'lock');
  const rows: SuiteRow[] = [];
  const common = { REL_LOCK: lockPath, REL_STALE_MS: String(staleMs) };

  // Phase 1: contention and holder kills.
  {
    const logPath = join(dir, 'stress.log');
    await writeFile(logPath, '');
    // The run lasts `seconds`, and longer (up to a hard cap) until `kills` SIGKILLs have hit a
    // holder: on a loaded machine a kill often lands just after the holder let go, and a fixed
    // window could end with none that counted.
    const minEnd = Date.now() + opts.seconds * 1000;
    const hardEnd = minEnd + Math.max(opts.seconds * 5, 20) * 1000;
    const env = {
      ...common,
      REL_LOG: logPath,
      REL_MODE: 'contend',
      REL_HOLD_MS: '40',
      REL_DEADLINE: String(hardEnd),
      REL_STOP: join(dir, 'stop'),
    };
    const live = new Map<number, Proc>();
    const errors: string[] = [];
    const start = (): void => {
      const p = spawnContender(env);
      live.set(p.child.pid!, p);
      p.exited.then((code) => {
        appendFileSync(logPath, `dead ${p.child.pid} - ${stamp()}\n`);
        live.delete(p.child.pid!);
        if (code !== 0 && p.child.signalCode !== 'SIGKILL')
          errors.push(`contender exited ${code}: ${p.stderr()}`);
      });
    };
    for (let i = 0; i < opts.contenders; i++) start();
    const every = (opts.seconds * 1000) / (opts.kills + 1);
    let killsSent = 0;
    let hits = 0;
    while (Date.now() < hardEnd - 1000 && (hits < opts.kills || Date.now() < minEnd)) {
      await sleep(every * (0.5 + Math.random()));
      if (hits >= opts.kills) continue;
      const owner = await readOwner(lockPath);
      const victim = owner && live.get(owner.pid);
      if (!victim) continue;
      appendFileSync(logPath, `kill ${owner.pid} - ${stamp()}\n`);
      victim.child.kill('SIGKILL');
      killsSent++;
      await victim.exited;
      hits = analyse(parse(logPath), staleMs).holderKills;
      start();
    }
    await writeFile(env.REL_STOP, '');
    while (live.size > 0) await Promise.all([...live.values()].map((p) => p.exited));
    const a = analyse(parse(logPath), staleMs);
    const stress = createRow(
      `lock: ${opts.contenders} contenders × ${opts.seconds} s, ${a.holderKills} holder kills: one holder`,
    );
    stress.trials = a.enters;
    for (const v of [...errors, ...a.violations]) stress.fail(v);
    stress.note(`${a.enters} acquisitions, ${a.lost} lost (stale) locks, ${killsSent} SIGKILLs sent`);
    const takeover = createRow(
      `lock: SIGKILL of the holder → takeover within the stale bound (${staleMs} ms)`,
    );
    takeover.trials = a.holderKills;
    const bound = takeoverBound(staleMs);
    for (const ms of a.takeovers)
      if (ms > bound) takeover.fail(`takeover took ${ms.toFixed(0)} ms > ${bound}`);
    if (a.noTakeover > 0) takeover.fail(`${a.noTakeover} holder kills were never followed by a takeover`);
    if (a.holderKills < Math.min(opts.kills, 1)) takeover.fail(`only ${a.holderKills} kills hit a holder`);
    takeover.worstMs = Math.max(0, ...a.takeovers);
    stress.worstMs = takeover.worstMs;
    rows.push(stress, takeover);
    log(
      `lock: stress ${a.enters} acquisitions, ${a.holderKills} holder kills, worst takeover ${takeover.worstMs.toFixed(0)} ms`,
    );
  }

  // Phase 2: a holder stalled past the stale bound (contenders keep running).
  {
    const logPath = join(dir, 'stall.log');
    await writeFile(logPath, '');
    const marker = join(dir, 'activated');
    const row = createRow(
      `lock: holder SIGSTOPped past the stale bound loses the lock and does not activate`,
    );
    const deadline = Date.now() + opts.stalls * (staleMs * 4 + 3000) + 5000;
    const env = { ...common, REL_LOG: logPath, REL_HOLD_MS: '40', REL_DEADLINE: String(deadline) };
    const contenders = Array.from({ length: Math.max(1, opts.contenders - 1) }, () =>
      spawnContender({ ...env, REL_MODE: 'contend' }),
    );
    for (let i = 0; i < opts.stalls; i++) {
      await row.trial(async () => {
        await rm(marker, { force: true });
        const v = spawnContender({ ...env, REL_MODE: 'victim', REL_MARKER: marker });
        const pid = v.child.pid!;
        await Promise.race([
          new Promise<void>((r) => v.child.once('message', () => r())),
          v.exited.then(() => {
            throw new Error(`victim exited early: ${v.stderr()}`);
          }),
        ]);
        v.child.kill('SIGSTOP');
        appendFileSync(logPath, `stop ${pid} - ${stamp()}\n`);
        const t0 = Date.now();
        // Wait until someone else entered after the stop.
        let taken = false;
        while (Date.now() - t0 < staleMs * 4) {
          await sleep(20);
          const recs = parse(logPath);
          const at = recs.findIndex((r) => r.what === 'stop' && r.pid === pid);
          if (recs.slice(at + 1).some((r) => r.what === 'enter' && r.pid !== pid)) {
            taken = true;
            break;
          }
        }
        appendFileSync(logPath, `cont ${pid} - ${stamp()}\n`);
        v.child.kill('SIGCONT');
        // A victim that died while stopped has no channel left to hear it.
        if (v.child.connected) v.child.send('go');
        const code = await v.exited;
        check(taken, `nobody took over within ${staleMs * 4} ms of stalling the holder`);
        check(code === 0, () => `victim failed: ${v.stderr()}`);
        const mine = parse(logPath).filter((r) => r.pid === pid && (r.what === 'exit' || r.what === 'lost'));
        check(
          mine.length === 1 && mine[0]!.what === 'lost',
          `the stalled holder logged ${mine.map((r) => r.what).join(',')}`,
        );
        const act = await readFile(marker, 'utf8').catch(() => '');
        check(act !== `${pid}\n`, 'the stalled holder activated (renamed its file into place)');
      }, `stall ${i}`);
    }
    await Promise.all(contenders.map((p) => p.exited));
    const a = analyse(parse(logPath), staleMs);
    for (const v of a.violations) row.fail(v);
    const bound = takeoverBound(staleMs);
    for (const ms of a.takeovers)
      if (ms > bound) row.fail(`takeover after the stall took ${ms.toFixed(0)} ms > ${bound}`);
    row.worstMs = Math.max(0, ...a.takeovers);
    row.note(
      `takeover after a stall: ${a.takeovers.map((t) => t.toFixed(0)).join(', ')} ms (stale bound ${staleMs} ms, allowed ${takeoverBound(staleMs)} ms)`,
    );
    rows.push(row);
    log(`lock: ${opts.stalls} stalls done`);
  }

  rows.push(await stalledSync(opts.syncStalls ?? 1, staleMs, log));
  rows.push(await brokenLockIsCaught(dir, opts.contenders, staleMs));
  await rm(dir, { recursive: true, force: true });
  return rows;
}

/** A real Update now stalled (SIGSTOP) in its review step while another job takes the store over. */
async function stalledSync(n: number, staleMs: number, log: (l: string) => void): Promise<SuiteRow> {
  const row = createRow('lock: stalled Update now (runSync) loses the lock, never activates');
  for (let i = 0; i < n; i++) {
    await row.trial(async () => {
      const home = await homeWithStarter();
      const root = scratchDirSync('kortty-rel-stall-src-');
      const files: Record<string, string> = {};
      for (let k = 0; k < 8; k++) files[`f${k}.md`] = prose(`stall${k}`, 20, k + 1);
      await writeTree(root, files);
      await createStore({ name: 'Stall', modelId: 'kortty-lexical-starter' }, home);
      const ports = createDefaultPorts(home);
      await addSources('Stall', [{ kind: 'folder', path: root }], { ports }, home);
      await unlink(join(root, 'f1.md')); // what the stalled job scanned
      const child = fork(STALL_DRIVER, [], {
        env: {
          ...process.env,
          KORTTY_HOME: home,
          REL_STORE_ID: storeIdFor('Stall'),
          REL_STALE_MS: String(staleMs),
        },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let err = '';
      child.stderr?.on('data', (s) => {
        err += String(s);
      });
      const done = new Promise<{ ok?: boolean; code?: string; message?: string }>((resolve) =>
        child.on('message', (m) => {
          if (typeof m === 'object' && m && (m as { t?: string }).t === 'done') resolve(m as never);
        }),
      );
      const exited = new Promise((r) => child.on('exit', r));
      await new Promise<void>((r, j) => {
        child.once('message', () => r());
        child.once('exit', () => j(new Error(`stall driver exited early: ${err}`)));
      });
      child.kill('SIGSTOP');
      const t0 = performance.now();
      await writeFile(join(root, 'g.md'), prose('takeover', 20, 99)); // what the other job indexes
      const cfg = await loadStore(storeIdFor('Stall'), home);
      let took: number | undefined;
      while (performance.now() - t0 < staleMs * 4) {
        try {
          await runSync({
            storeId: storeIdFor('Stall'),
            home,
            sourceIds: cfg.sources.map((s) => s.id),
            ports,
            lockStaleMs: staleMs,
          });
          took = performance.now() - t0;
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== 'STORE_BUSY') throw e;
          await sleep(25);
        }
      }
      check(
        took !== undefined,
        `the other job could not take the stalled job's lock within ${staleMs * 4} ms`,
      );
      const activated = await readFile(snapshotPath(storeIdFor('Stall'), home));
      child.kill('SIGCONT');
      child.send('continue');
      const res = await done;
      await exited;
      check(
        res.code === 'STORE_BUSY',
        `the stalled job ended with ${JSON.stringify(res)} instead of losing its lock`,
      );
      check(
        (await readFile(snapshotPath(storeIdFor('Stall'), home))).equals(activated),
        'the stalled job replaced the snapshot',
      );
      const snap = await openSnapshot(snapshotPath(storeIdFor('Stall'), home));
      const paths = snap!.data.docs.map((d) => d.path.slice(root.length + 1));
      snap!.close();
      check(paths.includes('g.md') && !paths.includes('f1.md'), `unexpected documents ${paths.join(',')}`);
      const left = (await readdir(storeDir(storeIdFor('Stall'), home))).filter(
        (x) => x.startsWith('.tmp-') || x.startsWith('lock'),
      );
      check(left.length === 0, `left behind: ${left.join(', ')}`);
      check(!(await readOwner(storeLockPath(storeIdFor('Stall'), home))), 'the lock is still held');
      row.worstMs = Math.max(row.worstMs, took);
      row.note(
        `takeover after ${took.toFixed(0)} ms (stale bound ${staleMs} ms); stalled job: ${res.message}`,
      );
      await rm(home, { recursive: true, force: true });
      await rm(root, { recursive: true, force: true });
    }, `sync stall ${i}`);
  }
  log('lock: stalled runSync done');
  return row;
}

/** The analysis must report a lock that lets two processes in: check-then-create, no re-check. */
async function brokenLockIsCaught(dir: string, contenders: number, staleMs: number): Promise<SuiteRow> {
  const row = createRow('lock harness self-check: a check-then-create lock is reported');
  await row.trial(async () => {
    const logPath = join(dir, 'broken.log');
    const stopPath = join(dir, 'broken-stop');
    await writeFile(logPath, '');
    // The contenders run until the analysis has seen two of them inside at once, or a hard end: a
    // fixed window, counted from before they were forked, could close on a loaded machine before
    // the second one had started (one acquisition, nothing to catch).
    const hardEnd = Date.now() + 60_000;
    const procs = Array.from({ length: Math.max(2, contenders) }, () =>
      spawnContender({
        REL_LOCK: join(dir, 'broken-lock'),
        REL_LOG: logPath,
        REL_MODE: 'broken',
        REL_HOLD_MS: '20',
        REL_DEADLINE: String(hardEnd),
        REL_STOP: stopPath,
      }),
    );
    let running = procs.length;
    for (const p of procs) void p.exited.then(() => running--);
    while (running > 0 && analyse(parse(logPath), staleMs).violations.length === 0) await sleep(50);
    await writeFile(stopPath, '');
    await Promise.all(procs.map((p) => p.exited));
    const a = analyse(parse(logPath), staleMs);
    check(a.enters > 0, 'the broken lock was never taken');
    check(a.violations.length > 0, `${a.enters} acquisitions of a broken lock and no violation reported`);
    row.note(
      `${a.violations.length} violations reported in ${a.enters} acquisitions, e.g. ${a.violations[0]}`,
    );
  });
  return row;
}
