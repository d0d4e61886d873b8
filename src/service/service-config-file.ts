import { access } from 'node:fs/promises';
import { configPath } from '../storage/paths.js';
import { DEFAULT_SERVICE_CONFIG, type ServiceConfig } from './service-defaults.js';

// Every `search`/`ask` reads the service settings before it talks to the service. Without a
// config.json (the usual case) they are the defaults, and the schema, with zod's ~50 ms of
// module loading, is only loaded when there is a file to check.

export async function readServiceSettings(home: string): Promise<ServiceConfig> {
  try {
    await access(configPath(home));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_SERVICE_CONFIG };
    // Anything else (a permission problem) is reported by the full reader, naming the file.
  }
  return (await import('./service-config.js')).readServiceConfig(home);
}
