import { z } from 'zod';
import { readJsonFile } from '../storage/json-file.js';
import { configPath } from '../storage/paths.js';
import { checkJson } from '../util/json-check.js';

// The query service's settings: the "service" object of $KORTTY_HOME/rag/config.json.
//
//   {"service": {"enabled": true, "idleMinutes": 15, "answerTimeoutMs": 1500, "startTimeoutMs": 3000}}
//
// Read by every `search`/`ask` before it talks to the service, so it is one small file read; a
// missing file or key means the defaults. A damaged value is an error naming the file and field.

const number = (min: number, max: number) => z.number().min(min).max(max);

/** config.json's "service" object; every setting is optional (a missing one is the default). */
const serviceBlockSchema = z.strictObject({
  /** false: commands never start or use the service and always work in-process. */
  enabled: z.boolean().optional(),
  /** A standalone service exits after this long without a request; a hosted one unloads models. */
  idleMinutes: number(0.001, 7 * 24 * 60).optional(),
  /** A service that sends nothing for this long (no "accepted", no heartbeat) is treated as hung. */
  answerTimeoutMs: number(50, 600_000).optional(),
  /** How long a command waits for a service it has just started before working in-process. */
  startTimeoutMs: number(50, 600_000).optional(),
});

/** The part of config.json read here; other keys ("tui"…) belong to their own readers. */
const configServicePartSchema = z.looseObject({ service: serviceBlockSchema.optional() });

export type ServiceConfig = Required<z.infer<typeof serviceBlockSchema>>;

export const DEFAULT_SERVICE_CONFIG: ServiceConfig = {
  enabled: true,
  idleMinutes: 15,
  answerTimeoutMs: 1500,
  startTimeoutMs: 3000,
};

/** Pure: the service settings from config.json's parsed content. */
export function parseServiceConfig(raw: unknown, path: string): ServiceConfig {
  if (raw === undefined) return { ...DEFAULT_SERVICE_CONFIG };
  const s = checkJson(raw, configServicePartSchema, path, 'configuration').service ?? {};
  const out = { ...DEFAULT_SERVICE_CONFIG };
  for (const k of Object.keys(out) as (keyof ServiceConfig)[])
    if (s[k] !== undefined) Object.assign(out, { [k]: s[k] });
  return out;
}

export async function readServiceConfig(home: string): Promise<ServiceConfig> {
  const path = configPath(home);
  return parseServiceConfig(await readJsonFile(path, z.unknown(), 'configuration'), path);
}
