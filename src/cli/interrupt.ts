import { createInterface } from 'node:readline/promises';
import { onInterrupt } from '../util/interrupt.js';
import { sanitizeTerminal } from '../util/terminal-text.js';
import type { CliIO } from './io.js';

// Ctrl-C for commands that run a job: the first SIGINT (SIGTERM, SIGHUP) aborts the job's signal,
// so it stops before activation instead of dying mid-write; a second one exits at once (the
// snapshot is still the old or the new one, never a mix). The listener is the shared one of
// util/interrupt.ts, which explains why it stays registered.

export interface Interrupt {
  signal: AbortSignal;
  /** Abort as Ctrl-C would (a prompt that saw ^C in raw mode); quiet: without the onFirst note. */
  trigger(quiet?: boolean): void;
  dispose(): void;
}

export function createInterrupt(hooks: { onFirst?: () => void; onSecond?: () => never } = {}): Interrupt {
  const ac = new AbortController();
  const second = (): never => {
    hooks.onSecond?.();
    process.exit(130);
  };
  const trigger = (quiet?: boolean) => {
    if (ac.signal.aborted) second();
    ac.abort();
    if (!quiet) hooks.onFirst?.();
  };
  const dispose = onInterrupt(() => trigger(false), { onSecond: second });
  return { signal: ac.signal, trigger, dispose };
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
