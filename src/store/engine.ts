import { resolve } from 'node:path';
import { DEFAULT_CHUNK_PARAMS, validateChunkParams } from '../chunk/params.js';
import { createError, isKorttyError } from '../errors.js';
import { openSnapshot } from '../index/snapshot-io.js';
import { DEFAULT_SOURCE_OPTIONS, resolveSourceOptions } from '../scan/rules.js';
import { createJobPublisher } from '../status/job-file.js';
import { createStatusLineRenderer, refreshStatusFile } from '../status/status-file.js';
import { errReason } from '../storage/atomic-write.js';
import { nodeFsEnv } from '../storage/fs-env.js';
import { acquireLock } from '../storage/lock.js';
import { korttyHome, snapshotPath, storeDir, storeLockPath } from '../storage/paths.js';
import type { ChunkParams, Review, Role, SourceOptions, SyncMode } from '../types.js';
import { killPoint } from '../util/kill-points.js';
import { dataDirConflict } from './data-dir.js';
import { runSync, type SyncResult } from './index-job.js';
import { resolveModel } from './model-resolve.js';
import type { PipelinePorts } from './ports.js';
import { checkNewSource, findSource, sourceIdFor } from './source-rules.js';
import {
  findStore,
  listStoreIds,
  listStores,
  loadStore,
  removeTombstone,
  saveStore,
  scanStores,
  storeIdFor,
  tombstoneStoreDir,
} from './store-config.js';
import type { JobProgress, QdrantSettings, SourceRecord, StoreConfig, StoreType } from './store-types.js';

// The engine API: one entry for the CLI, the TUI's job child and the watcher. Every mutation of
// a store runs under its lock; indexing goes through runSync.

export const DEFAULT_CHUNK: ChunkParams = { ...DEFAULT_CHUNK_PARAMS };

export interface JobHooks {
  confirm?: (reviews: ReadonlyMap<string, Review>) => Promise<boolean>;
  signal?: AbortSignal;
  onProgress?: (p: JobProgress) => void;
  ports?: PipelinePorts;
  /** Update now: extract again the files whose extraction failed before, even if unchanged. */
  retryFailed?: boolean;
}

export interface CreateStoreInput {
  name: string;
  modelId: string;
  roles?: Role[];
  autonomous?: boolean;
  type?: StoreType;
  chunk?: Partial<ChunkParams>;
  qdrant?: QdrantSettings;
  /** Expected dimension (Advanced); a model producing another dimension is refused. */
  dimension?: number;
  /** Qdrant API key: stored only in the encrypted vault (never in store.json). */
  qdrantApiKey?: string;
  /** An unlocked vault, required with qdrantApiKey. */
  vault?: import('../vault/vault.js').Vault;
}

export async function createStore(input: CreateStoreInput, home = korttyHome()): Promise<StoreConfig> {
  const name = input.name.trim();
  if (!name) throw createError('INVALID_ARGUMENT', { name: 'name', reason: 'a store needs a name' });
  // A name is shown in tables, status lines and prompts: no line breaks or terminal controls.
  if (/[\p{Cc}\u2028\u2029]/u.test(name)) {
    throw createError('INVALID_ARGUMENT', {
      name: 'name',
      reason: 'a store name cannot contain control characters',
    });
  }
  const existing = await listStores(home);
  if (existing.some((s) => s.name === name)) throw createError('STORE_EXISTS', { name });
  // Ids made by older versions were bare slugs ("Notes" → notes): a new name whose exact slug is
  // such a directory gets the hashed id, which no older id can be.
  const taken = new Set([...existing.map((s) => s.id), ...(await listStoreIds(home))]);
  const id = taken.has(storeIdFor(name)) ? storeIdFor(name, { hashed: true }) : storeIdFor(name);
  // A directory of this id without a store (a leftover) is cleared below; a store is never replaced.
  if (existing.some((s) => s.id === id)) throw createError('STORE_EXISTS', { name });
  const chunk = { ...DEFAULT_CHUNK, ...input.chunk };
  validateChunkParams(chunk);
  const model = await resolveModel(input.modelId, home);
  if (input.dimension !== undefined && input.dimension !== model.fingerprint.dimension) {
    throw createError('MODEL_DIMENSION_MISMATCH', {
      model: input.modelId,
      got: model.fingerprint.dimension,
      want: input.dimension,
      store: name,
    });
  }
  const type = input.type ?? 'local';
  if (type === 'qdrant' && !input.qdrant) {
    throw createError('INVALID_ARGUMENT', {
      name: 'qdrant',
      reason: 'a Qdrant store needs an endpoint and a collection',
    });
  }
  const cfg: StoreConfig = {
    version: 1,
    id,
    name,
    type,
    modelId: input.modelId,
    fingerprint: model.fingerprint,
    roles: [...new Set(input.roles ?? [])].sort(),
    autonomous: input.autonomous ?? false,
    chunk,
    ...(input.qdrant ? { qdrant: input.qdrant } : {}),
    sources: [],
    createdAt: new Date().toISOString(),
  };
  if (type === 'qdrant') {
    const { openQdrant, qdrantSecretName } = await import('./qdrant-bridge.js');
    if (input.qdrantApiKey) {
      if (!input.vault) throw createError('VAULT_LOCKED');
      input.vault.set(qdrantSecretName(id), input.qdrantApiKey);
      await input.vault.save();
      cfg.qdrant = { ...cfg.qdrant!, apiKeyRef: qdrantSecretName(id) };
    }
    // Create or validate the collection now: a wrong dimension or distance is refused before
    // the store exists or anything is embedded.
    await (await openQdrant(cfg, home)).ensureCollection();
  }
  await clearLeftoverDir(id, home);
  await saveStore(cfg, home);
  await refreshStatusAfter(home);
  return cfg;
}

/**
 * A directory of this id without store.json (a store half-created, or half-deleted by an older
 * version) must not lend its snapshot to a new store of the same name. A damaged store.json is
 * reported (by loadStore), never cleared away.
 */
async function clearLeftoverDir(id: string, home: string): Promise<void> {
  try {
    await loadStore(id, home);
  } catch (err) {
    if (!isKorttyError(err, 'STORE_NOT_FOUND')) throw err;
    if (!(await nodeFsEnv.exists(storeDir(id, home)))) return;
    await removeTombstone(await tombstoneStoreDir(id, home));
    return;
  }
  throw createError('STORE_EXISTS', { name: id });
}

/** Deletes only the store's own directory; refused while attached to a role unless `detach`. */
export async function deleteStore(nameOrId: string, opts: { detach?: boolean } = {}, home = korttyHome()) {
  const cfg = await findStore(nameOrId, home);
  if (cfg.roles.length > 0 && !opts.detach) {
    throw createError('STORE_ATTACHED', { name: cfg.name, roles: cfg.roles.join(', ') });
  }
  const lock = await acquireLock(storeLockPath(cfg.id, home), cfg.name, { job: 'delete' });
  let tomb: string;
  try {
    if (cfg.type === 'qdrant') {
      const { deleteQdrantSources } = await import('./qdrant-bridge.js');
      await deleteQdrantSources(cfg, home);
    }
    killPoint('delete-locked');
    await lock.assertHeld();
    // Out of use under the lock: no job can start on it between here and its removal.
    tomb = await tombstoneStoreDir(cfg.id, home);
    killPoint('delete-synced');
  } finally {
    await lock.release(); // the lock moved with the directory: nothing left to remove
  }
  await removeTombstone(tomb);
  await refreshStatusAfter(home);
  return { dir: storeDir(cfg.id, home), store: cfg };
}

export interface AddSourceInput {
  kind: 'file' | 'folder';
  path: string;
  sync?: SyncMode;
  options?: Partial<SourceOptions>;
}

export function newSourceRecord(
  input: AddSourceInput,
  existing: readonly SourceRecord[],
  home = korttyHome(),
): SourceRecord {
  const conflict = dataDirConflict(resolve(input.path), home);
  if (conflict) throw conflict;
  const abs = checkNewSource(input.kind, input.path, existing);
  const options = resolveSourceOptions({ ...DEFAULT_SOURCE_OPTIONS, ...input.options });
  return {
    id: sourceIdFor(input.kind, abs),
    path: abs,
    kind: input.kind,
    sync: input.sync ?? 'manual',
    enabled: true,
    options,
    status: 'NEW',
    files: 0,
    chunks: 0,
    problems: 0,
    problemList: [],
    skipped: 0,
    skippedList: [],
    hashes: {},
  };
}

export async function addSources(
  storeRef: string,
  inputs: AddSourceInput[],
  hooks: JobHooks = {},
  home = korttyHome(),
) {
  const cfg = await findStore(storeRef, home);
  const added: SourceRecord[] = [];
  for (const input of inputs) added.push(newSourceRecord(input, [...cfg.sources, ...added], home));
  return job(cfg, { addSources: added }, hooks, home);
}

export async function updateSources(
  storeRef: string,
  sourceRefs: string[] | 'all',
  hooks: JobHooks = {},
  home = korttyHome(),
) {
  const cfg = await findStore(storeRef, home);
  const ids =
    sourceRefs === 'all' ? cfg.sources.map((s) => s.id) : sourceRefs.map((r) => requireSource(cfg, r).id);
  return job(cfg, { sourceIds: ids }, hooks, home);
}

export async function removeSource(
  storeRef: string,
  sourceRef: string,
  hooks: JobHooks = {},
  home = korttyHome(),
) {
  const cfg = await findStore(storeRef, home);
  const src = requireSource(cfg, sourceRef);
  return job(cfg, { removeSourceIds: [src.id] }, hooks, home);
}

/** Explicit model change: every source is embedded again with the new model. */
export async function rebuildStore(
  storeRef: string,
  modelId: string | undefined,
  hooks: JobHooks = {},
  home = korttyHome(),
) {
  const cfg = await findStore(storeRef, home);
  const model = await resolveModel(modelId ?? cfg.modelId, home);
  return job(
    cfg,
    {
      sourceIds: cfg.sources.map((s) => s.id),
      rebuild: { modelId: modelId ?? cfg.modelId, fingerprint: model.fingerprint },
    },
    hooks,
    home,
  );
}

export async function setSourceEnabled(
  storeRef: string,
  sourceRef: string,
  enabled: boolean,
  home = korttyHome(),
) {
  return mutate(storeRef, home, (cfg) => {
    const src = requireSource(cfg, sourceRef);
    src.enabled = enabled;
    if (!enabled) src.status = 'DISABLED';
    else if (src.status === 'DISABLED') src.status = src.lastIndexedAt ? 'READY' : 'NEW';
    return src;
  });
}

export async function setSourceSync(
  storeRef: string,
  sourceRef: string,
  sync: SyncMode,
  home = korttyHome(),
) {
  return mutate(storeRef, home, (cfg) => {
    const src = requireSource(cfg, sourceRef);
    src.sync = sync;
    return src;
  });
}

/** Per-source Advanced options (size limit, globs, .gitignore); they apply from the next scan. */
export async function setSourceOptions(
  storeRef: string,
  sourceRef: string,
  options: Partial<SourceOptions>,
  home = korttyHome(),
) {
  return mutate(storeRef, home, (cfg) => {
    const src = requireSource(cfg, sourceRef);
    src.options = resolveSourceOptions({ ...src.options, ...options });
    return src;
  });
}

export async function setStoreRoles(
  storeRef: string,
  roles: Role[],
  autonomous: boolean | undefined,
  home = korttyHome(),
) {
  return mutate(storeRef, home, (cfg) => {
    cfg.roles = [...new Set(roles)].sort();
    if (autonomous !== undefined) cfg.autonomous = autonomous;
    return cfg;
  });
}

/** Marks limited monitoring (watcher) without touching the snapshot. */
export async function setLimitedMonitoring(
  storeRef: string,
  sourceId: string,
  reason: string | undefined,
  home = korttyHome(),
) {
  return mutate(storeRef, home, (cfg) => {
    const src = requireSource(cfg, sourceId);
    if (reason) src.limitedMonitoring = reason;
    else delete src.limitedMonitoring;
    return src;
  });
}

export async function storeStats(cfg: StoreConfig, home = korttyHome()) {
  const snap =
    cfg.type === 'local'
      ? await openSnapshot(snapshotPath(cfg.id, home), { expectFingerprint: cfg.fingerprint })
      : null;
  const docs = snap?.data.docs ?? [];
  snap?.close();
  return { documents: docs.length, chunks: docs.reduce((n, d) => n + d.chunks.length, 0) };
}

export { findStore, listStores, loadStore, scanStores };

function requireSource(cfg: StoreConfig, ref: string): SourceRecord {
  const src = findSource(cfg.sources, ref);
  if (!src) throw createError('SOURCE_UNKNOWN', { id: resolve(ref), store: cfg.name });
  return src;
}

async function mutate<T>(storeRef: string, home: string, fn: (cfg: StoreConfig) => T): Promise<T> {
  const cfg0 = await findStore(storeRef, home);
  const lock = await acquireLock(storeLockPath(cfg0.id, home), cfg0.name, { job: 'edit' });
  try {
    const cfg = await loadStore(cfg0.id, home);
    const out = fn(cfg);
    await saveStore(cfg, home);
    return out;
  } finally {
    await lock.release();
    await refreshStatusAfter(home);
  }
}

async function job(
  cfg: StoreConfig,
  req: Pick<Parameters<typeof runSync>[0], 'addSources' | 'sourceIds' | 'removeSourceIds' | 'rebuild'>,
  hooks: JobHooks,
  home: string,
): Promise<SyncResult> {
  const publisher = createJobPublisher(cfg.id, cfg.name, home);
  const lines = createStatusLineRenderer(scanStores, home);
  const ports = hooks.ports ?? (await defaultPortsFor(cfg, home));
  const jobHooks = hooksFor(hooks, publisher, lines);
  try {
    if (cfg.type === 'qdrant') {
      const { runQdrantSync } = await import('./qdrant-bridge.js');
      return await runQdrantSync({ ...req, storeId: cfg.id, home, ports, ...jobHooks });
    }
    return await runSync({ ...req, storeId: cfg.id, home, ports, ...jobHooks });
  } catch (err) {
    await recordSyncFailure(cfg, req.sourceIds ?? [], err, home);
    throw err;
  } finally {
    await publisher.clear();
    await lines.settle();
    await refreshStatusAfter(home);
  }
}

function hooksFor(
  hooks: JobHooks,
  publisher: ReturnType<typeof createJobPublisher>,
  lines: ReturnType<typeof createStatusLineRenderer>,
) {
  return {
    retryFailed: hooks.retryFailed,
    confirm: hooks.confirm,
    signal: hooks.signal,
    onProgress: (p: JobProgress) => {
      // The pre-rendered status line follows the progress file (throttled to once a second).
      lines.poke(publisher.publish(p));
      hooks.onProgress?.(p);
    },
  };
}

/**
 * A sync that failed as a whole leaves the snapshot and the sources' data as they were, but the
 * sources it was updating show ERROR with the reason (source list, status line, TUI) until a
 * later sync succeeds; otherwise a watcher whose every sync fails would show READY and idle.
 * Cancellation, a busy store and a lost lock are not failures of these sources. A source that
 * another job changed meanwhile keeps that job's outcome.
 */
async function recordSyncFailure(cfg: StoreConfig, sourceIds: string[], err: unknown, home: string) {
  if (sourceIds.length === 0 || isKorttyError(err, 'JOB_CANCELLED') || isKorttyError(err, 'STORE_BUSY'))
    return;
  const reason = `sync failed: ${(err as Error)?.message ?? String(err)}`;
  let lock: Awaited<ReturnType<typeof acquireLock>>;
  try {
    lock = await acquireLock(storeLockPath(cfg.id, home), cfg.name, { job: 'record failure' });
  } catch {
    return; // another job runs: its outcome is the news
  }
  try {
    const now = await loadStore(cfg.id, home);
    let changed = false;
    for (const src of now.sources) {
      const before = cfg.sources.find((s) => s.id === src.id);
      if (!sourceIds.includes(src.id) || !before || JSON.stringify(before) !== JSON.stringify(src)) continue;
      src.status = 'ERROR';
      src.statusReason = reason;
      changed = true;
    }
    if (changed) await saveStore(now, home);
  } catch {
    // Best effort: the job's own error is what the caller reports.
  } finally {
    await lock.release();
  }
}

async function defaultPortsFor(_cfg: StoreConfig, home: string): Promise<PipelinePorts> {
  const { createDefaultPorts } = await import('./default-ports.js');
  return createDefaultPorts(home);
}

/**
 * The status cache after a command changed the stores. The change is committed by then: a cache
 * that cannot be written (a full disk, a read-only rag/) is said, never turned into a failure.
 */
async function refreshStatusAfter(home: string): Promise<void> {
  try {
    await refreshStatusFile(scanStores, home);
  } catch (err) {
    process.stderr.write(
      `kortty-rag: warning: the status cache was not updated (${errReason(err)}); the status bar catches up on the next refresh\n`,
    );
  }
}
