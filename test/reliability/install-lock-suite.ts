import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRow, type SuiteRow, sleep } from './common.js';
import { analyse, parse } from './lock-suite.js';

// The model installer's lock (src/embed/installer.ts) under contention: several processes install
// the same model in a loop for a while, each logging `enter`/`exit` around the critical section
// (the install's generate step, run while the lock is held) through O_APPEND to one file, while
// the current holder is SIGKILLed again and again. Replaying the log in the kernel's order: no
// process may leave the critical section after another one entered it (two holders), and after
// each kill someone must enter again.

const CONTENDER = fileURLToPath(new URL('./install-lock-contender.js', import.meta.url));

export interface InstallLockOptions {
  seconds: number;
  kills: number;
  contenders: number;
  log?: (line: string) => void;
}

const stamp = () => (performance.timeOrigin + performance.now()).toFixed(3);

export async function runInstallLockSuite(opts: InstallLockOptions): Promise<SuiteRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-rel-install-lock-'));
  const logPath = join(dir, 'log');
  try {
    await writeFile(logPath, '');
    const deadline = Date.now() + opts.seconds * 1000;
    const env = {
      ...process.env,
      REL_LOG: logPath,
      REL_HOME: join(dir, 'home'),
      REL_DEADLINE: String(deadline),
    };
    const live = new Map<number, { child: ChildProcess; exited: Promise<void> }>();
    const errors: string[] = [];
    const start = () => {
      const child = fork(CONTENDER, [], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let err = '';
      child.stderr!.on('data', (d) => {
        err = (err + d).slice(-2000);
      });
      const exited = new Promise<void>((r) =>
        child.on('exit', (code, signal) => {
          live.delete(child.pid!);
          if (code !== 0 && signal !== 'SIGKILL') errors.push(`contender exited ${code ?? signal}: ${err}`);
          r();
        }),
      );
      live.set(child.pid!, { child, exited });
    };
    for (let i = 0; i < opts.contenders; i++) start();
    const every = (opts.seconds * 1000) / (opts.kills + 1);
    let kills = 0;
    while (Date.now() < deadline - every / 2 && kills < opts.kills) {
      await sleep(every * (0.5 + Math.random()));
      // The holder: the last process that entered and has not left.
      const open = new Set<number>();
      for (const r of parse(logPath)) {
        if (r.what === 'enter') open.add(r.pid);
        else if (r.what === 'exit' || r.what === 'kill') open.delete(r.pid);
      }
      const victim = [...open].map((pid) => live.get(pid)).find(Boolean);
      if (!victim) continue;
      // Killed first, recorded after: it can log nothing more, and an `exit` it logged before
      // the kill is a real one.
      victim.child.kill('SIGKILL');
      appendFileSync(logPath, `kill ${victim.child.pid} - ${stamp()}\n`);
      kills++;
      await victim.exited;
      if (Date.now() < deadline - 500) start();
    }
    while (live.size > 0) await Promise.all([...live.values()].map((p) => p.exited));
    const lines = (await readFile(logPath, 'utf8')).split('\n');
    errors.push(...lines.filter((l) => l.startsWith('error ')).map((l) => `contender ${l}`));
    const a = analyse(
      parse(logPath).filter((r) => r.what !== 'error'),
      Number.POSITIVE_INFINITY,
    );
    const row = createRow(
      `model install lock: ${opts.contenders} contenders × ${opts.seconds} s, ${a.holderKills} holder kills: one holder`,
    );
    row.trials = a.enters;
    for (const v of [...errors, ...a.violations]) row.fail(v);
    if (a.noTakeover > 0) row.fail(`${a.noTakeover} holder kills were never followed by another holder`);
    if (a.holderKills < Math.min(1, opts.kills)) row.fail(`only ${a.holderKills} kills hit a holder`);
    row.worstMs = Math.max(0, ...a.takeovers);
    row.note(
      `${a.enters} acquisitions, ${kills} holders SIGKILLed, worst takeover ${row.worstMs.toFixed(0)} ms`,
    );
    opts.log?.(`install lock: ${a.enters} acquisitions, ${row.failures} failure(s)`);
    return [row];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
