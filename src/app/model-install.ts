import { join } from 'node:path';
import { type InstallOptions, type InstallResult, installModel as install } from '../embed/installer.js';
import { korttyHome, modelsDir } from '../storage/paths.js';

// Installing models, wired to the generator of the lexical starter model (made on this computer,
// never downloaded). The CLI's `models` commands and the TUI's model child process use it.

export { installProgress } from '../embed/installer.js';
export { addLocalModel, registerModelFile, removeModel } from '../embed/model-registry.js';
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
