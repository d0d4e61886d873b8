import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 as rng } from '../helpers/prng.js';

export { rng };

// Shared by the reliability suites: scale knobs, result rows and small process helpers.

/** One line of the final report. */
export interface SuiteRow {
  test: string;
  trials: number;
  failures: number;
  /** Slowest single trial, ms. */
  worstMs: number;
  /** First few failure descriptions (the report prints them under the table). */
  errors: string[];
  /** Free-form facts worth printing (e.g. how many kills landed in each state). */
  notes: string[];
}

export function createRow(test: string): SuiteRow & {
  /** Run one trial; a thrown error is a failure (with its message kept). Returns the trial's result. */
  trial<T>(fn: () => Promise<T>, label?: string): Promise<T | undefined>;
  fail(message: string): void;
  note(message: string): void;
} {
  const row = {
    test,
    trials: 0,
    failures: 0,
    worstMs: 0,
    errors: [] as string[],
    notes: [] as string[],
    async trial<T>(fn: () => Promise<T>, label?: string): Promise<T | undefined> {
      const t0 = performance.now();
      row.trials++;
      try {
        return await fn();
      } catch (err) {
        row.fail(`${label ? `${label}: ` : ''}${(err as Error)?.stack ?? String(err)}`);
        return undefined;
      } finally {
        row.worstMs = Math.max(row.worstMs, performance.now() - t0);
      }
    },
    fail(message: string) {
      row.failures++;
      if (row.errors.length < 8) row.errors.push(message.slice(0, 2000));
    },
    note(message: string) {
      row.notes.push(message);
    },
  };
  return row;
}

export type Scale = 'fast' | 'full';

/** `KORTTY_REL_SCALE=fast|full` (default given by the caller); per-knob overrides by env. */
export function scaleFromEnv(fallback: Scale): Scale {
  const v = process.env.KORTTY_REL_SCALE;
  return v === 'fast' || v === 'full' ? v : fallback;
}

export function knob(name: string, scale: Scale, fast: number, full: number): number {
  const raw = process.env[`KORTTY_REL_${name}`];
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`KORTTY_REL_${name}=${raw}: expected a number`);
    return n;
  }
  return scale === 'fast' ? fast : full;
}

export class CheckError extends Error {}

export function check(cond: unknown, message: string | (() => string)): asserts cond {
  if (!cond) throw new CheckError(typeof message === 'string' ? message : message());
}

export function scratchDirSync(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Run `fn` over items with at most `n` at a time. */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
}

export function formatTable(rows: readonly SuiteRow[]): string {
  const head = ['test', 'trials', 'failures', 'worst time'];
  const body = rows.map((r) => [r.test, String(r.trials), String(r.failures), formatMs(r.worstMs)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), sep, ...body.map(line)].join('\n');
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}
