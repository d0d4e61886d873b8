import { getLlama, type Llama, LlamaLogLevel, type LlamaModel } from 'node-llama-cpp';
import { usableCores } from '../util/cores.js';

// One Llama instance per process (loading the native backend is slow and holds global state),
// and one loaded model per file, shared by every embedder that uses it.

let shared: Promise<Llama> | undefined;

/** The process-wide CPU Llama, limited to the cgroup-aware core count. Never builds or downloads. */
export function getSharedLlama(): Promise<Llama> {
  shared ??= getLlama({
    gpu: false,
    build: 'never',
    maxThreads: usableCores(),
    // Warnings (e.g. "detokenized text differs" for uncased WordPiece vocabularies) are noise here.
    logLevel: LlamaLogLevel.error,
  }).catch((err) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

interface Entry {
  model: Promise<LlamaModel>;
  refs: number;
}
const models = new Map<string, Entry>();

export interface ModelLease {
  model: LlamaModel;
  release(): Promise<void>;
}

/** Load (or share) a model; `release` disposes it when the last user lets go. */
export async function acquireModel(path: string, opts: { flashAttention: boolean; signal?: AbortSignal }) {
  const key = `${opts.flashAttention ? 'fa' : 'nofa'}\0${path}`;
  let entry = models.get(key);
  if (!entry) {
    const model = getSharedLlama().then((llama) =>
      llama.loadModel({
        modelPath: path,
        defaultContextFlashAttention: opts.flashAttention,
        ...(opts.signal ? { loadSignal: opts.signal } : {}),
      }),
    );
    entry = { model, refs: 0 };
    models.set(key, entry);
    model.catch(() => models.delete(key));
  }
  entry.refs++;
  let model: LlamaModel;
  try {
    model = await entry.model;
  } catch (err) {
    entry.refs--;
    throw err;
  }
  let released = false;
  const e = entry;
  return {
    model,
    async release() {
      if (released) return;
      released = true;
      if (--e.refs === 0 && models.get(key) === e) {
        models.delete(key);
        await model.dispose();
      }
    },
  } satisfies ModelLease;
}
