import type { ModelFingerprint } from '../types.js';

// The embedding-model catalog of the spec ("Create a local knowledge store") as plain data plus the
// memory rule. Pure: no I/O. Sizes and sha256 digests are those of the files at the pinned Hugging
// Face revisions below (each confirmed by at least two independent public manifests); pinning the
// revision keeps the digest valid when a repository later replaces its files.

export type Pooling = ModelFingerprint['pooling'];

export interface CatalogModel {
  id: string;
  /** Shown in the setup assistant. */
  label: string;
  /** `download`: fetched from `url`; `generated`: built locally with no network. */
  kind: 'download' | 'generated';
  /** File name under `$KORTTY_HOME/rag/models/`. */
  fileName: string;
  /** Hugging Face repository, revision and path (download models only). */
  repo?: string;
  revision?: string;
  /** node-llama-cpp model URI (`hf:<user>/<repo>/<file>#<revision>`), resolved offline to `url`. */
  uri?: string;
  /** Direct HTTPS URL of the pinned file. */
  url?: string;
  sizeBytes: number;
  /** False when `sizeBytes` is an estimate (the generated starter). */
  sizeExact: boolean;
  /** Expected sha256 of the downloaded file; an install whose bytes differ is discarded. */
  sha256?: string;
  dimension: number;
  pooling: Pooling;
  /** Context length the GGUF declares (tokens). */
  contextLength: number;
  /** Prompt formats from the model's own card; part of the store fingerprint. */
  documentPrefix: string;
  queryPrefix: string;
  languages: string;
  license: string;
  note: string;
  /** Offered only when the machine has at least this much memory (0: always). */
  minMemoryBytes: number;
}

export const GiB = 1024 ** 3;

/**
 * Operating systems report installed RAM minus firmware, GPU and kernel reservations (Linux MemTotal
 * on a 16 GiB machine is typically 15.3-15.7 GiB), so the spec's "at least 16 GiB" would never hold
 * literally on such a machine. A reported total within 5 % of the threshold counts as meeting it.
 */
export const MEMORY_REPORT_TOLERANCE = 0.05;

export const LEXICAL_STARTER_ID = 'kortty-lexical-starter';

/** Qwen3-Embedding's default retrieval task, verbatim from its model card (`Instruct: {task}\nQuery:{query}`). */
export const QWEN3_RETRIEVAL_TASK =
  'Given a web search query, retrieve relevant passages that answer the query';
const QWEN3_QUERY_PREFIX = `Instruct: ${QWEN3_RETRIEVAL_TASK}\nQuery:`;

export function huggingFaceUri(repo: string, file: string, revision: string): string {
  return `hf:${repo}/${file}#${revision}`;
}

export function huggingFaceUrl(repo: string, file: string, revision: string): string {
  return `https://huggingface.co/${repo}/resolve/${revision}/${file}`;
}

function hf(repo: string, file: string, revision: string) {
  return {
    repo,
    revision,
    fileName: file,
    uri: huggingFaceUri(repo, file, revision),
    url: huggingFaceUrl(repo, file, revision),
  };
}

const QWEN3_NOTE =
  'Decoder model: the vector is the last token, which must be <|endoftext|>; llama.cpp appends it when the GGUF sets tokenizer.ggml.add_eos_token (the current official files do), so do not append it twice. Queries carry the instruction, documents are embedded as they are.';

export const CATALOG: readonly CatalogModel[] = Object.freeze([
  {
    id: 'qwen3-embedding-0.6b-q8_0',
    label: 'Qwen3-Embedding 0.6B Q8_0 (recommended)',
    kind: 'download',
    ...hf(
      'Qwen/Qwen3-Embedding-0.6B-GGUF',
      'Qwen3-Embedding-0.6B-Q8_0.gguf',
      '370f27d7550e0def9b39c1f16d3fbaa13aa67728',
    ),
    sizeBytes: 639_150_592,
    sizeExact: true,
    sha256: '06507c7b42688469c4e7298b0a1e16deff06caf291cf0a5b278c308249c3e439',
    dimension: 1024,
    pooling: 'last',
    contextLength: 32_768,
    documentPrefix: '',
    queryPrefix: QWEN3_QUERY_PREFIX,
    languages: '100+ natural and programming languages',
    license: 'Apache-2.0',
    note: `Good quality on any machine. ${QWEN3_NOTE}`,
    minMemoryBytes: 0,
  },
  {
    id: 'qwen3-embedding-4b-q4_k_m',
    label: 'Qwen3-Embedding 4B Q4_K_M',
    kind: 'download',
    ...hf(
      'Qwen/Qwen3-Embedding-4B-GGUF',
      'Qwen3-Embedding-4B-Q4_K_M.gguf',
      'f4602530db1d980e16da9d7d3a70294cf5c190be',
    ),
    sizeBytes: 2_496_703_776,
    sizeExact: true,
    sha256: '2b0cf8f17b4c723c27303015383c27ec4bf2d8314bb677d05e920dd70bb0f16b',
    dimension: 2560,
    pooling: 'last',
    contextLength: 32_768,
    documentPrefix: '',
    queryPrefix: QWEN3_QUERY_PREFIX,
    languages: '100+ natural and programming languages',
    license: 'Apache-2.0',
    note: `Better retrieval, several times slower than 0.6B. ${QWEN3_NOTE}`,
    minMemoryBytes: 16 * GiB,
  },
  {
    id: 'qwen3-embedding-8b-q4_k_m',
    label: 'Qwen3-Embedding 8B Q4_K_M',
    kind: 'download',
    ...hf(
      'Qwen/Qwen3-Embedding-8B-GGUF',
      'Qwen3-Embedding-8B-Q4_K_M.gguf',
      '69d0e58a13e463cd99a9b83e3f5fee7c10265fab',
    ),
    sizeBytes: 4_676_804_928,
    sizeExact: true,
    sha256: '3fcd3febec8b3fd64435204db75bf0dd73b91e8d0661e0331acfe7e7c3120b85',
    dimension: 4096,
    pooling: 'last',
    contextLength: 32_768,
    documentPrefix: '',
    queryPrefix: QWEN3_QUERY_PREFIX,
    languages: '100+ natural and programming languages',
    license: 'Apache-2.0',
    note: `Best retrieval of the catalog and the slowest. ${QWEN3_NOTE}`,
    minMemoryBytes: 24 * GiB,
  },
  {
    id: 'bge-m3-q8_0',
    label: 'BGE-M3 Q8_0 (multilingual)',
    kind: 'download',
    ...hf('ggml-org/bge-m3-Q8_0-GGUF', 'bge-m3-q8_0.gguf', '9eba04c5d75ba5a1595e45de734d36bef4e5cb98'),
    sizeBytes: 634_553_760,
    sizeExact: true,
    sha256: 'aa473d51f451a22f0fcf39ba3330c14bed38a385712b1113440f69df4047a173',
    dimension: 1024,
    pooling: 'cls',
    contextLength: 8192,
    documentPrefix: '',
    queryPrefix: '',
    languages: '100+ languages',
    license: 'MIT',
    note: 'Encoder model (XLM-RoBERTa); dense vector from the CLS token. Queries and documents are plain text, no instruction.',
    minMemoryBytes: 0,
  },
  {
    id: 'nomic-embed-text-v1.5-q8_0',
    label: 'Nomic Embed Text v1.5 Q8_0 (very small and fast)',
    kind: 'download',
    ...hf(
      'nomic-ai/nomic-embed-text-v1.5-GGUF',
      'nomic-embed-text-v1.5.Q8_0.gguf',
      '0188c9bf409793f810680a5a431e7b899c46104c',
    ),
    sizeBytes: 146_146_432,
    sizeExact: true,
    sha256: '3e24342164b3d94991ba9692fdc0dd08e3fd7362e0aacc396a9a5c54a544c3b7',
    dimension: 768,
    pooling: 'mean',
    contextLength: 2048,
    documentPrefix: 'search_document: ',
    queryPrefix: 'search_query: ',
    languages: 'English',
    license: 'Apache-2.0',
    note: 'Mean pooling. The GGUF declares 2048 tokens of context (8192 needs YaRN rope scaling, which korTTY does not enable); chunks of ~800 tokens fit.',
    minMemoryBytes: 0,
  },
  {
    id: LEXICAL_STARTER_ID,
    label: 'Lexical starter (built in, offline: matches words, not meaning)',
    kind: 'generated',
    // Same name as starter-model.ts uses, so a starter built on first use and one built by
    // `models install` are the same file. Size measured for generator v1; generate-model.ts owns the
    // layout and test/models/catalog.test.ts checks name, dimension and context against it.
    fileName: `${LEXICAL_STARTER_ID}-384.gguf`,
    sizeBytes: 26_307_488,
    sizeExact: false,
    dimension: 384,
    pooling: 'mean',
    contextLength: 2048,
    documentPrefix: '',
    queryPrefix: '',
    languages: 'English words (BERT WordPiece vocabulary)',
    license: 'MIT (generated locally)',
    note: 'Generated on this computer with no network: similarity follows shared words only. Install a catalog model for search by meaning.',
    minMemoryBytes: 0,
  },
] satisfies CatalogModel[]);

/** The spec's preselected model. */
export const defaultModelId = 'qwen3-embedding-0.6b-q8_0';

export function catalogEntry(id: string): CatalogModel | undefined {
  return CATALOG.find((m) => m.id === id);
}

export function fitsMemory(model: CatalogModel, totalMemBytes: number): boolean {
  return totalMemBytes >= model.minMemoryBytes * (1 - MEMORY_REPORT_TOLERANCE);
}

/** The catalog models the setup assistant offers on a machine with `totalMemBytes` of memory, in catalog order. */
export function offeredModels(totalMemBytes: number): CatalogModel[] {
  return CATALOG.filter((m) => fitsMemory(m, totalMemBytes));
}
