import { createHash } from 'node:crypto';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHAT_GENERATOR_VERSION, type ChatModelParams } from '../../src/embed/chat-model.js';
import {
  CHAT_DEFAULTS,
  generateChatModel,
  generateLexicalModel,
  STARTER_DEFAULTS,
} from '../../src/embed/generate-model.js';
import { readGgufHeader } from '../../src/embed/gguf-file.js';
import { LEXICAL_GENERATOR_VERSION, type LexicalModelParams } from '../../src/embed/lexical-model.js';
import { extractVocabs } from '../../src/embed/vocab-bundle.js';

// Generated models shared by every test file. They are deterministic, so a file keyed by its
// parameters and generator version is reused across ava workers and runs. The generator writes
// through atomicWrite (temp + rename), so no worker ever sees a partial file; a lock file (O_EXCL,
// stale after 2 minutes) keeps parallel workers from generating the same model twice.

export const testModelsDir = join(tmpdir(), 'kortty-test-models');
const vocabCacheDir = join(testModelsDir, 'vocab');
const memo = new Map<string, Promise<string>>();

function keyOf(kind: string, version: number, params: object): string {
  return createHash('sha256').update(JSON.stringify({ kind, version, params })).digest('hex').slice(0, 16);
}

async function usable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await readGgufHeader(path);
    return true;
  } catch {
    return false;
  }
}

const STALE_MS = 120_000;

/** Run `fn` unless `done()` turns true, holding `<name>.lock` so only one process runs it at a time. */
async function once(name: string, done: () => Promise<boolean>, fn: () => Promise<unknown>): Promise<void> {
  await mkdir(testModelsDir, { recursive: true });
  const lock = join(testModelsDir, `${name}.lock`);
  for (;;) {
    if (await done()) return;
    try {
      const fh = await open(lock, 'wx');
      await fh.close();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await unlink(lock).catch(() => {});
      else await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      if (!(await done())) await fn();
      return;
    } finally {
      await unlink(lock).catch(() => {});
    }
  }
}

const VOCABS = ['bert-bge', 'qwen2'] as const;
let vocabs: Promise<void> | undefined;
/** Both vocabularies in one bundle fetch, once across all workers. */
function ensureVocabs(): Promise<void> {
  vocabs ??= once(
    'vocab',
    async () =>
      (await Promise.all(VOCABS.map((n) => usable(join(vocabCacheDir, `ggml-vocab-${n}.gguf`))))).every(
        Boolean,
      ),
    () => extractVocabs([...VOCABS], vocabCacheDir),
  );
  return vocabs;
}

function cached(kind: string, key: string, build: (path: string) => Promise<unknown>): Promise<string> {
  const path = join(testModelsDir, `${kind}-${key}.gguf`);
  let p = memo.get(path);
  if (!p) {
    p = (async () => {
      await ensureVocabs();
      await once(
        `${kind}-${key}`,
        () => usable(path),
        () => build(path),
      );
      return path;
    })();
    memo.set(path, p);
    p.catch(() => memo.delete(path));
  }
  return p;
}

/** A generated lexical (BERT) embedding model; defaults are the starter's parameters. */
export function lexicalModel(params: Partial<LexicalModelParams> = {}): Promise<string> {
  const full = { ...STARTER_DEFAULTS, ...params };
  const key = keyOf('lexical', LEXICAL_GENERATOR_VERSION, full);
  return cached(`lexical-${full.dimension}`, key, (path) =>
    generateLexicalModel(path, full, { vocabCacheDir }),
  );
}

/** A small lexical model for tests that only need some embedding model (64-d, 512 context). */
export const smallLexicalModel = (params: Partial<LexicalModelParams> = {}) =>
  lexicalModel({ dimension: 64, contextLength: 512, name: 'kortty-test-lexical-64', ...params });

/** The tiny generated chat model (llama architecture, ChatML template, gibberish output). */
export function chatModel(params: Partial<ChatModelParams> = {}): Promise<string> {
  const full = { ...CHAT_DEFAULTS, ...params };
  const key = keyOf('chat', CHAT_GENERATOR_VERSION, full);
  return cached('chat', key, (path) => generateChatModel(path, full, { vocabCacheDir }));
}
