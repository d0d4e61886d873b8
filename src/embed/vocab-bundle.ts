import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createError } from '../errors.js';
import { atomicWrite, errReason } from '../storage/atomic-write.js';
import { PRIVATE_DIR_MODE } from '../storage/private-files.js';
import { pidAlive } from '../util/pid-alive.js';
import { parseGguf } from './gguf-reader.js';

// Vocabulary GGUFs ship inside node-llama-cpp's llama.cpp source bundle
// (models/ggml-vocab-<name>.gguf). We extract them with git, offline, and cache the files.

const run = promisify(execFile);

/** Vocabularies this project may generate models from (all present in the bundle). */
export const VOCAB_NAMES = [
  'bert-bge',
  'qwen2',
  'llama-bpe',
  'gpt-2',
  'nomic-bert-moe',
  'llama-spm',
  'phi-3',
] as const;
export type VocabName = (typeof VOCAB_NAMES)[number];

export function llamaBundlePath(): string {
  const entry = fileURLToPath(import.meta.resolve('node-llama-cpp'));
  // .../node-llama-cpp/dist/index.js → .../node-llama-cpp/llama/gitRelease.bundle
  return join(dirname(dirname(entry)), 'llama', 'gitRelease.bundle');
}

export const vocabFileName = (name: string) => `ggml-vocab-${name}.gguf`;

/** Path of a cached vocabulary GGUF, extracting it (and any other missing `names`) first. */
export async function extractVocab(
  name: VocabName,
  cacheDir: string,
  bundle = llamaBundlePath(),
): Promise<string> {
  const [path] = await extractVocabs([name], cacheDir, bundle);
  return path!;
}

export async function extractVocabs(names: VocabName[], cacheDir: string, bundle = llamaBundlePath()) {
  for (const n of names) {
    if (!VOCAB_NAMES.includes(n)) {
      throw createError('INVALID_ARGUMENT', {
        name: 'vocabulary',
        reason: `unknown vocabulary ${JSON.stringify(n)}`,
      });
    }
  }
  await sweepStaleBundles(cacheDir);
  const paths = names.map((n) => join(cacheDir, vocabFileName(n)));
  const missing: VocabName[] = [];
  for (const [i, n] of names.entries()) {
    if (!(await isValidGguf(paths[i]!))) missing.push(n);
  }
  if (missing.length === 0) return paths;
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // A private bare repository: the bundle is a squashed single commit, fetched in ~3 s. Its name
  // carries our pid, so a later run can tell a killed extraction's leftover from a live one.
  const repo = await mkdtemp(join(cacheDir, `${BUNDLE_PREFIX}${process.pid}-`));
  const git = (args: string[], maxBuffer = 1 << 20) =>
    run('git', ['-C', repo, ...args], {
      maxBuffer,
      encoding: 'buffer',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
  const fail = (name: string, reason: string, cause?: unknown) =>
    createError('VOCAB_UNAVAILABLE', { name, bundle, reason }, cause);
  try {
    try {
      await run('git', ['-c', 'init.defaultBranch=main', 'init', '-q', '--bare', repo]);
      await git(['fetch', '-q', '--no-tags', bundle, 'HEAD:refs/heads/main']);
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
      const reason =
        e.code === 'ENOENT' ? 'git is not installed' : e.stderr?.toString().trim() || errReason(err);
      throw fail(missing.join(', '), reason, err);
    }
    for (const name of missing) {
      let blob: Buffer;
      try {
        ({ stdout: blob } = await git(['cat-file', 'blob', `main:models/${vocabFileName(name)}`], 256 << 20));
      } catch (err) {
        const e = err as { stderr?: Buffer };
        throw fail(name, e.stderr?.toString().trim() || errReason(err), err);
      }
      const dest = join(cacheDir, vocabFileName(name));
      await atomicWrite(dest, blob, { verify: (bytes) => void parseGguf(bytes, { label: dest }) });
    }
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
  return paths;
}

const BUNDLE_PREFIX = '.bundle-';
/** A leftover whose pid runs again after this long is taken as pid reuse (extraction takes seconds). */
const OWNED_MAX_AGE_MS = 60 * 60_000;
/** Leftovers of versions that did not tag them with a pid: judged by age alone. */
const UNOWNED_MAX_AGE_MS = 10 * 60_000;

/**
 * Removes the private repositories (~30 MB each) of extractions that were killed: those whose
 * process is gone, and any older than an extraction can take. A live concurrent one is kept.
 */
export async function sweepStaleBundles(cacheDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(BUNDLE_PREFIX)) continue;
    const path = join(cacheDir, name);
    const age = await stat(path).then(
      (st) => Date.now() - st.mtimeMs,
      () => undefined,
    );
    if (age === undefined) continue; // removed meanwhile
    const owner = /^\.bundle-(\d+)-/.exec(name);
    const stale = owner ? !pidAlive(Number(owner[1])) || age > OWNED_MAX_AGE_MS : age > UNOWNED_MAX_AGE_MS;
    if (!stale) continue;
    // A killed extraction's git can outlive it for a second or two and still add files while the
    // tree is removed (ENOTEMPTY); the retries remove what it added. Once the directory is gone,
    // git, whose working directory it was, cannot create it again.
    await rm(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => {});
    removed.push(name);
  }
  return removed;
}

async function isValidGguf(path: string): Promise<boolean> {
  try {
    parseGguf(await readFile(path), { label: path });
    return true;
  } catch {
    return false;
  }
}
