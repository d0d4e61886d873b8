import type { z } from 'zod';
import type { serviceBlockSchema } from '../storage/config-json.js';

// The query service's default settings, apart from their schema so that reading them loads no zod.

/** config.json's "service" settings, every one filled in (type-only imports: nothing loads). */
export type ServiceConfig = Required<z.infer<typeof serviceBlockSchema>>;

export const DEFAULT_SERVICE_CONFIG: Readonly<ServiceConfig> = Object.freeze({
  enabled: true,
  idleMinutes: 15,
  answerTimeoutMs: 1500,
  startTimeoutMs: 3000,
});
