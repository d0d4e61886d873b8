// Plain data shared across pipeline stages. No behaviour lives here.

/** How a recognised file is turned into text. */
export type ExtractKind = 'text' | 'html' | 'pdf' | 'docx';

/** A recognised format from the allowlist (src/scan/formats.ts). */
export interface FormatInfo {
  /** Stable id, e.g. `markdown`, `python`, `pdf`. */
  id: string;
  /** Group shown in the review summary, e.g. `Text`, `Code`, `Data`, `Markup`, `PDF`, `Word`. */
  group: string;
  extract: ExtractKind;
}

/** Why a visited entry is not indexed. Codes are stable; UIs map them to words. */
export type SkipReason =
  | 'unsupported-format'
  | 'binary'
  | 'not-utf8'
  | 'control-bytes'
  | 'too-large'
  | 'symlink'
  | 'special-file'
  | 'hard-link'
  | 'permission-denied'
  | 'read-error'
  | 'hidden'
  | 'excluded-dir'
  | 'gitignored'
  | 'excluded-by-glob'
  | 'not-included'
  | 'bad-name'
  | 'already-covered'
  | 'pdf-encrypted'
  | 'pdf-no-text'
  | 'pdf-invalid'
  | 'pdf-timeout'
  | 'docx-invalid'
  | 'docx-too-large'
  | 'html-invalid'
  | 'extract-limit'
  | 'empty-text'
  | 'bound-reached';

export type RowStatus = 'new' | 'changed' | 'unchanged' | 'skipped';

/** One visited entry in a scan preview. */
export interface ReviewRow {
  /** Absolute path, as a display-safe string (invalid UTF-8 / control chars escaped). */
  path: string;
  /** Path relative to the source root, `/`-separated, display-safe. */
  relPath: string;
  format: string | null;
  size: number;
  status: RowStatus;
  reason?: SkipReason;
  /** Human explanation when skipped, e.g. "invalid UTF-8 at byte 1234". */
  explanation?: string;
  /** Complete-file sha256 (hex) of accepted files. */
  sha256?: string;
  mtimeMs?: number;
  /** Decoded characters (code points, BOM excluded) of accepted UTF-8 files; unset for PDF/docx,
   * whose text is only known after extraction. */
  chars?: number;
  /** `dev:ino` of the accepted file the scan read: extraction opens this file and no other. */
  fileId?: string;
}

export type PreviewBound = 'files' | 'bytes' | 'chars';

export interface ReviewSummary {
  visited: number;
  toIndex: { new: number; changed: number };
  unchanged: number;
  /** Files in the previous hash map that were not found this time. */
  removed: number;
  skipped: Partial<Record<SkipReason, number>>;
  formats: Record<string, { count: number; bytes: number }>;
  acceptedBytes: number;
  /** Characters counted towards the preview's extracted-characters bound (UTF-8 files only; the
   * extractor counts PDF/docx text against the rest of that budget). */
  extractedChars: number;
}

export interface Review {
  root: string;
  rows: ReviewRow[];
  /** Paths (display-safe, absolute) present in the previous hash map but gone now. */
  removed: string[];
  summary: ReviewSummary;
  /** Set when a preview bound stopped the scan; the preview is incomplete and must not be confirmed blindly. */
  stoppedBy?: { bound: PreviewBound; message: string };
  /** Folder sources: `dev:ino` of each directory the scan entered, by root-relative path ('' = root). */
  dirIds?: Record<string, string>;
}

/**
 * One accepted file as the scan found it, for extraction to open exactly that file again: the
 * directories from the root down must still be the ones entered, the file the one read, with the
 * size and content hash read (see src/scan/open-scanned.ts).
 */
export interface ScannedFile {
  /** Absolute path of the source root. */
  root: string;
  /** Names from the root down to the file; empty when the source is this one file. */
  names: string[];
  /** `dev:ino` of the root and of each directory below it on the way to the file (one per name but the last). */
  dirIds: string[];
  fileId: string;
  size: number;
  sha256: string;
}

/** Per-source advanced options. */
export interface SourceOptions {
  /** Per-file limit in bytes, 1 MiB..1 GiB, default 50 MiB. */
  maxFileBytes: number;
  include: string[];
  exclude: string[];
  /** Honour .gitignore files (nested, as git does). */
  gitignore: boolean;
  /**
   * Read regular files that have more than one name (hard links). Off by default: a hard link
   * inside a source to a file outside it would index and serve a file the user never added, and
   * only the link count is visible, not where the other names are.
   */
  hardLinks?: boolean;
}

export interface PreviewBounds {
  maxFiles: number;
  maxAcceptedBytes: number;
  maxExtractedChars: number;
}

/** Text extracted from one document. Line-based formats give `text`; PDFs give pages (1-based order). */
export type ExtractedDoc =
  | {
      kind: 'lines';
      text: string;
      /**
       * True when line N of `text` is line N of the source file (plain text, code, Markdown…), so a
       * chunk's line range can be cited as `file:line`. False for HTML and .docx, whose lines are
       * lines of the extracted text. Lines are counted by LF (see src/extract/text.ts).
       */
      sourceLines?: boolean;
    }
  | { kind: 'pages'; pages: string[] };

/**
 * Where a chunk sits in its document, carried from the chunker through the snapshot, Qdrant
 * payloads, search results and context blocks to run records. Absent for documents without
 * lines or pages.
 */
export interface ChunkLocation {
  /** 1-based inclusive line range for line-based documents. */
  lineStart?: number;
  lineEnd?: number;
  /** 1-based inclusive page range for PDFs. */
  pageStart?: number;
  pageEnd?: number;
}

/** A chunk as produced by the chunker (pure). */
export interface Chunk extends ChunkLocation {
  index: number;
  text: string;
  tokens: number;
}

export interface ChunkParams {
  chunkTokens: number;
  overlapTokens: number;
}

/** What ties an index to one embedding configuration. */
export interface ModelFingerprint {
  /** Catalog id or `local:<name>`. */
  modelId: string;
  fileName: string;
  fileSize: number;
  fileSha256: string;
  dimension: number;
  pooling: 'mean' | 'cls' | 'last' | 'none' | 'rank';
  /** Prompt format applied to documents / queries (part of the fingerprint). */
  documentPrefix: string;
  queryPrefix: string;
}

export type Role = 'text' | 'coding';
export type SyncMode = 'automatic' | 'manual';
export type SourceStatus = 'NEW' | 'SCANNING' | 'INDEXING' | 'READY' | 'MISSING' | 'ERROR' | 'DISABLED';

// ---- Retrieval and AI actions (src/retrieve, src/ai) ----

/** One chunk proposed for the context block, after fusion. `key` is `${storeId}:${chunkId}`. */
export interface Candidate extends ChunkLocation {
  key: string;
  storeId: string;
  storeName: string;
  sourceId: string;
  /** Display path of the document (as stored in the snapshot). */
  path: string;
  text: string;
  /** Token count of `text` as the chunker measured it (informational; bounds recount). */
  tokens: number;
  /** 1-based ranks in each list; absent when the chunk was not in that list. */
  vectorRank?: number;
  lexicalRank?: number;
  vectorScore?: number;
  /** BM25 score in the chunk's own store. */
  lexicalScore?: number;
  /** `lexicalScore` as a share of the store's BM25 ceiling for the query (0..1): comparable across
   * stores, so several stores' lexical hits can form one ranking (src/retrieve/merge.ts). */
  lexicalMatch?: number;
  fusedScore: number;
  chunkId: string;
  /** sha256 of the complete source document the chunk came from (for stale-citation checks). */
  contentSha256: string;
  /** Why the lexical ranking scored this chunk (set by lexical search; shown by `search --explain`). */
  explain?: LexicalExplain;
}

/** The signals a lexical score is made of, in the order `search --explain` shows them. */
export const EXPLAIN_SHARES = ['title', 'headings', 'body', 'proximity', 'passage', 'name'] as const;

/** The lexical score of one chunk taken apart: which query terms matched, and each signal's share. */
export interface LexicalExplain {
  /** Query terms (as indexed: stems or whole tokens) found in the chunk, in query order. */
  matched: string[];
  /** Each signal's share of the chunk's lexical score (the shares sum to 1 when the score is > 0). */
  shares: Record<(typeof EXPLAIN_SHARES)[number], number>;
}

/** A candidate that made it into the block, with its marker (`R1`, shown as `[R1]`). */
export interface Excerpt extends Candidate {
  marker: string;
  /** 1-based position in the block; `marker === 'R' + rank` unless a first marker was given. */
  rank: number;
  /** True when `text` was cut to fit the token budget; line/page ranges describe the kept text. */
  trimmed: boolean;
  /** Tokens of the chunk text before trimming (countTokens of the original text). */
  originalTokens: number;
}

/** AI actions, grouped by the retrieval policy in src/ai/policy.ts. */
export type ActionKind =
  | 'ask'
  | 'explain'
  | 'fix'
  | 'summarize'
  | 'translate'
  | 'command'
  | 'agent'
  | 'planning'
  | 'swarm'
  | 'scheduled'
  | 'diagram'
  | 'vision';

export type ChatBackendKind = 'llama' | 'openai';
export type RetrievalMode = 'before' | 'tool' | 'both';

export interface AiProfile {
  name: string;
  backend: ChatBackendKind;
  /** GGUF path (llama) or model name (openai). */
  model: string;
  /** OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (required for `openai`). */
  baseUrl?: string;
  contextWindow: number;
  /** Model family; selects the prompt preset (src/ai/presets/<family>.json). */
  family: string;
  requireCitations: boolean;
  retrievalMode: RetrievalMode;
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv?: string;
  /** Permit plain http to a non-loopback host (prompts carry local excerpts). */
  allowInsecureHttp?: boolean;
  /** Answer length cap sent as `max_tokens`; default sized to the context (ai/answer-bounds.ts). */
  maxTokens?: number;
}

export interface RoleAssignments {
  text?: string;
  coding?: string;
}

export interface ProfilesConfig {
  version: 1;
  profiles: AiProfile[];
  roles: RoleAssignments;
}
