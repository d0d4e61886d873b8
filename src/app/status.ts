import {
  startStatusLineKeeper as keeperWith,
  readStatus as readWith,
  refreshStatusFile as refreshWith,
  type StoreLister,
} from '../status/status-file.js';
import type { StatusInfo } from '../status/status-model.js';
import { korttyHome } from '../storage/paths.js';

// The status files wired to the store list. store-config is imported only when status.json has to
// be rebuilt: `kortty-rag status` reads status.json alone within the status bar's budget.

const scanStores: StoreLister = async (home) => (await import('../store/store-config.js')).scanStores(home);

/** status.json plus live job files (rebuilt from the stores when status.json is missing). */
export function readStatus(home = korttyHome()): Promise<StatusInfo> {
  return readWith(scanStores, home);
}

/** Recomputes status.json and the status lines from the stores and job files. */
export function refreshStatus(home = korttyHome()): Promise<StatusInfo> {
  return refreshWith(scanStores, home);
}

/** For long-lived processes: keeps the status lines current (see status-file.ts). */
export function startStatusLineKeeper(
  home = korttyHome(),
  everyMs?: number,
  onPass?: () => void,
): { stop(): void } {
  return keeperWith(scanStores, home, everyMs, onPass);
}
