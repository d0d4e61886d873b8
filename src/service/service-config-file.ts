import { readFile } from 'node:fs/promises';
import { configPath } from '../storage/paths.js';
import { acceptServiceBlock } from '../storage/service-block.js';
import { DEFAULT_SERVICE_CONFIG, type ServiceConfig } from './service-defaults.js';

// Every `search`/`ask` reads the service settings before it talks to the service. Without a
// "service" block in config.json (the usual case: no file, or only the TUI's settings) they are
// the defaults, and the block's schema, with zod's ~35–55 ms of module loading, is loaded only when
// there is a block that is not plainly valid (storage/service-block.ts). The file's other blocks
// are checked by their own readers.

export async function readServiceSettings(home: string): Promise<ServiceConfig> {
  let text: string;
  try {
    text = await readFile(configPath(home), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_SERVICE_CONFIG };
    text = ''; // unreadable: the full reader reports it, naming the file
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined; // damaged: the full reader reports it with the file and position
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    if (!Object.hasOwn(parsed, 'service')) return { ...DEFAULT_SERVICE_CONFIG };
    // A valid block needs no schema; a doubtful one goes to the full reader for its message.
    const block = acceptServiceBlock((parsed as { service: unknown }).service);
    if (block) return { ...DEFAULT_SERVICE_CONFIG, ...block };
  }
  return (await import('./service-config.js')).readServiceConfig(home);
}
