import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerModelFile } from '../../src/embed/model-registry.js';
import { STARTER_MODEL_ID, starterFileName } from '../../src/embed/starter-model.js';
import { extractVocab } from '../../src/embed/vocab-bundle.js';
import { modelsDir } from '../../src/storage/paths.js';
import { addSources, createStore } from '../../src/store/engine.js';
import { lexicalModel, testModelsDir } from '../helpers/models.js';
import { prose as proseOf, WORDS, writeTree } from '../helpers/store-env.js';

export { writeTree };

// Test homes for the pane: the generated starter model copied in from the shared test cache
// (generating it per test would cost seconds), or only its vocabulary, for the one test that
// lets the setup assistant generate the model for real.

const made: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory these helpers created (call from test.after.always). */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export async function newHome(): Promise<string> {
  return tempDir('kortty-tui-home-');
}

/** A home whose registry holds the lexical starter model. */
export async function homeWithModel(): Promise<string> {
  const home = await newHome();
  const dest = join(modelsDir(home), starterFileName());
  await mkdir(modelsDir(home), { recursive: true });
  await copyFile(await lexicalModel(), dest);
  await registerModelFile(dest, { id: STARTER_MODEL_ID, source: 'generated', home });
  return home;
}

/** A home with no model installed but the starter's vocabulary already extracted (so generating takes seconds, not a bundle fetch). */
export async function homeWithVocabulary(): Promise<string> {
  const home = await newHome();
  const vocab = await extractVocab('bert-bge', join(testModelsDir, 'vocab'));
  await mkdir(join(modelsDir(home), 'vocab'), { recursive: true });
  await copyFile(vocab, join(modelsDir(home), 'vocab', vocab.replace(/^.*\//, '')));
  return home;
}

// The TUI's documents (and the screens captured from them) use the first 20 words only.
const TUI_WORDS = WORDS.slice(0, 20);

/** Deterministic prose of `n` lines about `topic`. */
export const prose = (topic: string, n: number, seed = 1) => proseOf(topic, n, seed, TUI_WORDS);

export async function sourceTree(files: Record<string, string | Buffer>): Promise<string> {
  const root = await tempDir('kortty-tui-src-');
  await writeTree(root, files);
  return root;
}

/** `n` small Markdown files in 20 folders (a tree that takes the scan a noticeable time). */
export async function bigTree(n: number, prefix = 'kortty-tui-big-'): Promise<string> {
  const root = await tempDir(prefix);
  for (let d = 0; d < 20; d++) await mkdir(join(root, `d${d}`));
  for (let i = 0; i < n; i++)
    await writeFile(join(root, `d${i % 20}`, `f${i}.md`), prose(`topic${i % 50}`, 6, i + 1));
  return root;
}

/** A store indexed through the engine (in this process), ready for the pane to show. */
export async function homeWithStore(files: Record<string, string | Buffer>, name = 'Docs') {
  const home = await homeWithModel();
  const root = await sourceTree(files);
  const { id } = await createStore({ name, modelId: STARTER_MODEL_ID, roles: ['text'] }, home);
  await addSources(name, [{ kind: 'folder', path: root }], {}, home);
  return { home, root, id };
}
