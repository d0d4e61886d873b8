// Ctrl-C, `kill` and a closed terminal cancel a job instead of killing it mid-write.
//
// node-llama-cpp loads signal-exit 3 (through proper-lockfile), whose SIGINT/SIGTERM/SIGHUP
// listener re-raises the signal when it finds no listener but its own: a `process.once` handler
// has removed itself by then, so the process would die right after starting its cancel, leaving
// the lock and job.json behind. Our listener therefore stays registered; the first signal calls
// `onFirst`, a second one calls `onSecond`, or removes the listener and re-raises the signal
// (its default effect: exit).

export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Returns the function that removes the listeners. */
export function onInterrupt(
  onFirst: (signal: NodeJS.Signals) => void,
  opts: { signals?: readonly NodeJS.Signals[]; onSecond?: (signal: NodeJS.Signals) => void } = {},
): () => void {
  const signals = opts.signals ?? INTERRUPT_SIGNALS;
  let seen = false;
  const dispose = () => {
    for (const s of signals) process.off(s, listener);
  };
  function listener(signal: NodeJS.Signals) {
    if (!seen) {
      seen = true;
      onFirst(signal);
      return;
    }
    if (opts.onSecond) return opts.onSecond(signal);
    dispose();
    process.kill(process.pid, signal);
  }
  for (const s of signals) process.on(s, listener);
  return dispose;
}
