// Embedding models for the faces: the catalog and the installed models (light: the pane's process
// loads it at start). Installing and generating is model-install.ts.

export {
  CATALOG,
  type CatalogModel,
  catalogEntry,
  defaultModelId,
  fitsMemory,
  GiB,
  LEXICAL_STARTER_ID,
} from '../embed/catalog.js';
export type { InstallProgress } from '../embed/installer.js';
export {
  getInstalled,
  type InstallRecord,
  listInstalled,
  modelFilePath,
  verifyInstalled,
} from '../embed/model-registry.js';
