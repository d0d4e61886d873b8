import { getPriority, setPriority, totalmem } from 'node:os';
import { CATALOG, fitsMemory, listInstalled } from '../app/models.js';
import type { SearchMode, SearchResult } from '../app/search.js';
import { readJobFiles } from '../status/job-file.js';
import { storeDir } from '../storage/paths.js';
import {
  type AddSourceInput,
  type CreateStoreInput,
  createStore,
  deleteStore,
  newSourceRecord,
  scanStores,
  setSourceEnabled,
  setSourceOptions,
  setSourceSync,
  setStoreRoles,
} from '../store/engine.js';
import type { JobSpec } from '../store/job-protocol.js';
import type { JobHandle, JobHandlers } from '../store/job-runner.js';
import { healthLabel } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import type { Role, SourceOptions, SyncMode } from '../types.js';
import { listDir, pathKind } from './fs-list.js';
import { type ModelTaskHandle, type ModelTaskSpec, startModelTask } from './model-task.js';
import type { CatalogRow, DirEntry, ExternalJob, ModelChoice, RunsState } from './state.js';

// Everything the pane does to the outside world, behind one facade: the engine, job and model
// children, the file system, search and run records. Controllers call these; views never do.

export interface Services {
  home: string;
  loadStores(): Promise<StoreConfig[]>;
  /** Messages for the stores the last loadStores could not read (file and field named). */
  damagedStores?(): string[];
  /** Usable stores the last search could not use, by id: DAMAGED (snapshot) or UNREACHABLE (Qdrant). */
  storeHealth?(): Record<string, 'DAMAGED' | 'UNREACHABLE'>;
  externalJobs(ownPids: readonly number[]): Promise<ExternalJob[]>;
  installedModels(): Promise<ModelChoice[]>;
  catalog(installed: readonly ModelChoice[]): { rows: CatalogRow[]; memBytes: number };
  createStore(input: CreateStoreInput): Promise<StoreConfig>;
  deleteStore(id: string): Promise<string>;
  setSourceEnabled(storeId: string, sourceId: string, enabled: boolean): Promise<unknown>;
  setSourceSync(storeId: string, sourceId: string, sync: SyncMode): Promise<unknown>;
  setSourceOptions(storeId: string, sourceId: string, options: Partial<SourceOptions>): Promise<unknown>;
  setStoreRoles(storeId: string, roles: Role[], autonomous: boolean): Promise<unknown>;
  startJob(spec: JobSpec, handlers: JobHandlers): Promise<JobHandle>;
  /** Why these sources cannot be added to the store (already covered, overlapping…), or undefined. */
  checkNewSources(store: StoreConfig, inputs: AddSourceInput[]): string | undefined;
  listDir(dir: string): Promise<DirEntry[]>;
  pathKind(path: string): ReturnType<typeof pathKind>;
  startModelTask(spec: ModelTaskSpec, onProgress: Parameters<typeof startModelTask>[2]): ModelTaskHandle;
  search(store: StoreConfig, query: string, mode: SearchMode): Promise<SearchResult>;
  loadRuns(stores: readonly StoreConfig[]): Promise<Omit<RunsState, 'selected'>>;
  storeDir(id: string): string;
  close(): Promise<void>;
}

const RUNS_SHOWN = 200;

/**
 * Background work yields the CPU to the pane: the child is reniced right after fork, before it
 * starts its worker and embedding threads, which inherit the lower priority. On a busy 2-core
 * machine this keeps key presses and repaints ahead of hashing and embedding.
 */
function background(pid: number | undefined) {
  if (!pid) return;
  try {
    setPriority(pid, Math.min(19, getPriority(pid) + 10));
  } catch {
    // Not permitted or the process already ended: it runs at normal priority.
  }
}

export function createServices(home: string): Services {
  let searchDeps: import('../app/search-deps.js').AppSearchDeps | undefined;
  let damaged: string[] = [];
  let health: Record<string, 'DAMAGED' | 'UNREACHABLE'> = {};
  return {
    home,
    async loadStores() {
      const scan = await scanStores(home);
      damaged = scan.damaged.map((d) => d.error.message);
      health = Object.fromEntries(scan.unhealthy.map((u) => [u.id, healthLabel(u.kind)]));
      return scan.stores;
    },
    damagedStores: () => damaged,
    storeHealth: () => health,
    async externalJobs(ownPids) {
      const jobs = await readJobFiles(home);
      return jobs
        .filter((j) => !ownPids.includes(j.pid))
        .map((j) => ({
          storeId: j.storeId,
          storeName: j.storeName,
          pid: j.pid,
          state: j.state,
          percent: j.percent,
        }));
    },
    async installedModels() {
      return (await listInstalled(home)).map((r) => ({ id: r.id, size: r.size, source: r.source }));
    },
    catalog(installed) {
      const memBytes = totalmem();
      const ids = new Set(installed.map((m) => m.id));
      const rows = CATALOG.map((m) => ({
        id: m.id,
        label: m.label,
        sizeBytes: m.sizeBytes,
        sizeExact: m.sizeExact,
        dimension: m.dimension,
        languages: m.languages,
        note: m.note,
        kind: m.kind,
        fits: fitsMemory(m, memBytes),
        minMemoryBytes: m.minMemoryBytes,
        installed: ids.has(m.id),
      }));
      return { rows, memBytes };
    },
    createStore: (input) => createStore(input, home),
    async deleteStore(id) {
      const { dir } = await deleteStore(id, { detach: true }, home);
      return dir;
    },
    setSourceEnabled: (s, src, on) => setSourceEnabled(s, src, on, home),
    setSourceSync: (s, src, sync) => setSourceSync(s, src, sync, home),
    setSourceOptions: (s, src, o) => setSourceOptions(s, src, o, home),
    setStoreRoles: (s, roles, autonomous) => setStoreRoles(s, roles, autonomous, home),
    async startJob(spec, handlers) {
      const { startJob } = await import('../store/job-runner.js');
      const handle = startJob(spec, handlers, home);
      background(handle.pid);
      return handle;
    },
    checkNewSources(store, inputs) {
      const taken = [...store.sources];
      try {
        for (const input of inputs) taken.push(newSourceRecord(input, taken));
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    listDir,
    pathKind,
    startModelTask: (spec, onProgress) => {
      const task = startModelTask(spec, home, onProgress);
      background(task.pid);
      return task;
    },
    async search(store, query, mode) {
      const mod = await import('../app/search.js');
      searchDeps ??= mod.createSearchDeps(home);
      return mod.answerQuery({ stores: [store], query, mode }, searchDeps);
    },
    async loadRuns(stores) {
      const { recentRuns } = await import('../app/runs.js');
      const { runs, damaged } = await recentRuns({ last: RUNS_SHOWN, stores, home });
      return { records: runs.reverse(), damaged: damaged.length, loaded: true };
    },
    storeDir: (id) => storeDir(id, home),
    async close() {
      await searchDeps?.close();
    },
  };
}
