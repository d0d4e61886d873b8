import { isKorttyError } from '../errors.js';
import type { JobProgress } from '../store/store-types.js';
import { createInterrupt, type Interrupt } from './interrupt.js';
import type { CliIO } from './io.js';
import { progressPrinter } from './progress.js';

// Runs one indexing job (source add/update, store rebuild) from the CLI: the progress line, Ctrl-C
// and what the user is told when the job does not simply finish. A cancelled job activated
// nothing, so "nothing changed" is exact; a Ctrl-C that arrives after activation cannot undo it,
// and the user is told the change was kept.

export interface JobHooksForCli {
  signal: AbortSignal;
  interrupt: Interrupt;
  onProgress(p: JobProgress): void;
  /** Clears the progress line; call before writing anything else to the terminal. */
  clearLine(): void;
  /** Set by the confirm step when the user answered no. */
  declined(): void;
}

export type JobOutcome<T> = { done: true; result: T; exitCode: number } | { done: false; exitCode: number };

export async function runCliJob<T>(
  io: CliIO,
  opts: { quiet: boolean },
  start: (hooks: JobHooksForCli) => Promise<T>,
): Promise<JobOutcome<T>> {
  const progress = progressPrinter(io, opts.quiet);
  const raw = io.rawStderr ?? io.stderr;
  // Same test as the progress printer: on a terminal the note replaces the progress line.
  const tty = Boolean(io.stdout.isTTY);
  let declined = false;
  const interrupt = createInterrupt({
    onFirst: () => {
      progress.done();
      raw.write(tty ? 'cancelling… (Ctrl-C again to stop at once)' : 'cancelling…\n');
    },
    onSecond: () => {
      raw.write(
        `${tty ? '\r\x1b[2K' : ''}stopped at once; the store keeps its previous or its new index, never a mix\n`,
      );
      process.exit(130);
    },
  });
  const clearCancelNote = () => {
    if (tty && interrupt.signal.aborted) raw.write('\r\x1b[2K');
  };
  try {
    const result = await start({
      signal: interrupt.signal,
      interrupt,
      onProgress: (p) => {
        if (!interrupt.signal.aborted) progress.onProgress(p);
      },
      clearLine: progress.done,
      declined: () => {
        declined = true;
      },
    });
    progress.done();
    clearCancelNote();
    if (interrupt.signal.aborted) {
      io.stderr.write('interrupted after activation: the change was kept\n');
      return { done: true, result, exitCode: 130 };
    }
    return { done: true, result, exitCode: 0 };
  } catch (err) {
    progress.done();
    clearCancelNote();
    if (interrupt.signal.aborted) {
      io.stderr.write('cancelled; nothing changed\n');
      return { done: false, exitCode: 130 };
    }
    if (declined && isKorttyError(err, 'JOB_CANCELLED')) {
      io.stderr.write('not indexed; nothing changed\n');
      return { done: false, exitCode: 1 };
    }
    throw err;
  } finally {
    interrupt.dispose();
  }
}
