import { z } from 'zod';
import { serviceBlockSchema } from '../storage/config-json.js';
import { readJsonFile } from '../storage/json-file.js';
import { configPath } from '../storage/paths.js';
import { checkJson } from '../util/json-check.js';
import { DEFAULT_SERVICE_CONFIG, type ServiceConfig } from './service-defaults.js';

// The query service's settings: the "service" object of $KORTTY_HOME/rag/config.json (its
// schema, with the file's other blocks, is src/storage/config-json.ts).
//
//   {"service": {"enabled": true, "idleMinutes": 15, "answerTimeoutMs": 1500, "startTimeoutMs": 3000}}
//
// Read by every `search`/`ask` before it talks to the service, so it is one small file read; a
// missing file or key means the defaults. A damaged value is an error naming the file and field.

/** The part of config.json read here; other blocks ("tui"…) belong to their own readers. */
const configServicePartSchema = z.looseObject({ service: serviceBlockSchema.optional() });

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
