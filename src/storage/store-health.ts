import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { atomicWrite } from './atomic-write.js';
import { readJsonFile } from './json-file.js';
import { korttyHome, snapshotPath, storeHealthPath } from './paths.js';

// Stores a search had to leave out, remembered so `status`, `store list` and the TUI can show
// them as DAMAGED or UNREACHABLE without opening every snapshot or calling every server.
// The record is advisory: a damaged snapshot's entry holds the snapshot file's identity and
// stops counting as soon as another file is in place (a rebuild renames a new one in); an
// unreachable store's entry lasts until a search reaches it again. A health file that cannot be
// read is treated as empty (it is rewritten on the next change).

export type HealthKind = 'damaged' | 'unreachable';

const entrySchema = z.object({
  kind: z.enum(['damaged', 'unreachable']),
  name: z.string(),
  reason: z.string(),
  fix: z.string(),
  /** For `damaged`: the snapshot file's identity when it was found damaged. */
  snapshot: z.string().optional(),
  at: z.string(),
});
const healthSchema = z.object({ stores: z.record(z.string(), entrySchema) });
export type StoreHealth = z.infer<typeof entrySchema>;

/** A file's identity: a renamed-in replacement always differs (new inode), even at equal size. */
export async function fileIdentity(path: string): Promise<string> {
  return stat(path).then(
    (s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`,
    () => '',
  );
}

async function readAll(home: string): Promise<Record<string, StoreHealth>> {
  try {
    return (await readJsonFile(storeHealthPath(home), healthSchema, 'store health'))?.stores ?? {};
  } catch {
    return {};
  }
}

/** The stores (by id) that are damaged or unreachable now, as far as searches have seen. */
export async function readStoreHealth(home = korttyHome()): Promise<Map<string, StoreHealth>> {
  const out = new Map<string, StoreHealth>();
  for (const [id, h] of Object.entries(await readAll(home))) {
    if (h.kind === 'damaged' && h.snapshot !== (await fileIdentity(snapshotPath(id, home)))) continue;
    out.set(id, h);
  }
  return out;
}

/**
 * After a search: the stores it left out are recorded, the ones that answered cleared. Writes
 * only when something changed, so a search over healthy stores costs one small read. True when
 * it wrote.
 */
export async function recordStoreHealth(
  home: string,
  failed: readonly { storeId: string; storeName: string; kind: HealthKind; reason: string; fix: string }[],
  answered: readonly string[],
): Promise<boolean> {
  const before = await readAll(home);
  const next = { ...before };
  let changed = false;
  for (const id of answered) {
    if (next[id]) {
      delete next[id];
      changed = true;
    }
  }
  for (const f of failed) {
    const snapshot = f.kind === 'damaged' ? await fileIdentity(snapshotPath(f.storeId, home)) : undefined;
    const prev = next[f.storeId];
    if (prev && prev.kind === f.kind && prev.reason === f.reason && prev.snapshot === snapshot) continue;
    next[f.storeId] = {
      kind: f.kind,
      name: f.storeName,
      reason: f.reason,
      fix: f.fix,
      ...(snapshot !== undefined ? { snapshot } : {}),
      at: new Date().toISOString(),
    };
    changed = true;
  }
  if (!changed) return false;
  await atomicWrite(storeHealthPath(home), Buffer.from(JSON.stringify({ stores: next })), { mode: 0o600 });
  return true;
}
