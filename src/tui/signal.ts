import { writeFileSync } from 'node:fs';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

// Test and benchmark hooks. With KORTTY_TUI_TEST=1 the pane writes an in-band marker after every
// frame it paints once no operation is in flight:  ESC ] 1337 ; kortty-idle=<seq>,<keys> BEL
// (<keys> = key presses handled so far). It travels in the same byte stream as the frame, after
// it, so a test that sees it has the whole frame; terminals ignore unknown OSC sequences.
// With KORTTY_TUI_LOOP_STATS=<file> the worst event-loop delay during each job is written there.

export const IDLE_RE = /\x1b\]1337;kortty-idle=(\d+),(\d+)\x07/g;

export function idleMarker(seq: number, keys: number): string {
  return `\x1b]1337;kortty-idle=${seq},${keys}\x07`;
}

export interface LoopStats {
  reset(): void;
  /** Time the pane itself spent in one synchronous step (a paint, a key, a job event). */
  work(kind: string, ms: number): void;
  report(label: string): void;
  stop(): void;
}

export function createLoopStats(path: string | undefined): LoopStats | undefined {
  if (!path) return undefined;
  const h: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const reports: unknown[] = [];
  let since = performance.now();
  let cpu = process.cpuUsage();
  let work: Record<string, { max: number; total: number; count: number }> = {};
  return {
    reset() {
      h.reset();
      since = performance.now();
      cpu = process.cpuUsage();
      work = {};
    },
    work(kind, ms) {
      const w = work[kind] ?? { max: 0, total: 0, count: 0 };
      work[kind] = w;
      w.max = Math.max(w.max, ms);
      w.total += ms;
      w.count++;
    },
    report(label) {
      const used = process.cpuUsage(cpu);
      reports.push({
        label,
        ms: Math.round(performance.now() - since),
        maxMs: h.max / 1e6,
        p99Ms: h.percentile(99) / 1e6,
        meanMs: h.mean / 1e6,
        samples: h.count,
        // CPU the pane's process used meanwhile, and its own longest steps: what is left of the
        // worst delay is time the OS gave to other processes.
        cpuMs: Math.round((used.user + used.system) / 1000),
        work,
      });
      writeFileSync(path, JSON.stringify(reports, null, 2), { mode: 0o600 });
    },
    stop: () => h.disable(),
  };
}
