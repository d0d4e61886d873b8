// Runs the real `kortty-rag` CLI in a child process and reports its exit, output, time and peak
// memory (measured inside the child by peak-rss-probe.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../../bin/kortty-rag.js', import.meta.url).pathname;
const probe = new URL('./peak-rss-probe.js', import.meta.url).href;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Peak resident set size of the CLI process, MiB. */
  peakRssMiB: number;
}

export async function runCli(
  args: string[],
  opts: { env: Record<string, string | undefined>; stdin?: string | Buffer; timeoutMs?: number },
): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'kortty-rss-'));
  const rssFile = join(dir, 'peak');
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', probe, bin, ...args], {
    env: { ...process.env, ...opts.env, KORTTY_TEST_PEAK_RSS_FILE: rssFile },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    // Keep the tail only: a runaway command must not grow the test instead.
    stdout = (stdout + d).slice(-256 * 1024);
  });
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-256 * 1024);
  });
  child.stdin.on('error', () => {}); // the CLI may stop reading before the end
  child.stdin.end(opts.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const ms = performance.now() - t0;
  let peakRssMiB = Number.NaN;
  try {
    peakRssMiB = Number(readFileSync(rssFile, 'utf8')) / 1024;
  } catch {
    // killed before exit: no figure
  }
  rmSync(dir, { recursive: true, force: true });
  return { code, stdout, stderr, ms, peakRssMiB };
}
