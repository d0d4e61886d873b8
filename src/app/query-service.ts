import {
  type HostOptions,
  hostQueryService as host,
  type RunningService,
  startQueryService as start,
} from '../service/host.js';
import { answerQuery } from './query.js';
import { createSearchDeps } from './search-deps.js';

// The query service wired: the host (socket, lock, idle unload) with the app's search dependencies.

export type ServiceOptions = Omit<HostOptions, 'depsFactory' | 'answer'>;

export function startQueryService(opts: ServiceOptions): Promise<RunningService> {
  return start({ ...opts, depsFactory: createSearchDeps, answer: answerQuery });
}

/** Keeps a query service running inside another process (the watcher), retrying while another holds it. */
export function hostQueryService(opts: ServiceOptions & { retryMs?: number }): { stop(): Promise<void> } {
  return host({ ...opts, depsFactory: createSearchDeps, answer: answerQuery });
}
