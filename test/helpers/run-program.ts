import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Real programs' output for the query-shaping tests: run one (no shell) in the C locale, and hand
// out scratch directories removed when the test file ends.

/** Runs a program (no shell) and returns stdout then stderr, as a terminal shows them. */
export function runProgram(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {},
): string {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    cwd: opts.cwd,
    input: opts.input,
    env: { ...process.env, LC_ALL: 'C', ...opts.env },
  });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`.replace(/\n+$/u, '');
}

/** Scratch directories under `prefix`; `removeAll` (for `test.after.always`) deletes them. */
export function scratchDirs(prefix: string): { make(): Promise<string>; removeAll(): Promise<void> } {
  const dirs: string[] = [];
  return {
    async make() {
      const d = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    async removeAll() {
      for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
    },
  };
}
