import { createInterface } from 'node:readline/promises';
import { sanitizeTerminal } from '../util/terminal-text.js';
import type { CliIO } from './io.js';

// Ctrl-C for commands that run a job: the first SIGINT (or SIGTERM) aborts the job's signal, so it
// stops before activation instead of dying mid-write; a second one exits at once (the snapshot
// is still the old or the new one, never a mix).
//
// The listeners stay registered until dispose(), never `once`: node-llama-cpp's dependencies use
// signal-exit 3, whose own SIGINT listener re-raises the signal, killing the process, whenever it
// finds no other listener left, which is what a consumed `once` listener looks like.

export interface Interrupt {
  signal: AbortSignal;
  /** Abort as Ctrl-C would (a prompt that saw ^C in raw mode); quiet: without the onFirst note. */
  trigger(quiet?: boolean): void;
  dispose(): void;
}

export function createInterrupt(hooks: { onFirst?: () => void; onSecond?: () => never } = {}): Interrupt {
  const ac = new AbortController();
  const onSignal = () => trigger(false);
  const trigger = (quiet?: boolean) => {
    if (ac.signal.aborted) {
      if (hooks.onSecond) hooks.onSecond();
      process.exit(130);
    }
    ac.abort();
    if (!quiet) hooks.onFirst?.();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    trigger,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Ctrl-C aborts the returned signal; the listeners live as long as the process (for one-shot commands). */
export function interruptSignal(): AbortSignal {
  return createInterrupt().signal;
}

/**
 * A yes/no question on the terminal (stderr, so stdout stays clean). Not a terminal: no. Ctrl-C
 * at the prompt triggers `interrupt` (readline reads keys raw, so no SIGINT is sent) and answers no.
 */
export async function askYesNo(io: CliIO, question: string, interrupt?: Interrupt): Promise<boolean> {
  if (!io.stdin.isTTY) return false;
  const rl = createInterface({ input: io.stdin, output: io.rawStderr ?? io.stderr });
  const ac = new AbortController();
  rl.on('SIGINT', () => {
    ac.abort();
    interrupt?.trigger(true);
  });
  try {
    return /^y(es)?$/i.test((await rl.question(sanitizeTerminal(question), { signal: ac.signal })).trim());
  } catch (err) {
    if (ac.signal.aborted) return false;
    throw err;
  } finally {
    rl.close();
  }
}
