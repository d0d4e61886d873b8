// `npm run test:reliability`: the long reliability and security suite. Runs every part,
// prints one table (test, trials, failures, worst time) and exits non-zero on any failure.
//
// Scale: KORTTY_REL_SCALE=full (default here) or fast. Single knobs override either:
//   KORTTY_REL_KILLS_PER_LABEL (100), KORTTY_REL_RANDOM_KILLS (1000), KORTTY_REL_LABEL_EDIT_SHARE
//   (0.25), KORTTY_REL_RANDOM_EDIT_SHARE (0.2), KORTTY_REL_LANES; KORTTY_REL_LOCK_SECONDS (60),
//   KORTTY_REL_LOCK_KILLS (100), KORTTY_REL_LOCK_STALLS (10), KORTTY_REL_LOCK_CONTENDERS (2 per
//   core); KORTTY_REL_PDF_SEEDS (200), KORTTY_REL_BIG_DIR (100000), KORTTY_REL_DEPTH (1000);
//   KORTTY_REL_IO_ERRNOS (3: all three errnos at every call); KORTTY_REL_INJECTION_FORMS (3);
//   KORTTY_REL_POWER_SAMPLE (0: every prefix); KORTTY_REL_TERM_STREAMS (5000), KORTTY_REL_TERM_PROCESSES
//   (30), KORTTY_REL_TERM_JSON (2000); KORTTY_REL_CANCELS (50), KORTTY_REL_CANCEL_SIGNALS
//   (3 rounds), KORTTY_REL_DELETE_KILLS (8), KORTTY_REL_VOCAB_KILLS (10),
//   KORTTY_REL_INSTALL_LOCK_SECONDS (30), KORTTY_REL_INSTALL_LOCK_KILLS (30); KORTTY_REL_SWAP_DIR_SYNCS
//   (200), KORTTY_REL_SWAP_FILE_SYNCS (200), KORTTY_REL_DOC_ROUNDS (20), KORTTY_REL_WATCH_RECONCILES (4),
//   KORTTY_REL_EDGE_TRIALS (300), KORTTY_REL_EDGE_CLIENTS (200), KORTTY_REL_ISO_DAMAGED (200),
//   KORTTY_REL_ISO_UNREACHABLE (40), KORTTY_REL_ISO_UMASKS (16), KORTTY_REL_ISO_LOCKS (30),
//   KORTTY_REL_BOUNDS_TRIALS (3).
//   KORTTY_REL_ONLY=kill,power,io,hostile,hostile-fs,hostile-docs,lock,injection,terminal,cancel,qdrant,
//   delete,vocab,install-lock,edges,isolation,bounds runs a subset.

import { rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { usableCores } from '../../src/util/cores.js';
import { formatMs, formatTable, knob, type SuiteRow, scaleFromEnv } from './common.js';
import { removeFixtures } from './store-fixture.js';

const scale = scaleFromEnv('full');
const only = new Set(
  (
    process.env.KORTTY_REL_ONLY ??
    'kill,power,io,hostile,hostile-fs,hostile-docs,lock,injection,terminal,cancel,qdrant,delete,vocab,install-lock,edges,isolation,bounds'
  ).split(','),
);
const base = join(tmpdir(), `kortty-rel-${process.pid}`);
process.env.KORTTY_HOME = join(base, 'default-home'); // every suite passes its own homes; this catches strays
const started = performance.now();
const log = (line: string) =>
  process.stderr.write(`[${formatMs(performance.now() - started).padStart(8)}] ${line}\n`);

const rows: SuiteRow[] = [];
async function part(name: string, fn: () => Promise<SuiteRow[]>) {
  if (!only.has(name)) return;
  const t0 = performance.now();
  log(`${name}: start`);
  try {
    rows.push(...(await fn()));
  } catch (err) {
    rows.push({
      test: `${name}: harness error`,
      trials: 1,
      failures: 1,
      worstMs: performance.now() - t0,
      errors: [(err as Error)?.stack ?? String(err)],
      notes: [],
    });
  }
  log(`${name}: done in ${formatMs(performance.now() - t0)}`);
}

await part('power', async () => {
  const { runPowerSuite } = await import('./power-suite.js');
  return runPowerSuite({ log, sample: knob('POWER_SAMPLE', scale, 0, 0) });
});
await part('io', async () => {
  const { runIoErrorSuite } = await import('./io-suite.js');
  return runIoErrorSuite({ log, errnos: knob('IO_ERRNOS', scale, 3, 3) });
});
await part('injection', async () => {
  const { runInjectionSuite } = await import('./injection-suite.js');
  return runInjectionSuite({ log, extraPerDoc: knob('INJECTION_FORMS', scale, 1, 3) });
});
await part('terminal', async () => {
  const { runTerminalSuite } = await import('./terminal-suite.js');
  return runTerminalSuite({
    log,
    streams: knob('TERM_STREAMS', scale, 300, 5000),
    processes: knob('TERM_PROCESSES', scale, 3, 30),
    json: knob('TERM_JSON', scale, 200, 2000),
  });
});
await part('lock', async () => {
  const { runLockSuite } = await import('./lock-suite.js');
  return runLockSuite({
    log,
    seconds: knob('LOCK_SECONDS', scale, 8, 60),
    kills: knob('LOCK_KILLS', scale, 10, 100),
    stalls: knob('LOCK_STALLS', scale, 2, 10),
    contenders: knob('LOCK_CONTENDERS', scale, 2 * usableCores(), 2 * usableCores()),
  });
});
await part('hostile', async () => {
  const { runHostileSuite } = await import('./hostile-suite.js');
  return runHostileSuite({
    log,
    pdfSeeds: knob('PDF_SEEDS', scale, 24, 200),
    bigDirEntries: knob('BIG_DIR', scale, 6000, 100_000),
    depth: knob('DEPTH', scale, 1000, 1000),
  });
});
await part('hostile-fs', async () => {
  const { runHostileFsSuite } = await import('./hostile-fs-suite.js');
  return runHostileFsSuite({
    log,
    dirSyncs: knob('SWAP_DIR_SYNCS', scale, 30, 200),
    fileSyncs: knob('SWAP_FILE_SYNCS', scale, 30, 200),
  });
});
await part('hostile-docs', async () => {
  const { runHostileDocsSuite } = await import('./hostile-docs-suite.js');
  return runHostileDocsSuite({
    log,
    rounds: knob('DOC_ROUNDS', scale, 3, 20),
    watchReconciles: knob('WATCH_RECONCILES', scale, 2, 4),
  });
});
await part('kill', async () => {
  const { runKillSuite } = await import('./kill-suite.js');
  return runKillSuite({
    log,
    perLabel: knob('KILLS_PER_LABEL', scale, 2, 100),
    random: knob('RANDOM_KILLS', scale, 10, 1000),
    labelEditShare: knob('LABEL_EDIT_SHARE', scale, 0, 0.25),
    randomEditShare: knob('RANDOM_EDIT_SHARE', scale, 0.25, 0.2),
    lanes: knob('LANES', scale, 2, Math.max(2, Math.min(4, availableParallelism() + 1))),
  });
});
await part('cancel', async () => {
  const { runCancelSuite } = await import('./cancel-suite.js');
  return runCancelSuite({
    log,
    cancels: knob('CANCELS', scale, 10, 50),
    signalRounds: knob('CANCEL_SIGNALS', scale, 1, 3),
  });
});
await part('qdrant', async () => {
  const { runQdrantRedirectSuite } = await import('./qdrant-redirect-suite.js');
  return runQdrantRedirectSuite({ log });
});
await part('delete', async () => {
  const { runDeleteSuite } = await import('./delete-suite.js');
  return runDeleteSuite({ log, countedKills: knob('DELETE_KILLS', scale, 3, 8) });
});
await part('vocab', async () => {
  const { runVocabSuite } = await import('./vocab-suite.js');
  return runVocabSuite({ log, kills: knob('VOCAB_KILLS', scale, 3, 10) });
});
await part('isolation', async () => {
  const { runIsolationSuite } = await import('./isolation-suite.js');
  return runIsolationSuite({
    log,
    damaged: knob('ISO_DAMAGED', scale, 20, 200),
    unreachable: knob('ISO_UNREACHABLE', scale, 6, 40),
    umasks: knob('ISO_UMASKS', scale, 4, 16),
    locks: knob('ISO_LOCKS', scale, 6, 30),
  });
});
await part('install-lock', async () => {
  const { runInstallLockSuite } = await import('./install-lock-suite.js');
  return runInstallLockSuite({
    log,
    seconds: knob('INSTALL_LOCK_SECONDS', scale, 6, 30),
    kills: knob('INSTALL_LOCK_KILLS', scale, 6, 30),
    contenders: 3,
  });
});
await part('edges', async () => {
  const { runEdgesSuite } = await import('./edges-suite.js');
  return runEdgesSuite({
    log,
    trials: knob('EDGE_TRIALS', scale, 40, 300),
    clients: knob('EDGE_CLIENTS', scale, 80, 200),
  });
});
await part('bounds', async () => {
  const { runBoundsSuite } = await import('./bounds-suite.js');
  return runBoundsSuite({ log, trials: knob('BOUNDS_TRIALS', scale, 1, 3) });
});

const failures = rows.reduce((n, r) => n + r.failures, 0);
process.stdout.write(
  `\nReliability suite (${scale} scale), ${formatMs(performance.now() - started)} in all\n\n`,
);
process.stdout.write(`${formatTable(rows)}\n`);
const notes = rows.flatMap((r) => r.notes.filter(Boolean).map((n) => `- ${r.test}: ${n}`));
if (notes.length > 0) process.stdout.write(`\nNotes\n${notes.join('\n')}\n`);
const errs = rows.flatMap((r) => r.errors.map((e) => `- ${r.test}: ${e}`));
if (errs.length > 0) process.stdout.write(`\nFailures (first of each test)\n${errs.join('\n')}\n`);
process.stdout.write(`\n${failures === 0 ? 'PASS' : `FAIL: ${failures} failure(s)`}\n`);
await removeFixtures();
await rm(base, { recursive: true, force: true }).catch(() => {});
process.exit(failures === 0 ? 0 : 1);
