import { createError, isKorttyError } from '../errors.js';
import { openSnapshot } from '../index/snapshot-io.js';
import { createQdrantStore, type PointInput, type QdrantStore } from '../qdrant/adapter.js';
import type { StoreBackend } from '../retrieve/search.js';
import { acquireLock } from '../storage/lock.js';
import { korttyHome, snapshotPath, storeLockPath, vaultPath } from '../storage/paths.js';
import type { Candidate } from '../types.js';
import { passphraseFromEnv } from '../vault/passphrase.js';
import { openVault, qdrantSecretName } from '../vault/vault.js';
import { runSync, type SyncRequest, type SyncResult } from './index-job.js';
import { loadStore, saveStore } from './store-config.js';
import type { StoreConfig } from './store-types.js';

// A Qdrant store keeps the same local snapshot as a local store (it is the record of documents,
// hashes and vectors, so unchanged documents are never embedded again) and mirrors each changed
// source into the collection, one source at a time: upload a new generation, record it as active
// in store.json, prune older generations. A failed upload leaves the previous generation visible
// and marks the source ERROR + dirty, so the next update pushes it again.

export async function openQdrant(cfg: StoreConfig, home = korttyHome()): Promise<QdrantStore> {
  if (!cfg.qdrant)
    throw createError('INVALID_ARGUMENT', {
      name: 'qdrant',
      reason: `store "${cfg.name}" has no Qdrant settings`,
    });
  let apiKey: string | undefined;
  if (cfg.qdrant.apiKeyRef) {
    const pass = passphraseFromEnv(process.env);
    if (!pass) throw createError('VAULT_LOCKED');
    const vault = await openVault(pass, { path: vaultPath(home) });
    apiKey = vault.get(cfg.qdrant.apiKeyRef);
  }
  return createQdrantStore({
    url: cfg.qdrant.url,
    apiKey,
    collection: cfg.qdrant.collection,
    dimension: cfg.fingerprint.dimension,
    storeId: cfg.id,
  });
}

export { qdrantSecretName };

export async function runQdrantSync(req: SyncRequest): Promise<SyncResult> {
  const home = req.home ?? korttyHome();
  const before = await loadStore(req.storeId, home);
  const qdrant = await openQdrant(before, home);
  // Refuse a mismatching collection before any embedding is paid for.
  await qdrant.ensureCollection();
  const result = await runSync(req);
  await pushChanged(before, qdrant, home);
  return result;
}

async function pushChanged(before: StoreConfig, qdrant: QdrantStore, home: string) {
  const lock = await acquireLock(storeLockPath(before.id, home), before.name, { job: 'qdrant push' });
  try {
    const cfg = await loadStore(before.id, home);
    const snap = await openSnapshot(snapshotPath(cfg.id, home), { expectFingerprint: cfg.fingerprint });
    const docs = snap?.data.docs ?? [];
    snap?.close();
    const prevById = new Map(before.sources.map((s) => [s.id, s]));
    for (const gone of before.sources.filter((s) => !cfg.sources.some((x) => x.id === s.id))) {
      await qdrant.deleteSource(gone.id);
    }
    for (const src of cfg.sources) {
      const prev = prevById.get(src.id);
      const unchanged =
        prev &&
        JSON.stringify(prev.hashes) === JSON.stringify(src.hashes) &&
        src.qdrantGeneration &&
        !src.qdrantDirty;
      if (unchanged || src.status === 'ERROR') continue;
      const points: PointInput[] = docs
        .filter((d) => d.sourceId === src.id)
        .flatMap((d) =>
          d.chunks.map((c) => ({
            chunkId: c.id,
            vector: c.vector,
            payload: {
              path: d.path,
              contentHash: d.sha256,
              text: c.text,
              chunkIndex: c.index,
              tokens: c.tokens,
              lineStart: c.lineStart,
              lineEnd: c.lineEnd,
              pageStart: c.pageStart,
              pageEnd: c.pageEnd,
            },
          })),
        );
      try {
        const { generation } = await qdrant.replaceSource(src.id, points);
        src.qdrantGeneration = generation;
        delete src.qdrantDirty;
        await saveStore(cfg, home);
        await qdrant.pruneSource(src.id, generation).catch(() => {}); // stale generations are invisible anyway
      } catch (err) {
        src.status = 'ERROR';
        src.statusReason = `Qdrant update failed: ${isKorttyError(err) ? err.message : String(err)}`;
        src.qdrantDirty = true;
        await saveStore(cfg, home);
      }
    }
  } finally {
    await lock.release();
  }
}

export async function deleteQdrantSources(cfg: StoreConfig, home = korttyHome()): Promise<void> {
  const qdrant = await openQdrant(cfg, home);
  await qdrant.deleteStorePoints(cfg.sources.map((s) => s.id));
}

/** Vector-only search backend (Qdrant has no BM25 over our chunks; see README). */
export async function qdrantBackend(cfg: StoreConfig, home = korttyHome()): Promise<StoreBackend> {
  const qdrant = await openQdrant(cfg, home);
  return {
    async vector(q, k, allowed) {
      const active = cfg.sources
        .filter((s) => allowed.has(s.id) && s.qdrantGeneration)
        .map((s) => ({ sourceId: s.id, generation: s.qdrantGeneration! }));
      if (active.length === 0) return [];
      const hits = await qdrant.search(q, k, active);
      return hits.map(
        (h): Candidate => ({
          key: `${cfg.id}:${h.chunkId}`,
          storeId: cfg.id,
          storeName: cfg.name,
          sourceId: h.sourceId,
          path: h.meta.path,
          lineStart: h.meta.lineStart,
          lineEnd: h.meta.lineEnd,
          pageStart: h.meta.pageStart,
          pageEnd: h.meta.pageEnd,
          text: h.meta.text,
          tokens: h.meta.tokens ?? 0,
          vectorScore: h.score,
          fusedScore: 0,
          chunkId: h.chunkId,
          contentSha256: h.meta.contentHash,
        }),
      );
    },
    close() {},
  };
}
