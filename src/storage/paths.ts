import { homedir } from 'node:os';
import { join } from 'node:path';

// Every on-disk name is built here (LevelDB's filename.h idea), so layout changes touch one file.

export function korttyHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.KORTTY_HOME && env.KORTTY_HOME.length > 0 ? env.KORTTY_HOME : join(homedir(), '.kortty');
}

export const ragDir = (home = korttyHome()) => join(home, 'rag');
export const storesDir = (home = korttyHome()) => join(ragDir(home), 'stores');
export const storeDir = (storeId: string, home = korttyHome()) => join(storesDir(home), storeId);
export const storeConfigPath = (storeId: string, home = korttyHome()) =>
  join(storeDir(storeId, home), 'store.json');
export const snapshotPath = (storeId: string, home = korttyHome()) =>
  join(storeDir(storeId, home), 'index.hnsw');
export const storeLockPath = (storeId: string, home = korttyHome()) => join(storeDir(storeId, home), 'lock');
/**
 * A deleted store's directory, renamed under its lock before it is removed: a name no store
 * listing picks up (leading dot) and no new store reuses. Leftovers are removed on listing.
 */
export const STORE_TOMBSTONE_PREFIX = '.deleted-';
export const storeTombstonePath = (storeId: string, nonce: string, home = korttyHome()) =>
  join(storesDir(home), `${STORE_TOMBSTONE_PREFIX}${storeId}-${nonce}`);
export const modelsDir = (home = korttyHome()) => join(ragDir(home), 'models');
export const runsDir = (home = korttyHome()) => join(ragDir(home), 'runs');
export const statusPath = (home = korttyHome()) => join(ragDir(home), 'status.json');
/** Pre-rendered status lines for status bars that only `cat` a file (tmux #(cat …), WezTerm). */
export const statusTextPath = (home = korttyHome()) => join(ragDir(home), 'status.txt');
export const statusTmuxPath = (home = korttyHome()) => join(ragDir(home), 'status.tmux');
/** The query service's owner-only directory: its socket, its lock and its log. */
export const serviceDir = (home = korttyHome()) => join(ragDir(home), 'service');
export const serviceSocketPath = (home = korttyHome()) => join(serviceDir(home), 'query.sock');
export const serviceLockPath = (home = korttyHome()) => join(serviceDir(home), 'lock');
export const serviceLogPath = (home = korttyHome()) => join(serviceDir(home), 'service.log');
export const watcherLockPath = (home = korttyHome()) => join(ragDir(home), 'watch.lock');
export const watchLogPath = (home = korttyHome()) => join(ragDir(home), 'watch.log');
export const aiDir = (home = korttyHome()) => join(home, 'ai');
export const profilesPath = (home = korttyHome()) => join(aiDir(home), 'profiles.json');
export const skillsDir = (home = korttyHome()) => join(aiDir(home), 'skills');
export const vaultPath = (home = korttyHome()) => join(home, 'vault');
export const configPath = (home = korttyHome()) => join(home, 'rag', 'config.json');
/** The shell integration's per-pane state files (written by the shell snippet, read by `last`). */
export const lastStateDir = (home = korttyHome()) => join(ragDir(home), 'last');
/** One file per tmux pane: the tmux server's pid and the pane id without its `%` (pane ids repeat across servers). */
export const lastStatePath = (serverPid: number, paneId: string, home = korttyHome()) =>
  join(lastStateDir(home), `${serverPid}-${paneId.replace(/^%/, '')}.state`);

/** Temp names share the live file's directory so rename is atomic; the prefix lets open() find leftovers. */
export const TEMP_PREFIX = '.tmp-';
export function tempPathFor(livePath: string, nonce: string): string {
  const slash = livePath.lastIndexOf('/');
  return `${livePath.slice(0, slash + 1)}${TEMP_PREFIX}${livePath.slice(slash + 1)}.${nonce}`;
}
