import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid exists (EPERM means it does, owned by someone else). A zombie
 * (exited, not yet reaped by its parent; containers whose init reaps late keep them for seconds)
 * has exited: it holds no lock and serves nothing.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": comm may contain spaces and parentheses, the state follows the last ")".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false; // no /proc (not Linux), or the process just went away
  }
}
