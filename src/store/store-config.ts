import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createError, isKorttyError } from '../errors.js';
import { atomicWrite, errReason } from '../storage/atomic-write.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { korttyHome, storeConfigPath, storeDir, storesDir } from '../storage/paths.js';
import { migrateSourceCounts } from './source-counts.js';
import type { StoreConfig } from './store-types.js';

// store.json: configuration + source table. The snapshot, not this file, is the truth about
// what is indexed; this file is replaced atomically after each activation.

export function storeIdFor(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug || 'store';
}

export async function loadStore(id: string, home = korttyHome()): Promise<StoreConfig> {
  const path = storeConfigPath(id, home);
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw createError('STORE_NOT_FOUND', { name: id });
    throw err;
  }
  let cfg: StoreConfig;
  try {
    cfg = JSON.parse(raw) as StoreConfig;
  } catch (err) {
    throw createError('SNAPSHOT_CORRUPT', { path, reason: `invalid JSON: ${(err as Error).message}` });
  }
  // Records from before skipped files were counted apart from problems.
  if (Array.isArray(cfg?.sources)) cfg.sources = cfg.sources.map(migrateSourceCounts);
  return cfg;
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
      verify: (b) => {
        JSON.parse(b.toString('utf8'));
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
    return names
      .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

export async function listStores(home = korttyHome()): Promise<StoreConfig[]> {
  const out: StoreConfig[] = [];
  for (const id of await listStoreIds(home)) {
    try {
      out.push(await loadStore(id, home));
    } catch {
      // A directory without a readable store.json is not a store (e.g. a half-created one).
    }
  }
  return out;
}

/** Find a store by id or by name. */
export async function findStore(nameOrId: string, home = korttyHome()): Promise<StoreConfig> {
  const stores = await listStores(home);
  const hit = stores.find((s) => s.id === nameOrId) ?? stores.find((s) => s.name === nameOrId);
  if (!hit) throw createError('STORE_NOT_FOUND', { name: nameOrId });
  return hit;
}

/** Remove exactly the store's own directory under rag/stores/. Never touches source documents. */
export async function removeStoreDir(id: string, home = korttyHome()): Promise<string> {
  const dir = storeDir(id, home);
  if (!id || id.includes('/') || id.startsWith('.'))
    throw createError('INVALID_ARGUMENT', { name: 'store id', reason: id });
  await rm(dir, { recursive: true, force: true });
  return dir;
}
