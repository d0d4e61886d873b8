import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { KILL_LABELS, type KillLabel } from '../../src/util/kill-points.js';
import { check, createRow, rng, type SuiteRow } from './common.js';
import {
  type ChangeKind,
  type Scenario,
  STORE_NAME,
  sharedScenario,
  type verifyAfterCrash,
  type Which,
} from './store-fixture.js';

// Item 1: a child process running the real CLI (`source update --yes`) is SIGKILLed at every
// labelled step and at uniformly random moments of its job. After each kill: the store opens and
// verifies and is wholly the old or wholly the new snapshot (bytes compared with the old file and
// with a from-scratch build of the new tree), store.json is never ahead of the snapshot, opening
// removes the dead writer's temp files, and "Update now" converges to the from-scratch bytes.

const DRIVER = fileURLToPath(new URL('./kill-driver.js', import.meta.url));
const VERIFIER = fileURLToPath(new URL('./kill-verifier.js', import.meta.url));

/** Where each label must leave the store: the kill points are where we think they are. */
const EXPECT: Record<KillLabel, { snapshot: Which; config: Which; temp: boolean }> = {
  'after-scan': { snapshot: 'old', config: 'old', temp: false },
  'mid-embedding': { snapshot: 'old', config: 'old', temp: false },
  'snapshot-written': { snapshot: 'old', config: 'old', temp: true },
  'snapshot-fsynced': { snapshot: 'old', config: 'old', temp: true },
  'snapshot-verified': { snapshot: 'old', config: 'old', temp: true },
  'snapshot-renamed': { snapshot: 'new', config: 'old', temp: false },
  'dir-synced': { snapshot: 'new', config: 'old', temp: false },
  'store-updated': { snapshot: 'new', config: 'new', temp: false },
};

export interface KillOptions {
  perLabel: number;
  random: number;
  /** Share of labelled trials that use the `edit` change set (default 1/3; `mid-embedding`
   * always does). `delete` trials are quicker: the killed process never loads the model. */
  labelEditShare?: number;
  /** Share of random trials that use the `edit` change set (the rest: `delete`). */
  randomEditShare?: number;
  lanes?: number;
  /** Drivers warming up ahead of their turn, per lane. */
  prefetch?: number;
  seed?: number;
  log?: (line: string) => void;
}

interface Trial {
  label?: KillLabel;
  kind: ChangeKind;
  random: boolean;
  seed: number;
}

interface Driver {
  child: ChildProcess;
  ready: Promise<void>;
  started: Promise<number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; doneCode?: number }>;
  stderr: () => string;
}

function spawnDriver(home: string, sc: Scenario, trial: Trial | undefined): Driver {
  const warm = sc.kind === 'edit' && trial?.label !== 'after-scan';
  const child = fork(DRIVER, [], {
    env: {
      ...process.env,
      KORTTY_HOME: home,
      KORTTY_KILL_AT: trial?.label ?? '',
      REL_STORE: STORE_NAME,
      REL_WARM: warm ? '1' : '0',
      REL_FINGERPRINT: JSON.stringify(sc.fingerprint),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    err = (err + s).slice(-4000);
  });
  let doneCode: number | undefined;
  let onReady!: () => void;
  let onStart!: (t: number) => void;
  const ready = new Promise<void>((r) => {
    onReady = r;
  });
  const started = new Promise<number>((r) => {
    onStart = r;
  });
  child.on('message', (m: { t: string; code?: number }) => {
    if (m.t === 'ready') onReady();
    else if (m.t === 'start') onStart(performance.now());
    else if (m.t === 'done') doneCode = m.code;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; doneCode?: number }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal, doneCode })),
  );
  const readyOrDead = Promise.race([
    ready,
    exited.then((e) => {
      throw new Error(`driver exited during warm-up (${e.code ?? e.signal}): ${err}`);
    }),
  ]);
  readyOrDead.catch(() => {});
  return { child, ready: readyOrDead, started, exited, stderr: () => err };
}

export async function runKillSuite(opts: KillOptions): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const lanes = opts.lanes ?? Math.max(2, availableParallelism());
  const prefetch = opts.prefetch ?? 2;
  const r = rng(opts.seed ?? 0x4b11);
  log(`kill points: building scenarios`);
  const scenarios: Record<ChangeKind, Scenario> = {
    edit: await sharedScenario('edit'),
    delete: await sharedScenario('delete'),
  };

  // Trials, interleaved so every lane sees a mix of labels and change sets.
  const labelShare = opts.labelEditShare ?? 1 / 3;
  /** Exactly `share` of the indices, spread evenly. */
  const takesEdit = (i: number, share: number) => Math.floor((i + 1) * share) > Math.floor(i * share);
  const trials: Trial[] = [];
  for (let i = 0; i < opts.perLabel; i++) {
    for (const label of KILL_LABELS) {
      const kind: ChangeKind = label === 'mid-embedding' || takesEdit(i, labelShare) ? 'edit' : 'delete';
      trials.push({ label, kind, random: false, seed: Math.floor(r() * 2 ** 31) });
    }
  }
  const share = opts.randomEditShare ?? 0.25;
  const randomTrials: Trial[] = [];
  for (let i = 0; i < opts.random; i++) {
    const kind: ChangeKind = takesEdit(i, share) ? 'edit' : 'delete';
    randomTrials.push({ kind, random: true, seed: Math.floor(r() * 2 ** 31) });
  }
  // Mix random trials in between labelled ones.
  const all: Trial[] = [];
  const total = trials.length + randomTrials.length;
  let a = 0;
  let b = 0;
  for (let i = 0; i < total; i++) {
    const takeRandom =
      b < randomTrials.length && (a >= trials.length || (i * randomTrials.length) / total >= b);
    all.push(takeRandom ? randomTrials[b++]! : trials[a++]!);
  }

  const rows = new Map<string, ReturnType<typeof createRow>>();
  for (const label of KILL_LABELS) rows.set(label, createRow(`kill at ${label} (CLI child, SIGKILL)`));
  const randomRow = createRow('kill at a uniformly random moment of the job');
  const convergeRow = createRow('kill points: calibration runs without a kill');
  const tally = new Map<string, number>();
  const bump = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
  const phases = new Map<string, { n: number; ms: number }>();
  const phase = (k: string, ms: number) => {
    const p = phases.get(k) ?? { n: 0, ms: 0 };
    p.n++;
    p.ms += ms;
    phases.set(k, p);
  };

  // Per lane: a verifier process owning one home per change set (model loaded once there).
  type Verdict = Awaited<ReturnType<typeof verifyAfterCrash>>;
  interface Lane {
    homes: Record<ChangeKind, string>;
    restore(kind: ChangeKind): Promise<void>;
    check(kind: ChangeKind): Promise<{ verdict: Verdict; verifyMs: number; updateMs: number }>;
    close(): void;
  }
  const startLane = async (): Promise<Lane> => {
    const child = fork(VERIFIER, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const waiting: ((m: { ok: boolean; error?: string } & Record<string, unknown>) => void)[] = [];
    child.on('message', (m) => waiting.shift()?.(m as never));
    child.on('exit', (code) => {
      for (const w of waiting.splice(0)) w({ ok: false, error: `verifier exited (${code})` });
    });
    const ask = (m: unknown) =>
      new Promise<{ ok: boolean; error?: string } & Record<string, unknown>>((resolve) => {
        waiting.push(resolve);
        child.send(m as never);
      }).then((r) => {
        if (!r.ok) throw new Error(r.error);
        return r;
      });
    const init = await ask({ cmd: 'init', scenarios });
    return {
      homes: init.homes as Record<ChangeKind, string>,
      restore: async (kind) => {
        await ask({ cmd: 'restore', kind });
      },
      check: async (kind) => (await ask({ cmd: 'check', kind })) as never,
      close: () => child.disconnect(),
    };
  };
  const laneList = await Promise.all(Array.from({ length: lanes }, startLane));

  // Calibration: how long the job takes when nothing kills it (random kills are uniform over this).
  const jobMs: Record<ChangeKind, number> = { edit: 0, delete: 0 };
  for (const kind of ['edit', 'delete'] as ChangeKind[]) {
    const lane = laneList[0]!;
    for (let i = 0; i < 3; i++) {
      await convergeRow.trial(async () => {
        await lane.restore(kind);
        const d = spawnDriver(lane.homes[kind], scenarios[kind], { kind, random: true, seed: 0 });
        await d.ready;
        d.child.send('go');
        const t0 = await d.started;
        const e = await d.exited;
        check(e.code === 0 && e.doneCode === 0, () => `job failed (${e.code ?? e.signal}): ${d.stderr()}`);
        jobMs[kind] = Math.max(jobMs[kind], performance.now() - t0);
        const { verdict: v } = await lane.check(kind);
        check(v.snapshot === 'new' && v.config === 'new', 'a completed job did not leave the new state');
      }, `calibration ${kind}`);
    }
  }
  log(`kill points: job takes ${jobMs.edit.toFixed(0)} ms (edit), ${jobMs.delete.toFixed(0)} ms (delete)`);

  let done = 0;
  await Promise.all(
    laneList.map(async (lane, li) => {
      const mine = all.filter((_, i) => i % lanes === li);
      const spawnFor = (t: Trial) => spawnDriver(lane.homes[t.kind], scenarios[t.kind], t);
      // Drivers warm up (seconds, mostly waiting on node-llama-cpp's start-up) ahead of their turn.
      const ahead: Driver[] = [];
      let spawned = 0;
      const topUp = () => {
        while (spawned < mine.length && ahead.length < prefetch) ahead.push(spawnFor(mine[spawned++]!));
      };
      topUp();
      for (let i = 0; i < mine.length; i++) {
        const t = mine[i]!;
        const d = ahead.shift()!;
        topUp();
        const row = t.random ? randomRow : rows.get(t.label!)!;
        await row.trial(
          async () => {
            const p0 = performance.now();
            await d.ready;
            const p1 = performance.now();
            phase('wait for warm driver', p1 - p0);
            await lane.restore(t.kind);
            d.child.send('go');
            const t0 = await d.started;
            let killedAt: number | undefined;
            let timer: NodeJS.Timeout | undefined;
            if (t.random) {
              const delay = rng(t.seed)() * jobMs[t.kind];
              timer = setTimeout(() => {
                killedAt = performance.now() - t0;
                d.child.kill('SIGKILL');
              }, delay);
            }
            const e = await d.exited;
            clearTimeout(timer);
            const p2 = performance.now();
            phase('job until death', p2 - p1);
            if (t.label) {
              check(
                e.signal === 'SIGKILL',
                () =>
                  `label ${t.label} was not reached (exit ${e.code}, job code ${e.doneCode}): ${d.stderr()}`,
              );
            } else if (e.signal !== 'SIGKILL') {
              check(e.code === 0, () => `job failed without a kill (${e.code}): ${d.stderr()}`);
              bump('random: finished before the kill');
            }
            const { verdict: v, verifyMs, updateMs } = await lane.check(t.kind);
            if (t.label) {
              const want = EXPECT[t.label];
              check(
                v.snapshot === want.snapshot && v.config === want.config,
                `killed at ${t.label}: snapshot ${v.snapshot}, store.json ${v.config}; expected ${want.snapshot}/${want.config}`,
              );
              if (want.temp) {
                check(
                  v.tempsBefore.some((n) => n.startsWith('.tmp-index.hnsw.')),
                  `killed at ${t.label}: no candidate temp file was left (the label is not after the write)`,
                );
                check(v.removedByOpen.length > 0, 'opening did not report the removed temp files');
              }
            }
            bump(
              `${t.random ? `random (${killedAt === undefined ? 'no kill' : 'killed'})` : t.label}: snapshot ${v.snapshot}, store.json ${v.config}${v.tempsBefore.length ? ', temps cleaned' : ''}`,
            );
            phase('verify', verifyMs);
            phase('update now', updateMs);
          },
          `${t.random ? 'random' : t.label} ${t.kind} seed ${t.seed}`,
        );
        done++;
        if (done % 50 === 0) log(`kill points: ${done}/${all.length}`);
      }
      for (const d of ahead) d.child.kill('SIGKILL');
      lane.close();
    }),
  );
  const lines = [...tally.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, n]) => `${k}: ${n}`);
  convergeRow.note(
    `job ${jobMs.edit.toFixed(0)} ms (edit) / ${jobMs.delete.toFixed(0)} ms (delete); mean per trial: ${[
      ...phases,
    ]
      .map(([k, p]) => `${k} ${(p.ms / p.n).toFixed(0)} ms`)
      .join(', ')}`,
  );
  randomRow.note(`outcomes: ${lines.filter((l) => l.startsWith('random')).join('; ')}`);
  for (const label of KILL_LABELS)
    rows.get(label)!.note(lines.filter((l) => l.startsWith(`${label}:`)).join('; '));
  return [...KILL_LABELS.map((l) => rows.get(l)!), randomRow, convergeRow];
}
