import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTER_MODEL_ID } from '../../src/embed/starter-model.js';
import { isKorttyError } from '../../src/errors.js';
import { readJobFiles } from '../../src/status/job-file.js';
import { snapshotPath, storeConfigPath, storeDir } from '../../src/storage/paths.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { startJob } from '../../src/store/job-runner.js';
import type { JobProgress } from '../../src/store/store-types.js';
import { pidAlive } from '../../src/util/pid-alive.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { check, createRow, rng, type SuiteRow, sleep } from './common.js';

// Cancelling an indexing job while it embeds. The real job child (src/store/job-child.ts, as the
// TUI starts it) embeds a folder of ~270 chunks with the generated starter model and is cancelled
// at a random moment of the embedding: a random batch, then a random fraction of one batch's time
// later, so the cancel lands anywhere inside the native calls. Every cancel must end as
// JOB_CANCELLED with the process exited by itself, and leave the store directory exactly as it
// was: store.json and index.hnsw byte-identical, no job.json, no lock, no temp snapshot.
// The same must hold when the job child gets SIGINT, SIGTERM or SIGHUP instead of the cancel
// message (a terminal sends those to the pane's whole process group), and when the CLI
// (`source add --yes`) gets Ctrl-C.

export interface CancelSuiteOptions {
  /** Cancels through the pane's cancel message. */
  cancels: number;
  /** Rounds of SIGINT, SIGTERM and SIGHUP to the job child, and of SIGINT to the CLI. */
  signalRounds?: number;
  /** Files in the folder being added (each ~34 chunks of 200 tokens). */
  files?: number;
  seed?: number;
  /** A trial that has not ended after this long fails (and its process is killed). */
  trialTimeoutMs?: number;
  log?: (line: string) => void;
}

const CLI = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

type How = { via: 'pane'; signal?: NodeJS.Signals } | { via: 'cli'; signal: NodeJS.Signals };

interface Running {
  pid: number | undefined;
  /** JOB_CANCELLED as a KorttyError from the child, or a description of anything else. */
  outcome: Promise<unknown>;
  cancel(): void;
}

export async function runCancelSuite(opts: CancelSuiteOptions): Promise<SuiteRow[]> {
  const paneRow = createRow('cancel during embedding (job child, real model): no crash, nothing left');
  const signalRow = createRow('SIGINT/SIGTERM/SIGHUP to the job child while embedding: a clean cancel');
  const cliRow = createRow('Ctrl-C (SIGINT) to the CLI while embedding: a clean cancel');
  const random = rng(opts.seed ?? 0x6361_6e63);
  const timeoutMs = opts.trialTimeoutMs ?? 180_000;
  const home = await homeWithStarter();
  const scratch = await mkdtemp(join(tmpdir(), 'kortty-rel-cancel-'));
  try {
    const small = join(scratch, 'small');
    await writeTree(small, { 'a.md': prose('apples', 30, 1), 'b.md': prose('bananas', 30, 2) });
    // Small chunks: many batches (cancel points) for little text to extract first.
    const { id } = await createStore(
      { name: 'Docs', modelId: STARTER_MODEL_ID, chunk: { chunkTokens: 200, overlapTokens: 40 } },
      home,
    );
    await addSources('Docs', [{ kind: 'folder', path: small }], {}, home);
    const big = join(scratch, 'big');
    const files: Record<string, string> = {};
    for (let i = 0; i < (opts.files ?? 8); i++) files[`f${i}.md`] = prose(`topic${i}`, 300, i + 10);
    await writeTree(big, files);
    // The CLI's progress is read from job.json, which is written at most 4 times a second: its
    // folder is four times the size, so the embedding lasts long enough to be seen on a fast machine.
    const bigCli = join(scratch, 'big-cli');
    const cliFiles: Record<string, string> = {};
    for (let i = 0; i < 4 * (opts.files ?? 8); i++) cliFiles[`f${i}.md`] = prose(`topic${i}`, 300, i + 10);
    await writeTree(bigCli, cliFiles);

    const dir = storeDir(id, home);
    const before = {
      cfg: sha(await readFile(storeConfigPath(id, home))),
      snap: sha(await readFile(snapshotPath(id, home))),
      entries: (await readdir(dir)).sort(),
    };
    check(
      before.entries.join(',') === 'index.hnsw,store.json',
      `fixture store holds ${before.entries.join(', ')}`,
    );

    /** The pane's way: the job child, progress over IPC. */
    const startPane = (onProgress: (p: JobProgress) => void): Running => {
      const handle = startJob(
        { op: 'add', store: 'Docs', inputs: [{ kind: 'folder', path: big }] },
        { onProgress },
        home,
      );
      return {
        pid: handle.pid,
        outcome: handle.done.then(
          () => 'a completed job',
          (err) => err,
        ),
        cancel: handle.cancel,
      };
    };

    /** The CLI's way: progress read from job.json, as `kortty-rag status` does. */
    const startCli = (onProgress: (p: JobProgress) => void): Running => {
      const child = spawn(process.execPath, [CLI, 'source', 'add', 'Docs', bigCli, '--yes'], {
        env: { ...process.env, KORTTY_HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      let exited = false;
      const outcome = new Promise<unknown>((resolve) => {
        child.on('close', (code, signal) => {
          exited = true;
          // A cancelled CLI job clears its progress line, says nothing changed and exits 130.
          if (code === 130 && /cancelled; nothing changed/.test(stderr)) resolve({ code: 'JOB_CANCELLED' });
          else resolve(`exit ${signal ?? code}: ${stderr.trim().slice(-500)}`);
        });
      });
      void (async () => {
        while (!exited) {
          const job = (await readJobFiles(home)).find((j) => j.pid === child.pid);
          if (job) onProgress(job);
          await sleep(15);
        }
      })();
      return { pid: child.pid, outcome, cancel: () => {} };
    };

    /** One job cancelled at a random moment of its embedding; returns the job's percent then. */
    const cancelOnce = async (how: How): Promise<number> => {
      // A batch between 5 % and 85 % of the embedding. The CLI's job.json may skip past any given
      // percent (it is written at most 4 times a second), so the CLI is interrupted at the first
      // embedding progress it shows, up to 100 ms later.
      const cli = how.via === 'cli';
      const targetPercent = cli ? 0 : 33 + Math.floor(random() * 48);
      const fraction = random();
      let embeddingSince: number | undefined;
      let cancelledAt: number | undefined;
      let timer: NodeJS.Timeout | undefined;
      const onProgress = (p: JobProgress) => {
        if (p.state !== 'embedding' || cancelledAt !== undefined || timer) return;
        embeddingSince ??= performance.now();
        if (p.percent < targetPercent) return;
        // One batch's time, measured so far; the cancel lands a random part of it later.
        const batches = Math.max(1, Math.round(((p.percent - 30) / 60) * Math.ceil(p.chunks / 32)));
        const delay = cli ? fraction * 100 : (fraction * (performance.now() - embeddingSince)) / batches;
        timer = setTimeout(() => {
          cancelledAt = p.percent;
          if (how.signal && run.pid) process.kill(run.pid, how.signal);
          else run.cancel();
        }, delay);
      };
      const run = how.via === 'pane' ? startPane(onProgress) : startCli(onProgress);
      const deadline = setTimeout(() => {
        if (run.pid) process.kill(run.pid, 'SIGKILL');
      }, timeoutMs);
      const outcome = await run.outcome;
      clearTimeout(deadline);
      clearTimeout(timer);
      const what = `${how.signal ?? 'cancel'} at ${cancelledAt ?? '(not sent)'} %`;
      check(
        isKorttyError(outcome, 'JOB_CANCELLED') ||
          (how.via === 'cli' && (outcome as { code?: unknown })?.code === 'JOB_CANCELLED'),
        () => `${what}: expected JOB_CANCELLED, got ${String((outcome as Error)?.message ?? outcome)}`,
      );
      check(cancelledAt !== undefined, 'the job was cancelled before the embedding reached the target');
      const gone = Date.now() + 15_000;
      while (run.pid && pidAlive(run.pid) && Date.now() < gone) await sleep(20);
      check(!run.pid || !pidAlive(run.pid), `${what}: process ${run.pid} still running after its outcome`);
      const entries = (await readdir(dir)).sort();
      check(
        entries.join(',') === before.entries.join(','),
        `${what}: left behind in the store directory: ${entries.filter((e) => !before.entries.includes(e)).join(', ')}`,
      );
      check(sha(await readFile(storeConfigPath(id, home))) === before.cfg, `${what}: store.json changed`);
      check(sha(await readFile(snapshotPath(id, home))) === before.snap, `${what}: index.hnsw changed`);
      return cancelledAt;
    };

    const points: number[] = [];
    for (let n = 0; n < opts.cancels; n++) {
      const at = await paneRow.trial(() => cancelOnce({ via: 'pane' }), `cancel ${n + 1}`);
      if (at !== undefined) points.push(at);
      opts.log?.(`cancel ${n + 1}/${opts.cancels}: ${paneRow.failures} failure(s)`);
    }
    if (points.length > 0) {
      points.sort((a, b) => a - b);
      paneRow.note(
        `cancelled at ${points[0]}..${points.at(-1)} % of the job (embedding spans 30..90 %), median ${points[points.length >> 1]} %`,
      );
    }
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (let r = 0; r < (opts.signalRounds ?? 1); r++) {
      for (const signal of signals) {
        await signalRow.trial(() => cancelOnce({ via: 'pane', signal }), signal);
      }
      await cliRow.trial(() => cancelOnce({ via: 'cli', signal: 'SIGINT' }), 'CLI SIGINT');
      opts.log?.(`signals round ${r + 1}: ${signalRow.failures + cliRow.failures} failure(s)`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
  return [paneRow, signalRow, cliRow];
}
