import { readServiceConfig } from '../service/service-config.js';
import { startWatchService, type WatchOptions, type WatchService } from '../watch/watch-service.js';
import { hostQueryService } from './query-service.js';
import { startStatusLineKeeper } from './status.js';

// The watcher daemon wired: the watch service with the status-line keeper (the line follows job
// files even when a job dies without clearing its progress), and the query service it can host.

export type { WatchEvent, WatchOptions, WatchService } from '../watch/watch-service.js';

export interface Watcher {
  readonly service: WatchService;
  /** Stops the status-line keeper (the watch service stops on its own). */
  close(): void;
}

export async function startWatcher(opts: WatchOptions & { home: string }): Promise<Watcher> {
  const service = await startWatchService(opts);
  const keeper = startStatusLineKeeper(opts.home);
  return { service, close: () => keeper.stop() };
}

/** The query service inside the watcher (when no standalone one runs); unloads when idle. */
export async function hostServiceInWatcher(
  home: string,
  log: (msg: string) => void,
): Promise<{ stop(): Promise<void> }> {
  const { idleMinutes } = await readServiceConfig(home);
  return hostQueryService({ home, host: 'watcher', idleMinutes, log });
}
