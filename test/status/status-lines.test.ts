import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { startStatusLineKeeper } from '../../src/status/status-file.js';
import { statusTextPath, statusTmuxPath } from '../../src/storage/paths.js';
import { createStore } from '../../src/store/engine.js';
import { homeWithStarter, prose, writeTree } from '../helpers/store-env.js';

// The pre-rendered status lines (rag/status.txt, rag/status.tmux) that status bars `cat`: written
// with status.json, rewritten by a running job as it progresses, and brought back in step when a
// job dies without clearing its progress (SIGKILL): by `kortty-rag status` or by a long-lived
// process's keeper.

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));
const read = (p: string) => readFile(p, 'utf8').catch(() => '');

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

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
): Promise<{ job: ChildProcess; line: string; tmux: string }> {
  const env = { ...process.env, KORTTY_HOME: home };
  const job = spawn(process.execPath, [BIN, 'source', 'add', 'Big', big, '--yes'], { env, stdio: 'ignore' });
  // Both files show it at the same moment (they are rendered together, once a second at most).
  const [line, tmux] = await waitFor(async () => {
    const both = [await read(statusTextPath(home)), await read(statusTmuxPath(home))] as const;
    return /^RAG syncing Big \d+%\n$/.test(both[0]) && /syncing Big/.test(both[1]) ? both : undefined;
  }, 'the job to render its progress');
  return { job, line, tmux };
}

async function killed(job: ChildProcess) {
  job.kill('SIGKILL');
  await new Promise((r) =>
    job.exitCode !== null || job.signalCode !== null ? r(null) : job.once('exit', r),
  );
}

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
    const { job } = await syncingJob(home, big);
    await killed(job);
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
  const keeper = startStatusLineKeeper(home, 100);
  try {
    // While the job is alive the keeper leaves its progress alone.
    const { job } = await syncingJob(home, big);
    t.regex(await read(statusTextPath(home)), /syncing Big/);
    await killed(job);
    await waitFor(
      async () => ((await read(statusTextPath(home))) === 'RAG idle\n' ? true : undefined),
      'the keeper to clear the line',
      30_000,
    );
    t.is(await read(statusTmuxPath(home)), '#[fg=green]RAG idle#[default]\n');
  } finally {
    keeper.stop();
    await rm(big, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});
