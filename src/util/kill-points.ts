// Labelled crash points for the reliability suite: `KORTTY_KILL_AT=<label>[:<n>]` SIGKILLs this
// process the n-th time (default 1st) it reaches the label. Costs one string compare otherwise.

export const KILL_LABELS = [
  'after-scan',
  'mid-embedding',
  'snapshot-written',
  'snapshot-fsynced',
  'snapshot-verified',
  'snapshot-renamed',
  'dir-synced',
  'store-updated',
] as const;
/** The steps of `store delete` (src/store/engine.ts deleteStore). */
export const DELETE_KILL_LABELS = ['delete-locked', 'delete-tombstoned', 'delete-synced'] as const;
export type KillLabel = (typeof KILL_LABELS)[number];
export type DeleteKillLabel = (typeof DELETE_KILL_LABELS)[number];

const spec = process.env.KORTTY_KILL_AT;
const [wanted, nth] = spec ? spec.split(':') : [];
let seen = 0;

export function killPoint(label: KillLabel | DeleteKillLabel): void {
  if (wanted !== label) return;
  seen++;
  if (seen >= Number(nth ?? 1)) process.kill(process.pid, 'SIGKILL');
}
