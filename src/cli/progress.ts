import type { JobProgress, JobSummary } from '../store/store-types.js';
import type { Review } from '../types.js';
import { width } from '../util/display-width.js';
import { sanitizeLine } from '../util/terminal-text.js';
import type { CliIO } from './io.js';

// Progress on a TTY rewrites one line of stderr; elsewhere it prints a line per state change.

export function progressPrinter(io: CliIO, quiet = false) {
  const tty = Boolean(io.stdout.isTTY);
  // The line is rewritten with our own control sequence, so it bypasses the sanitizing stderr;
  // its text goes through the sanitizer here.
  const raw = io.rawStderr ?? io.stderr;
  let lastState = '';
  let shown = false;
  return {
    onProgress(p: JobProgress) {
      if (quiet) return;
      const line = sanitizeLine(formatProgress(p));
      if (tty) {
        raw.write(`\r\x1b[2K${line}`);
        shown = true;
      } else if (p.state !== lastState) io.stderr.write(`${line}\n`);
      lastState = p.state;
    },
    /** Clears the progress line (before other output, and when the job ends). */
    done() {
      if (shown) raw.write('\r\x1b[2K');
      shown = false;
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
    `${sanitizeLine(r.root)}: ${sm.visited} visited · new ${sm.toIndex.new} · changed ${sm.toIndex.changed} · unchanged ${sm.unchanged} · removed ${sm.removed}`,
    skipped ? `  skipped: ${skipped}` : '',
    formats ? `  formats: ${formats}` : '',
    r.stoppedBy ? `  STOPPED: ${r.stoppedBy.message}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Terminal cells of a (sanitized) cell; the one place the CLI tables measure width. */
export function cellWidth(s: string): number {
  return width(s);
}

/** Left-aligned columns, two spaces apart; cells are sanitized to one line first. */
export function table(rows: string[][], _io?: CliIO): string {
  const clean = rows.map((r) => r.map((c) => sanitizeLine(c)));
  const widths = clean[0]!.map((_, i) => Math.min(60, Math.max(...clean.map((r) => cellWidth(r[i] ?? '')))));
  return clean
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - cellWidth(c)))))
        .join('  '),
    )
    .join('\n');
}
