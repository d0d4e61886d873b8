import { catalogEntry, defaultModelId } from '../embed/catalog.js';
import { computeFingerprint } from '../embed/fingerprint.js';
import { listInstalled, verifyInstalled } from '../embed/model-registry.js';
import { ensureStarterModel, STARTER_MODEL_ID } from '../embed/starter-model.js';
import { korttyHome } from '../storage/paths.js';
import type { ModelFingerprint } from '../types.js';

// Bridges a store's model id to a verified file on disk and its fingerprint. The starter model
// is generated on first use (offline); installed models are hash-checked before each use.

export interface ResolvedModel {
  modelId: string;
  path: string;
  sha256: string;
  fingerprint: ModelFingerprint;
}

export async function resolveModel(modelId: string, home = korttyHome()): Promise<ResolvedModel> {
  if (modelId === STARTER_MODEL_ID) {
    const { path, sha256 } = await ensureStarterModel(home);
    return {
      modelId,
      path,
      sha256,
      fingerprint: await computeFingerprint({ modelPath: path, modelId, sha256 }),
    };
  }
  const { path, record } = await verifyInstalled(modelId, { home });
  const entry = catalogEntry(modelId);
  const fingerprint = await computeFingerprint({
    modelPath: path,
    modelId,
    sha256: record.sha256,
    documentPrefix: entry?.documentPrefix ?? '',
    queryPrefix: entry?.queryPrefix ?? '',
  });
  return { modelId, path, sha256: record.sha256, fingerprint };
}

/**
 * The model a new store gets when none is named: the catalog default if installed, else any
 * installed model, else the offline lexical starter (which matches words, not meaning).
 */
export async function defaultStoreModel(home = korttyHome()): Promise<string> {
  const installed = await listInstalled(home);
  if (installed.some((r) => r.id === defaultModelId)) return defaultModelId;
  return installed[0]?.id ?? STARTER_MODEL_ID;
}
