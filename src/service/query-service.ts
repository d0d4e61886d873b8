import { createError } from '../errors.js';
import type { AnswerQuery } from '../retrieve/answer.js';
import type { SearchDeps } from '../retrieve/search.js';
import { readStatus } from '../status/status-file.js';
import type { StatusInfo } from '../status/status-model.js';
import { scanStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import type { SearchArgs, SearchResultWire } from './protocol.js';
import { createStoreCatalog, type StoreCatalog } from './store-catalog.js';

// What the query service does, without sockets: it keeps the search dependencies (embedding
// models, tokenizer, open snapshots) warm between requests and answers with exactly what
// the one query-to-block function (injected by the app) returns in-process. Work runs one request at a time: the embedder and the snapshot
// cache are shared, and a snapshot replaced by one request must not be closed under another
// that is still reading it. Warm searches take milliseconds, so the queue costs nothing.

export type Deps = SearchDeps<StoreConfig> & { close(): Promise<void> };

export interface ServiceInfo {
  pid: number;
  build: string;
  host: 'standalone' | 'watcher';
  startedAt: string;
  requests: number;
  /** Store generation of the last request (0 before any). */
  generation: number;
  /** Whether models and snapshots are loaded (false after an idle unload). */
  warm: boolean;
  idleMinutes: number;
}

export interface StatusResult {
  service: ServiceInfo;
  status: StatusInfo;
}

export interface QueryHandler {
  search(args: SearchArgs): Promise<SearchResultWire>;
  status(): Promise<StatusResult>;
  /** Drops models and snapshots (they load again on the next search). */
  unload(): Promise<void>;
  close(): Promise<void>;
}

export interface HandlerOptions {
  home: string;
  build: string;
  host: ServiceInfo['host'];
  idleMinutes: number;
  /** The wired search dependencies (the app layer's createSearchDeps; tests inject their own). */
  depsFactory: (home: string) => Deps;
  /** The app's one query-to-block function (the same one `search`, `ask` and MCP call). */
  answer: AnswerQuery<StoreConfig>;
  catalog?: StoreCatalog;
}

export function createQueryHandler(opts: HandlerOptions): QueryHandler {
  const makeDeps = opts.depsFactory;
  const catalog = opts.catalog ?? createStoreCatalog(opts.home);
  const startedAt = new Date().toISOString();
  let deps: Deps | undefined;
  let requests = 0;
  let generation = 0;
  let queue: Promise<unknown> = Promise.resolve();

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  const info = (): ServiceInfo => ({
    pid: process.pid,
    build: opts.build,
    host: opts.host,
    startedAt,
    requests,
    generation,
    warm: deps !== undefined,
    idleMinutes: opts.idleMinutes,
  });

  return {
    search(args) {
      return serial(async () => {
        requests++;
        const view = await catalog.current();
        generation = view.generation;
        const stores = args.stores ? args.stores.map((ref) => pick(view.stores, ref)) : view.stores;
        deps ??= makeDeps(opts.home);
        const res = await opts.answer(
          {
            stores,
            query: args.query,
            mode: args.mode ?? 'hybrid',
            ...(args.contextWindow !== undefined ? { contextWindow: args.contextWindow } : {}),
            ...(args.firstMarker !== undefined ? { firstMarker: args.firstMarker } : {}),
            ...(args.shape !== undefined ? { shape: args.shape } : {}),
            // Only an answer over every store left one out; a named store that is damaged fails.
            ...(!args.stores ? { warnings: view.warnings } : {}),
          },
          deps,
        );
        return {
          shapedQuery: res.shapedQuery,
          block: res.block,
          failedStores: res.failedStores,
          excerpts: res.excerpts as unknown as Record<string, unknown>[],
          ...(args.candidates
            ? { candidates: res.candidates.slice(0, args.candidates) as unknown as Record<string, unknown>[] }
            : {}),
          timings: res.timings,
          generation: view.generation,
          ...(res.warnings.length > 0 ? { warnings: res.warnings } : {}),
        };
      });
    },
    async status() {
      return { service: info(), status: await readStatus(scanStores, opts.home) };
    },
    unload() {
      return serial(async () => {
        const d = deps;
        deps = undefined;
        await d?.close();
      });
    },
    async close() {
      await serial(async () => {
        const d = deps;
        deps = undefined;
        await d?.close();
      });
    },
  };
}

/** Same resolution as findStore: by id first, then by name. */
function pick(stores: readonly StoreConfig[], ref: string): StoreConfig {
  const hit = stores.find((s) => s.id === ref) ?? stores.find((s) => s.name === ref);
  if (!hit) throw createError('STORE_NOT_FOUND', { name: ref });
  return hit;
}
