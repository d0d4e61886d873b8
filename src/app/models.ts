import { join } from 'node:path';
import { type InstallOptions, type InstallResult, installModel as install } from '../embed/installer.js';
import { korttyHome, modelsDir } from '../storage/paths.js';

// Embedding models for the faces: the catalog, installed models, and installs wired to the
// generator of the lexical starter model (which is made locally, never downloaded).

export {
  CATALOG,
  type CatalogModel,
  catalogEntry,
  defaultModelId,
  fitsMemory,
  GiB,
  LEXICAL_STARTER_ID,
} from '../embed/catalog.js';
export { type InstallProgress, installProgress } from '../embed/installer.js';
export {
  addLocalModel,
  getInstalled,
  type InstallRecord,
  listInstalled,
  modelFilePath,
  registerModelFile,
  removeModel,
  verifyInstalled,
} from '../embed/model-registry.js';
export { ensureStarterModel, STARTER_MODEL_ID } from '../embed/starter-model.js';

export function installModel(
  id: string,
  opts: Omit<InstallOptions, 'generate'> = {},
): Promise<InstallResult> {
  const home = opts.home ?? korttyHome();
  return install(id, {
    ...opts,
    generate: async (path) => {
      const { generateLexicalModel } = await import('../embed/generate-model.js');
      await generateLexicalModel(path, {}, { vocabCacheDir: join(modelsDir(home), 'vocab') });
    },
  });
}
