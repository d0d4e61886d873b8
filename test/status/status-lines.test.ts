import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { startStatusLineKeeper } from '../../src/app/status.js';
import { statusTextPath, statusTmuxPath } from '../../src/storage/paths.js';
import { createStore } from '../../src/store/engine.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { waitFor as poll } from '../helpers/wait.js';

// The pre-rendered status lines (rag/status.txt, rag/status.tmux) that status bars `cat`: written
// with status.json, rewritten by a running job as it progresses, and brought back in step when a
// job dies without clearing its progress (SIGKILL): by `kortty-rag status` or by a long-lived
// process's keeper.

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const read = (p: string) => readFile(p, 'utf8').catch(() => '');

const waitFor = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 120_000) =>
  poll(probe, what, ms, 25);

async function bigSource(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-status-big-'));
  const files: Record<string, string> = {};
  for (let i = 0; i < 80; i++) files[`f${i}.md`] = prose(`topic${i}`, 60, i + 10);
  await writeTree(dir, files);
  return dir;
}

/** Starts indexing a big folder in a real CLI process and waits until the line shows it syncing. */
async function syncingJob(
  home: string,
  big: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ job: ChildProcess; line: string; tmux: string }> {
  const env = { ...process.env, KORTTY_HOME: home, ...extraEnv };
  const job = spawn(process.execPath, [BIN, 'source', 'add', 'Big', big, '--yes'], { env, stdio: 'ignore' });
  // Both files show it at the same moment (they are rendered together, once a second at most).
  const [line, tmux] = await waitFor(async () => {
    const both = [await read(statusTextPath(home)), await read(statusTmuxPath(home))] as const;
    return /^RAG syncing Big \d+%\n$/.test(both[0]) && /syncing Big/.test(both[1]) ? both : undefined;
  }, 'the job to render its progress');
  return { job, line, tmux };
}

const exited = (job: ChildProcess) =>
  new Promise((r) => (job.exitCode !== null || job.signalCode !== null ? r(null) : job.once('exit', r)));

async function killed(job: ChildProcess) {
  job.kill('SIGKILL');
  await exited(job);
}

// A job that SIGKILLs itself once its snapshot is written: killed mid-way whatever the machine's
// speed, so it can never finish and clear its own progress first.
const DIES_MID_WAY = { KORTTY_KILL_AT: 'snapshot-written' };

test.serial('lines are written with status.json, and a running job keeps them current', async (t) => {
  const home = await homeWithStarter();
  await createStore({ name: 'Big', modelId: 'kortty-lexical-starter' }, home);
  t.is(await read(statusTextPath(home)), 'RAG idle\n');
  t.is(await read(statusTmuxPath(home)), '#[fg=green]RAG idle#[default]\n');
  const big = await bigSource();
  try {
    const { job, line, tmux } = await syncingJob(home, big);
    t.regex(line, /^RAG syncing Big \d+%\n$/);
    t.regex(tmux, /^#\[fg=yellow\]RAG syncing Big \d+%#\[default\]\n$/);
    // The percent moves while the job runs (the job re-renders as it progresses).
    const first = line;
    await waitFor(async () => {
      const s = await read(statusTextPath(home));
      return s !== first || job.exitCode !== null ? true : undefined;
    }, 'the line to change');
    await new Promise((r) => (job.exitCode !== null ? r(null) : job.once('exit', r)));
    t.is(job.exitCode, 0);
    t.is(await read(statusTextPath(home)), 'RAG idle\n');
  } finally {
    await rm(big, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});

test.serial('a job killed mid-way leaves its line; `kortty-rag status` puts it right', async (t) => {
  const home = await homeWithStarter();
  await createStore({ name: 'Big', modelId: 'kortty-lexical-starter' }, home);
  const big = await bigSource();
  try {
    const { job } = await syncingJob(home, big, DIES_MID_WAY);
    await exited(job);
    t.is(job.signalCode, 'SIGKILL');
    t.regex(await read(statusTextPath(home)), /syncing/, 'nobody cleared it');
    const { stdout } = await run(process.execPath, [BIN, 'status', '--format', 'tmux'], {
      env: { ...process.env, KORTTY_HOME: home },
    });
    t.is(stdout, '#[fg=green]RAG idle#[default]\n');
    t.is(await read(statusTextPath(home)), 'RAG idle\n');
    t.is(await read(statusTmuxPath(home)), '#[fg=green]RAG idle#[default]\n');
  } finally {
    await rm(big, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});

test.serial('a long-lived process’s keeper clears a killed job’s line within its period', async (t) => {
  const home = await homeWithStarter();
  await createStore({ name: 'Big', modelId: 'kortty-lexical-starter' }, home);
  const big = await bigSource();
  let passes = 0;
  const keeper = startStatusLineKeeper(home, 100, () => passes++);
  try {
    // While the job is alive the keeper leaves its progress alone. The job is frozen (SIGSTOP),
    // so it cannot re-render its line itself: only the keeper could change it.
    const { job } = await syncingJob(home, big);
    job.kill('SIGSTOP');
    const after = passes;
    await waitFor(() => (passes >= after + 2 ? true : undefined), 'two passes of the keeper');
    t.regex(await read(statusTextPath(home)), /syncing Big/);
    await killed(job);
    // The two lines are two files, each replaced whole: the keeper renames one, then the other.
    await waitFor(
      async () =>
        (await read(statusTextPath(home))) === 'RAG idle\n' &&
        (await read(statusTmuxPath(home))) === '#[fg=green]RAG idle#[default]\n'
          ? true
          : undefined,
      'the keeper to clear both lines',
      30_000,
    );
  } finally {
    keeper.stop();
    await rm(big, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});
