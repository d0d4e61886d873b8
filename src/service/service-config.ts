import { readFile } from 'node:fs/promises';
import { createError } from '../errors.js';
import { configPath } from '../storage/paths.js';

// The query service's settings: the "service" object of $KORTTY_HOME/rag/config.json.
//
//   {"service": {"enabled": true, "idleMinutes": 15, "answerTimeoutMs": 1500, "startTimeoutMs": 3000}}
//
// Read by every `search`/`ask` before it talks to the service, so it is one small file read; a
// missing file or key means the defaults. A damaged value is an error naming the file and field.

export interface ServiceConfig {
  /** false: commands never start or use the service and always work in-process. */
  enabled: boolean;
  /** A standalone service exits after this long without a request; a hosted one unloads models. */
  idleMinutes: number;
  /** A service that sends nothing for this long (no "accepted", no heartbeat) is treated as hung. */
  answerTimeoutMs: number;
  /** How long a command waits for a service it has just started before working in-process. */
  startTimeoutMs: number;
}

export const DEFAULT_SERVICE_CONFIG: ServiceConfig = {
  enabled: true,
  idleMinutes: 15,
  answerTimeoutMs: 1500,
  startTimeoutMs: 3000,
};

const LIMITS: Record<Exclude<keyof ServiceConfig, 'enabled'>, [number, number]> = {
  idleMinutes: [0.001, 7 * 24 * 60],
  answerTimeoutMs: [50, 600_000],
  startTimeoutMs: [50, 600_000],
};

/** Pure: the service settings from config.json's parsed content. */
export function parseServiceConfig(raw: unknown, path: string): ServiceConfig {
  const fail = (field: string, reason: string) => createError('CONFIG_INVALID', { path, field, reason });
  if (raw === undefined) return { ...DEFAULT_SERVICE_CONFIG };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw fail('(file)', 'not a JSON object');
  const s = (raw as Record<string, unknown>).service;
  if (s === undefined) return { ...DEFAULT_SERVICE_CONFIG };
  if (typeof s !== 'object' || s === null || Array.isArray(s)) throw fail('service', 'must be an object');
  const out = { ...DEFAULT_SERVICE_CONFIG };
  for (const [k, v] of Object.entries(s)) {
    if (k === 'enabled') {
      if (typeof v !== 'boolean') throw fail('service.enabled', 'must be true or false');
      out.enabled = v;
    } else if (k in LIMITS) {
      const [min, max] = LIMITS[k as keyof typeof LIMITS];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
        throw fail(`service.${k}`, `must be a number from ${min} to ${max}`);
      }
      out[k as keyof typeof LIMITS] = v;
    } else {
      throw fail(`service.${k}`, `unknown setting (known: enabled, ${Object.keys(LIMITS).join(', ')})`);
    }
  }
  return out;
}

export async function readServiceConfig(home: string): Promise<ServiceConfig> {
  const path = configPath(home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_SERVICE_CONFIG };
    throw createError('CONFIG_INVALID', { path, field: '(file)', reason: (err as Error).message });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw createError('CONFIG_INVALID', {
      path,
      field: '(file)',
      reason: `not valid JSON (${(err as Error).message})`,
    });
  }
  return parseServiceConfig(raw, path);
}
