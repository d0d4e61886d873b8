// Long-lived child of the kill-point suite, one per lane: owns the lane's homes (one per change
// set, each with its model loaded once), resets a store to the old state before a trial, and
// after the kill checks it (verifyAfterCrash) and runs "Update now" (convergeAndCheck). Doing
// this here instead of in the suite's own process keeps lanes from queueing on one event loop.
//
// IPC (advanced serialization, so Buffers and Maps pass as they are):
//   ← {cmd:'init', scenarios}  → {ok, homes}
//   ← {cmd:'restore', kind}    → {ok}
//   ← {cmd:'check', kind}      → {ok, verdict, verifyMs, updateMs} | {ok:false, error}

import type { PipelinePorts } from '../../src/store/ports.js';
import {
  type ChangeKind,
  convergeAndCheck,
  laneHome,
  removeFixtures,
  restoreStore,
  type Scenario,
  verifyAfterCrash,
} from './store-fixture.js';

type Msg =
  | { cmd: 'init'; scenarios: Record<ChangeKind, Scenario> }
  | { cmd: 'restore'; kind: ChangeKind }
  | { cmd: 'check'; kind: ChangeKind };

const lanes = new Map<ChangeKind, { sc: Scenario; home: string; ports: PipelinePorts }>();
const reply = (m: unknown): void => {
  process.send!(m as never);
};

async function handle(m: Msg): Promise<unknown> {
  switch (m.cmd) {
    case 'init': {
      for (const kind of Object.keys(m.scenarios) as ChangeKind[]) {
        const sc = m.scenarios[kind];
        lanes.set(kind, { sc, ...(await laneHome(sc)) });
      }
      return { ok: true, homes: Object.fromEntries([...lanes].map(([k, l]) => [k, l.home])) };
    }
    case 'restore': {
      const l = lanes.get(m.kind)!;
      await restoreStore(l.home, l.sc.template);
      return { ok: true };
    }
    case 'check': {
      const l = lanes.get(m.kind)!;
      const t0 = performance.now();
      const verdict = await verifyAfterCrash(l.home, l.sc);
      const t1 = performance.now();
      await convergeAndCheck(l.home, l.sc, l.ports);
      return { ok: true, verdict, verifyMs: t1 - t0, updateMs: performance.now() - t1 };
    }
  }
}

// One request at a time, in order.
let chain: Promise<void> = Promise.resolve();
process.on('message', (m: Msg) => {
  chain = chain.then(() =>
    handle(m).then(reply, (err) => reply({ ok: false, error: (err as Error)?.message ?? String(err) })),
  );
});
process.on('disconnect', () => {
  removeFixtures().finally(() => process.exit(0));
});
