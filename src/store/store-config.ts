import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import transliterate from '@sindresorhus/transliterate';
import { createError, isKorttyError, type KorttyError } from '../errors.js';
import { atomicWrite, errReason } from '../storage/atomic-write.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { readJsonFile } from '../storage/json-file.js';
import {
  korttyHome,
  STORE_TOMBSTONE_PREFIX,
  storeConfigPath,
  storeDir,
  storesDir,
  storeTombstonePath,
} from '../storage/paths.js';
import { tightenDataDir } from '../storage/private-files.js';
import { type HealthKind, readStoreHealth } from '../storage/store-health.js';
import { parseJsonText } from '../util/json-check.js';
import { killPoint } from '../util/kill-points.js';
import { migrateSourceCounts } from './source-counts.js';
import { type StoreConfig, storeConfigSchema } from './store-types.js';

// store.json: configuration + source table. The snapshot, not this file, is the truth about
// what is indexed; this file is replaced atomically after each activation.

/**
 * The directory name of a new store: a readable slug of its name (transliterated to ASCII, so
 * "Заметки" → zametki), plus a short hash of the whole name whenever the slug alone does not spell
 * the name exactly (case, punctuation, spaces, scripts without a transliteration, emoji, length).
 * Two names never share an id: a slug-only id is the name itself, and a hashed id contains `_`,
 * which no slug does. Existing stores keep the id recorded in their store.json; `hashed` asks for
 * the hashed form even when the slug is exact (the slug is taken by an older store's directory).
 */
export function storeIdFor(name: string, opts: { hashed?: boolean } = {}): string {
  const slug = transliterate(name.normalize('NFC'))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  if (slug && slug === name && !opts.hashed) return slug;
  const hash = createHash('sha256').update(name.normalize('NFC')).digest('hex').slice(0, 8);
  return `${slug || 'store'}_${hash}`;
}

export async function loadStore(id: string, home = korttyHome()): Promise<StoreConfig> {
  const stored = await readJsonFile(storeConfigPath(id, home), storeConfigSchema, 'store configuration');
  if (!stored) throw createError('STORE_NOT_FOUND', { name: id });
  // Records from before skipped files were counted apart from problems.
  return { ...stored, sources: stored.sources.map(migrateSourceCounts) };
}

export async function saveStore(
  cfg: StoreConfig,
  home = korttyHome(),
  env: FsEnv = nodeFsEnv,
): Promise<void> {
  const path = storeConfigPath(cfg.id, home);
  try {
    // A new directory's entry is durable only once its parent is fsynced; without that a power
    // cut could lose a store (and its first snapshot) that was reported created (STORAGE.md).
    const dir = storeDir(cfg.id, home);
    const missing: string[] = [];
    for (let d = dir; d !== dirname(d) && !(await env.exists(d)); d = dirname(d)) missing.push(d);
    if (missing.length > 0) {
      await env.mkdir(dir);
      for (const d of missing.reverse()) await env.syncDir(dirname(d));
    }
    const bytes = Buffer.from(`${JSON.stringify(cfg, null, 2)}\n`);
    await atomicWrite(path, bytes, {
      env,
      // What is read back must load: the same schema loadStore checks.
      verify: (b) => {
        parseJsonText(b, storeConfigSchema, path, 'store configuration');
      },
    });
  } catch (err) {
    // Node's errors for writes and fsyncs on a descriptor do not name the file.
    if (isKorttyError(err)) throw err;
    throw createError('IO_FAILED', { path, op: 'write store.json', reason: errReason(err) }, err);
  }
}

export async function listStoreIds(home = korttyHome()): Promise<string[]> {
  try {
    const names = await readdir(storesDir(home), { withFileTypes: true });
    await removeTombstones(
      home,
      names.map((d) => d.name),
    );
    return names
      .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** A store directory whose store.json cannot be used: listed, never silently dropped. */
export interface DamagedStore {
  id: string;
  /** The name, when the file still says one. */
  name?: string;
  path: string;
  error: KorttyError;
}

/**
 * Every store directory: the usable stores and the damaged ones (store.json unreadable or not
 * matching its schema). A directory without store.json is a half-created store, not a store.
 */
export async function scanStores(
  home = korttyHome(),
): Promise<{ stores: StoreConfig[]; damaged: DamagedStore[]; unhealthy: UnhealthyStore[] }> {
  const stores: StoreConfig[] = [];
  const damaged: DamagedStore[] = [];
  const ids = await listStoreIds(home);
  // Data written by an older version under a permissive umask is made owner-only on opening.
  await tightenDataDir(home, ids);
  for (const id of ids) {
    try {
      stores.push(await loadStore(id, home));
    } catch (err) {
      if (isKorttyError(err, 'STORE_NOT_FOUND')) continue;
      const path = storeConfigPath(id, home);
      damaged.push({ id, name: await nameIn(path), path, error: asKorttyError(err, path) });
    }
  }
  const health = await readStoreHealth(home);
  const unhealthy = stores.flatMap((s) => {
    const h = health.get(s.id);
    return h ? [{ id: s.id, name: s.name, kind: h.kind, reason: h.reason, fix: h.fix, at: h.at }] : [];
  });
  return { stores, damaged, unhealthy };
}

/**
 * A usable store (its store.json is fine) that the last search could not use: its snapshot is
 * damaged, or its Qdrant server did not answer. It stays in `stores`: rebuild needs it.
 */
export interface UnhealthyStore {
  id: string;
  name: string;
  kind: HealthKind;
  reason: string;
  fix: string;
  at: string;
}

/** The status word for an unhealthy store (store list, status, the TUI). */
export function healthLabel(kind: HealthKind): 'DAMAGED' | 'UNREACHABLE' {
  return kind === 'damaged' ? 'DAMAGED' : 'UNREACHABLE';
}

/**
 * What a caller that answers from every store says about one it had to leave out: which store,
 * which file and field (the error names both). Plain text; print it through the sanitizer.
 */
export function damagedStoreWarning(d: DamagedStore): string {
  return `store ${d.name ?? d.id} skipped: ${d.error.message}`;
}

/** The usable stores (see scanStores for the damaged ones). */
export async function listStores(home = korttyHome()): Promise<StoreConfig[]> {
  return (await scanStores(home)).stores;
}

/** Find a store by id or by name; a damaged store's error names its file and field. */
export async function findStore(nameOrId: string, home = korttyHome()): Promise<StoreConfig> {
  const { stores, damaged } = await scanStores(home);
  const hit = stores.find((s) => s.id === nameOrId) ?? stores.find((s) => s.name === nameOrId);
  if (hit) return hit;
  const bad = damaged.find((d) => d.id === nameOrId) ?? damaged.find((d) => d.name === nameOrId);
  if (bad) throw bad.error;
  throw createError('STORE_NOT_FOUND', { name: nameOrId });
}

/** The `name` a damaged store.json still holds, so the user can recognise the store. */
async function nameIn(path: string): Promise<string | undefined> {
  try {
    const raw = JSON.parse(await readFile(path, 'utf8')) as { name?: unknown };
    return typeof raw?.name === 'string' ? raw.name : undefined;
  } catch {
    return undefined;
  }
}

function asKorttyError(err: unknown, path: string): KorttyError {
  return isKorttyError(err)
    ? err
    : createError('IO_FAILED', { path, op: 'read', reason: errReason(err) }, err);
}

/**
 * Takes the store's directory out of use in one step: renamed to a tombstone (a name no listing
 * or new store picks up) and the rename made durable. Call under the store's lock (which moves
 * with the directory); then removeTombstone. A crash at any point leaves the whole store or no
 * store: never a store.json without its snapshot, nor a snapshot a new store of the name reuses.
 */
export async function tombstoneStoreDir(id: string, home = korttyHome(), env: FsEnv = nodeFsEnv) {
  if (!id || id.includes('/') || id.startsWith('.'))
    throw createError('INVALID_ARGUMENT', { name: 'store id', reason: id });
  const dir = storeDir(id, home);
  const tomb = storeTombstonePath(id, randomBytes(6).toString('hex'), home);
  try {
    await env.rename(dir, tomb);
    killPoint('delete-tombstoned');
    await env.syncDir(storesDir(home));
  } catch (err) {
    throw createError('IO_FAILED', { path: dir, op: 'delete store', reason: errReason(err) }, err);
  }
  return tomb;
}

/** Removes a tombstone made by tombstoneStoreDir. Never touches source documents. */
export async function removeTombstone(tomb: string): Promise<void> {
  if (!basename(tomb).startsWith(STORE_TOMBSTONE_PREFIX))
    throw createError('INVALID_ARGUMENT', { name: 'tombstone', reason: tomb });
  await rm(tomb, { recursive: true, force: true });
}

/** Tombstones left by a delete that was killed: garbage from the moment of their rename. */
async function removeTombstones(home: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    if (!name.startsWith(STORE_TOMBSTONE_PREFIX)) continue;
    // Another process may be removing it right now: both removals are idempotent.
    await rm(join(storesDir(home), name), { recursive: true, force: true }).catch(() => {});
  }
}
