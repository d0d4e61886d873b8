import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serviceLockPath } from '../../src/storage/paths.js';
import { waitFor } from './wait.js';

// Commands started through the CLI (`search`, `ask`, the tmux popup) start the query service, which
// outlives them by design. Tests that run them stop it when they are done with their home, and wait
// until it is gone: it removes its socket and lock as it exits, so a test that reads the home
// straight after SIGTERM would race with that cleanup.

/** True while `pid` runs (a zombie, waiting for a parent that never reaps it, has exited). */
async function running(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

export async function stopQueryService(home: string): Promise<void> {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(await readFile(join(serviceLockPath(home), 'owner.json'), 'utf8')) as { pid: number })
      .pid;
  } catch {
    return;
  }
  const gone = (ms: number) =>
    waitFor(async () => !(await running(pid)), `query service ${pid} to exit`, ms, 20).then(
      () => true,
      () => false,
    );
  try {
    // SIGCONT first: a test may have stopped it (SIGSTOP), and a stopped process takes no SIGTERM.
    process.kill(pid, 'SIGCONT');
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await gone(15_000)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
  if (!(await gone(15_000))) throw new Error(`query service ${pid} of ${home} did not exit`);
}
