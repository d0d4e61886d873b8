import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serviceLockPath } from '../../src/storage/paths.js';

// Commands started through the CLI (`search`, `ask`, the tmux popup) start the query service, which
// outlives them by design. Tests that run them stop it when they are done with their home.

export async function stopQueryService(home: string): Promise<void> {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(await readFile(join(serviceLockPath(home), 'owner.json'), 'utf8')) as { pid: number })
      .pid;
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {}
}
