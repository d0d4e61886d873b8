import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serviceLockPath } from '../../src/storage/paths.js';
import { pidAlive } from '../../src/util/pid-alive.js';
import { waitFor } from './wait.js';

// Commands started through the CLI (`search`, `ask`, the tmux popup) start the query service, which
// outlives them by design. Tests that run them stop it when they are done with their home, and wait
// until it is gone: it removes its socket and lock as it exits, so a test that reads the home
// straight after SIGTERM would race with that cleanup.

export async function stopQueryService(home: string): Promise<void> {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(await readFile(join(serviceLockPath(home), 'owner.json'), 'utf8')) as { pid: number })
      .pid;
  } catch {
    return;
  }
  const gone = (ms: number) =>
    waitFor(() => !pidAlive(pid), `query service ${pid} to exit`, ms, 20).then(
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
