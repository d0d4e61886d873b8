import type { JobProgress, JobSummary } from '../store/store-types.js';
import type { Review } from '../types.js';
import { pad, width } from '../util/display-width.js';
import type { CliIO } from './io.js';

// Progress on a TTY rewrites one line; elsewhere it prints a line per state change.

export function progressPrinter(io: CliIO, quiet = false) {
  const tty = Boolean(io.stdout.isTTY);
  let lastState = '';
  return {
    onProgress(p: JobProgress) {
      if (quiet) return;
      const line = formatProgress(p);
      if (tty) io.stderr.write(`\r\x1b[2K${line}`);
      else if (p.state !== lastState) io.stderr.write(`${line}\n`);
      lastState = p.state;
    },
    done() {
      if (tty && !quiet && lastState) io.stderr.write('\r\x1b[2K');
    },
  };
}

export function formatProgress(p: JobProgress): string {
  return `${p.state} · documents ${p.documents}/${p.documentsTotal} · chunks ${p.chunks} · problems ${p.problems} · ${p.percent}%`;
}

export function formatSummary(s: JobSummary): string {
  return `indexed ${s.indexed} · unchanged ${s.unchanged} · removed ${s.removed} · skipped ${s.skipped} · chunks embedded ${s.chunksEmbedded}, reused ${s.chunksReused}${s.problems ? ` · ${s.problems} problem(s)` : ''}`;
}

export function formatReviewSummary(r: Review): string {
  const sm = r.summary;
  const skipped = Object.entries(sm.skipped)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const formats = Object.entries(sm.formats)
    .map(([k, v]) => `${k} ${v.count}`)
    .join(', ');
  return [
    `${r.root}: ${sm.visited} visited · new ${sm.toIndex.new} · changed ${sm.toIndex.changed} · unchanged ${sm.unchanged} · removed ${sm.removed}`,
    skipped ? `  skipped: ${skipped}` : '',
    formats ? `  formats: ${formats}` : '',
    r.stoppedBy ? `  STOPPED: ${r.stoppedBy.message}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function table(rows: string[][], io: CliIO): string {
  const widths = rows[0]!.map((_, i) => Math.min(60, Math.max(...rows.map((r) => width(r[i] ?? '')))));
  void io;
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!))).join('  '))
    .join('\n');
}
