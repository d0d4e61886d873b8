import { readdir, stat } from 'node:fs/promises';
import { snapshotPath, storeConfigPath, storesDir } from '../storage/paths.js';
import { damagedStoreWarning, scanStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';

// The service's view of the stores, kept current without a restart. Before each request it takes
// the identity (device, inode, size, mtime in ns) of every store.json and index.hnsw: both are only
// ever replaced by rename, so a new file always has a new inode and a half-written one is never
// visible. Only when an identity changed does it re-read (and re-validate) the store files, and
// the generation counter goes up; snapshots themselves are reopened by the search dependencies'
// own identity check. One readdir and two stats per store per request: a few microseconds each.

export interface StoreView {
  stores: StoreConfig[];
  /** One line per store left out because its store.json is damaged (file and field). */
  warnings: string[];
  /** Bumps whenever a store, its configuration or its active snapshot changed. */
  generation: number;
}

export interface StoreCatalog {
  current(): Promise<StoreView>;
}

async function identity(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return '-';
  }
}

export async function readIdentities(home: string): Promise<Map<string, string>> {
  let ids: string[] = [];
  try {
    ids = (await readdir(storesDir(home))).sort();
  } catch {}
  const out = new Map<string, string>();
  await Promise.all(
    ids.map(async (id) => {
      const [cfg, snap] = await Promise.all([
        identity(storeConfigPath(id, home)),
        identity(snapshotPath(id, home)),
      ]);
      out.set(id, `${cfg}|${snap}`);
    }),
  );
  return out;
}

const configPart = (v: string | undefined) => v?.split('|')[0];

async function loadStores(home: string): Promise<{ stores: StoreConfig[]; warnings: string[] }> {
  const { stores, damaged } = await scanStores(home);
  return { stores, warnings: damaged.map(damagedStoreWarning) };
}

export function createStoreCatalog(
  home: string,
  load: (home: string) => Promise<{ stores: StoreConfig[]; warnings: string[] }> = loadStores,
): StoreCatalog {
  let seen = new Map<string, string>();
  let view: StoreView | undefined;
  let generation = 0;
  let inflight: Promise<StoreView> | undefined;

  const refresh = async (): Promise<StoreView> => {
    const now = await readIdentities(home);
    const sameSet = now.size === seen.size && [...now.keys()].every((k) => seen.has(k));
    const configsSame = sameSet && [...now].every(([k, v]) => configPart(v) === configPart(seen.get(k)));
    const allSame = sameSet && [...now].every(([k, v]) => v === seen.get(k));
    if (view && allSame) return view;
    const loaded = view && configsSame ? view : await load(home);
    generation++;
    seen = now;
    view = { stores: loaded.stores, warnings: loaded.warnings, generation };
    return view;
  };

  return {
    current() {
      // Concurrent callers share one refresh.
      inflight ??= refresh().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
  };
}
