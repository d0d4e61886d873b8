import { readFile, statfs } from 'node:fs/promises';
import { classifyFs, mountFor, parseMounts } from './fs-kind.js';

/** The network filesystem a path lives on (name), or undefined for a local one. */
export async function detectNetworkFs(path: string): Promise<string | undefined> {
  let type: number | undefined;
  try {
    type = Number((await statfs(path)).type);
  } catch {}
  let mounts: ReturnType<typeof parseMounts> = [];
  try {
    mounts = parseMounts(await readFile('/proc/self/mounts', 'utf8'));
  } catch {}
  return classifyFs(type, mountFor(mounts, path));
}
