import { inRange, type NumberRange, timerMax } from '../util/ranges.js';

// config.json's "service" block without zod: its ranges, and a strict acceptor for the warm path.
// Every `search` reads the block before it talks to the service, and loading zod would cost more
// than the rest of a warm search's client side; so a block that is plainly valid is taken here, and
// anything else goes to the schema (config-json.ts), which names the file and the field.

/** Every number of the block has its range here (durations stay within Node's timer limit). */
export const SERVICE_RANGES = {
  idleMinutes: { min: 0.001, max: Math.min(7 * 24 * 60, timerMax(60_000)), unit: 'minutes' },
  answerTimeoutMs: { min: 50, max: 600_000, unit: 'ms' },
  startTimeoutMs: { min: 50, max: 600_000, unit: 'ms' },
} as const satisfies Record<string, NumberRange>;

export interface ServiceBlock {
  enabled?: boolean;
  idleMinutes?: number;
  answerTimeoutMs?: number;
  startTimeoutMs?: number;
}

/**
 * Pure: the block when the schema would accept it as it is (known keys only, right types, in
 * range), else undefined; never a verdict that it is wrong, which only the schema gives.
 */
export function acceptServiceBlock(raw: unknown): ServiceBlock | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'enabled') {
      if (typeof v !== 'boolean') return undefined;
    } else if (Object.hasOwn(SERVICE_RANGES, k)) {
      if (typeof v !== 'number' || !inRange(v, SERVICE_RANGES[k as keyof typeof SERVICE_RANGES]))
        return undefined;
    } else return undefined;
  }
  return raw as ServiceBlock;
}
