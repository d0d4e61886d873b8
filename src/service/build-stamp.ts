import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Identifies the installed build: every build rewrites every compiled file, so this module's own
// modification time changes with each one. Client and service compare stamps so a service started
// before an update never answers for the new code (protocol.ts, buildVerdict).

let stamp: string | undefined;

export function buildStamp(): string {
  if (stamp === undefined) {
    try {
      stamp = String(Math.floor(statSync(fileURLToPath(import.meta.url)).mtimeMs));
    } catch {
      stamp = '0';
    }
  }
  return stamp;
}
