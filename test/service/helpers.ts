import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configPath, serviceLockPath } from '../../src/storage/paths.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { pidAlive } from '../../src/util/pid-alive.js';
import { countingPorts, homeWithStarter, prose, writeTree } from '../helpers/store-env.js';
import { waitFor as poll } from '../helpers/wait.js';

// A real store (generated starter model, real snapshot) and the real CLI in child processes, so the
// query service is started, found and given up on exactly as a user's commands do it.

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'kortty-rag.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(env: NodeJS.ProcessEnv, args: string[], stdin?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
    else child.stdin!.end();
  });
}

export const TOPICS = {
  kiwi: 'kiwi orchard irrigation',
  tar: 'tar archive listing',
  bikes: 'bicycle chain lubrication',
};

export interface World {
  home: string;
  docs: string;
  env: NodeJS.ProcessEnv;
}

/** A home with one store "Notes" (text role) holding one folder of three topic files. */
export async function world(service: Record<string, unknown> = {}): Promise<World> {
  const home = await homeWithStarter();
  const docs = await mkdtemp(join(tmpdir(), 'kortty-svc-docs-'));
  await writeTree(docs, {
    'kiwi.md': `# Kiwi orchard\n\nThe kiwi orchard irrigation runs every Tuesday.\n${prose('kiwi orchard irrigation', 8, 3)}`,
    'tar.md': `# tar\n\nList a tar archive without extracting: tar -tf.\n${prose('tar archive listing', 8, 5)}`,
    'bikes.md': `# Bicycles\n\n${prose('bicycle chain lubrication', 8, 7)}`,
  });
  await createStore({ name: 'Notes', modelId: 'kortty-lexical-starter', roles: ['text'] }, home);
  await addSources('Notes', [{ kind: 'folder', path: docs }], { ports: countingPorts(home) }, home);
  // Generous timeouts: a loaded test machine must not turn "answered by the service" into a fallback.
  await writeConfig(home, { answerTimeoutMs: 60_000, startTimeoutMs: 120_000, ...service });
  return { home, docs, env: { ...process.env, KORTTY_HOME: home } };
}

export async function writeConfig(home: string, service: Record<string, unknown>): Promise<void> {
  await writeFile(configPath(home), JSON.stringify({ service }));
}

export async function servicePid(home: string): Promise<number | undefined> {
  try {
    return (JSON.parse(await readFile(join(serviceLockPath(home), 'owner.json'), 'utf8')) as { pid: number })
      .pid;
  } catch {
    return undefined;
  }
}

/** The product's own liveness check (a zombie counts as gone). */
export const alive = pidAlive;

/** Waits for a condition (a service start can take a while on a loaded machine). */
export const waitFor = <T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 60_000,
) => poll(probe, what, timeoutMs, 50);

/** Kills a service process (stopped or not) and waits until it is gone. */
export async function kill(pid: number | undefined): Promise<void> {
  if (pid === undefined || !alive(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
  await waitFor(() => !alive(pid), `pid ${pid} to exit`, 20_000);
}

/** The pid the CLI's --verbose output says answered. */
export function answeredBy(stderr: string): number | undefined {
  const m = /answered by the query service \(pid (\d+)\)/.exec(stderr);
  return m ? Number(m[1]) : undefined;
}

/** R1's path from `search --json`. */
export function firstPath(stdout: string): string | undefined {
  return (JSON.parse(stdout) as { excerpts: { path: string }[] }).excerpts[0]?.path;
}
