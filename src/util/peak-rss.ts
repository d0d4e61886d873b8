import { readFileSync } from 'node:fs';

/**
 * This process's peak resident set size in KiB, counted from the start of its own program.
 * Linux's getrusage ru_maxrss (process.resourceUsage().maxRSS) also keeps the peak of the image the
 * process was forked from, so a child spawned by a 500 MiB parent reports 500 MiB before it has
 * done anything; /proc/self/status VmHWM belongs to the program's own memory. Elsewhere ru_maxrss
 * is all there is.
 */
export function ownPeakRssKb(): number {
  try {
    const m = /^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // no procfs: fall back
  }
  return process.resourceUsage().maxRSS;
}
