import { openSnapshot } from '../index/snapshot-io.js';
import type { OpenSnapshot } from '../index/snapshot-search.js';
import {
  type QueryEmbedder,
  type SearchDeps,
  STORE_DEADLINE_MS,
  snapshotBackend,
} from '../retrieve/search.js';
import { korttyHome, snapshotPath } from '../storage/paths.js';
import { fileIdentity, recordStoreHealth } from '../storage/store-health.js';
import type { StoreConfig } from '../store/store-types.js';
import { createInstalledNames } from './installed-names-file.js';

export type AppSearchDeps = SearchDeps<StoreConfig> & { close(): Promise<void> };

/**
 * The wired search dependencies, with per-process caches (a TUI, a long `ask`, the query service
 * and the MCP server reuse models and snapshots): each store's own embedding model, and its
 * local snapshot or Qdrant collection.
 */
export function createSearchDeps(home = korttyHome(), env: NodeJS.ProcessEnv = process.env): AppSearchDeps {
  const embedders = new Map<string, Promise<QueryEmbedder & { close(): Promise<void> }>>();
  // Keyed by the file's identity: activation renames a new file into place, so a new snapshot
  // always has a new inode even when size and mtime happen to match the old one.
  const snaps = new Map<string, { identity: string; snap: OpenSnapshot | null }>();
  return {
    storeDeadlineMs: storeDeadlineFromEnv(env),
    installedNames: createInstalledNames(env),
    // Remembered for status, store list and the TUI; a failure to remember never fails a search.
    // The status cache is refreshed when the health changed, so the status bar shows it at once.
    onSearched: async ({ failed, answered }) => {
      try {
        if (await recordStoreHealth(home, failed, answered))
          await (await import('./status.js')).refreshStatus(home);
      } catch {}
    },
    embedderFor(store) {
      const key = store.fingerprint.fileSha256 + store.fingerprint.queryPrefix;
      let e = embedders.get(key);
      if (!e) {
        e = (async () => {
          // Loaded on first use: a lexical-only search or a Qdrant-free session never pays for them.
          const { resolveModel } = await import('../store/model-resolve.js');
          const { createEmbedder } = await import('../embed/provider.js');
          const m = await resolveModel(store.modelId, home);
          return createEmbedder({
            modelPath: m.path,
            modelId: store.modelId,
            sha256: m.sha256,
            fingerprint: store.fingerprint,
            storeName: store.name,
          });
        })();
        embedders.set(key, e);
        e.catch(() => embedders.delete(key));
      }
      return e;
    },
    async backendFor(store) {
      if (store.type === 'qdrant') {
        const { qdrantBackend } = await import('../store/qdrant-bridge.js');
        return qdrantBackend(store, home);
      }
      const path = snapshotPath(store.id, home);
      const identity = await fileIdentity(path);
      const cached = snaps.get(store.id);
      let snap: OpenSnapshot | null;
      if (cached && cached.identity === identity) snap = cached.snap;
      else {
        cached?.snap?.close();
        snaps.delete(store.id);
        snap = identity === '' ? null : await openSnapshot(path, { expectFingerprint: store.fingerprint });
        snaps.set(store.id, { identity, snap });
      }
      if (!snap) return null;
      // The cache owns the snapshot; closing the backend is a no-op.
      return { ...snapshotBackend(store, snap), close: () => {} };
    },
    async close() {
      for (const e of embedders.values()) await e.then((x) => x.close()).catch(() => {});
      for (const s of snaps.values()) s.snap?.close();
      embedders.clear();
      snaps.clear();
    },
  };
}

/**
 * KORTTY_STORE_DEADLINE_MS: how long one store may take before a search leaves it out (default
 * STORE_DEADLINE_MS). A value that is not a whole number of at least 1 is ignored, said once.
 */
function storeDeadlineFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.KORTTY_STORE_DEADLINE_MS;
  if (raw === undefined || raw === '') return STORE_DEADLINE_MS;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  process.stderr.write(
    `kortty-rag: KORTTY_STORE_DEADLINE_MS=${JSON.stringify(raw).slice(0, 40)} is not a whole number of milliseconds; using ${STORE_DEADLINE_MS}\n`,
  );
  return STORE_DEADLINE_MS;
}
