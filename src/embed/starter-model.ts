import { join } from 'node:path';
import { z } from 'zod';
import { isKorttyError } from '../errors.js';
import { atomicWrite } from '../storage/atomic-write.js';
import { readJsonFile } from '../storage/json-file.js';
import { korttyHome, modelsDir } from '../storage/paths.js';
import { sha256File } from './fingerprint.js';
import { generateLexicalModel, STARTER_DEFAULTS } from './generate-model.js';
import { readGgufHeader } from './gguf-file.js';
import { metadataMap } from './gguf-format.js';
import { LEXICAL_GENERATOR_VERSION } from './lexical-model.js';
import { getInstalled, registerModelFile, verifyInstalled } from './model-registry.js';

// The lexical starter model is generated on first use (no network), so a fresh install can index
// and search offline. It matches words, not meaning; the UI says so. Two records describe it:
// the generator's own JSON next to the file (what was generated, from which parameters), and the
// model registry's install record (source `generated`), so `models list` shows it and every use is
// checked against its sha256 like any installed model.

export const STARTER_MODEL_ID = 'kortty-lexical-starter';

const starterRecordSchema = z.object({
  id: z.string(),
  file: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  source: z.literal('generated'),
  dimension: z.number().int().positive(),
  generatorVersion: z.number(),
  seed: z.number(),
});
export type StarterRecord = z.infer<typeof starterRecordSchema>;

export const starterFileName = (dimension = STARTER_DEFAULTS.dimension) =>
  `${STARTER_MODEL_ID}-${dimension}.gguf`;
export const starterRecordPath = (home = korttyHome()) =>
  join(modelsDir(home), `${STARTER_MODEL_ID}-${STARTER_DEFAULTS.dimension}.json`);

/**
 * Path and sha256 of the starter model. Generates it atomically into `<models>/` when it is absent,
 * its file is missing or changed (the bytes are deterministic, so rebuilding restores exactly the
 * recorded file), or it came from an older generator; then records it in the registry.
 */
export async function ensureStarterModel(
  home: string = korttyHome(),
): Promise<{ path: string; sha256: string }> {
  const path = join(modelsDir(home), starterFileName());
  const registered = await registeredSha(path, home);
  if (registered) return { path, sha256: registered };
  // Generated earlier but not registered (e.g. placed by a test helper or an interrupted run).
  const own = await readStarterRecord(home);
  if (own && isCurrentRecord(own) && (await sha256File(path).catch(() => undefined)) === own.sha256) {
    await registerModelFile(path, { id: STARTER_MODEL_ID, source: 'generated', sha256: own.sha256, home });
    return { path, sha256: own.sha256 };
  }
  const built = await generateLexicalModel(path, {}, { vocabCacheDir: join(modelsDir(home), 'vocab') });
  const record: StarterRecord = {
    id: STARTER_MODEL_ID,
    file: starterFileName(),
    size: built.size,
    sha256: built.sha256,
    source: 'generated',
    dimension: STARTER_DEFAULTS.dimension,
    generatorVersion: LEXICAL_GENERATOR_VERSION,
    seed: STARTER_DEFAULTS.seed,
  };
  await atomicWrite(starterRecordPath(home), Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
  await registerModelFile(path, { id: STARTER_MODEL_ID, source: 'generated', sha256: built.sha256, home });
  return { path, sha256: built.sha256 };
}

const isCurrentRecord = (r: StarterRecord) =>
  r.generatorVersion === LEXICAL_GENERATOR_VERSION &&
  r.seed === STARTER_DEFAULTS.seed &&
  r.file === starterFileName();

/** The registered sha256 when the registry holds a verified, current starter; otherwise undefined. */
async function registeredSha(path: string, home: string): Promise<string | undefined> {
  try {
    const record = await getInstalled(STARTER_MODEL_ID, home);
    if (record?.source !== 'generated' || record.file !== starterFileName()) return undefined;
    const verified = await verifyInstalled(STARTER_MODEL_ID, { home });
    const m = metadataMap(await readGgufHeader(path));
    const current =
      m.get('kortty.generator_version') === LEXICAL_GENERATOR_VERSION &&
      m.get('kortty.seed') === STARTER_DEFAULTS.seed;
    return current ? verified.record.sha256 : undefined;
  } catch (err) {
    // Damaged record, missing or changed file, unreadable header: rebuild. Other I/O errors surface.
    if (isKorttyError(err) && err.code !== 'IO_FAILED') return undefined;
    throw err;
  }
}

async function readStarterRecord(home: string): Promise<StarterRecord | undefined> {
  try {
    return await readJsonFile(starterRecordPath(home), starterRecordSchema, 'starter model record');
  } catch {
    // The starter model is generated: a damaged record means it is generated again.
    return undefined;
  }
}
