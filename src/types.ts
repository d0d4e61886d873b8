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
}

export interface Review {
  root: string;
  rows: ReviewRow[];
  /** Paths (display-safe, absolute) present in the previous hash map but gone now. */
  removed: string[];
  summary: ReviewSummary;
  /** Set when a preview bound stopped the scan; the preview is incomplete and must not be confirmed blindly. */
  stoppedBy?: { bound: PreviewBound; message: string };
}

/** Per-source advanced options. */
export interface SourceOptions {
  /** Per-file limit in bytes, 1 MiB..1 GiB, default 50 MiB. */
  maxFileBytes: number;
  include: string[];
  exclude: string[];
  /** Honour .gitignore files (nested, as git does). */
  gitignore: boolean;
}

export interface PreviewBounds {
  maxFiles: number;
  maxAcceptedBytes: number;
  maxExtractedChars: number;
}

/** Text extracted from one document. Line-based formats give `text`; PDFs give pages (1-based order). */
export type ExtractedDoc =
  | { kind: 'lines'; text: string }
  | { kind: 'pages'; pages: string[] };

/** A chunk as produced by the chunker (pure). */
export interface Chunk {
  index: number;
  text: string;
  tokens: number;
  /** 1-based inclusive line range for line-based documents. */
  lineStart?: number;
  lineEnd?: number;
  /** 1-based inclusive page range for PDFs. */
  pageStart?: number;
  pageEnd?: number;
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
