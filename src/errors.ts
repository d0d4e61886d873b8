// One table of error codes. Code raises `createError(CODE, details)`; tests assert `err.code`;
// UIs show `err.message`, which always names the file or object and the reason.

type Pid = number | string | undefined;

/**
 * The details each code carries. `createError` takes exactly this shape, so a misspelt or
 * missing detail is a compile error rather than an "undefined" in a message.
 */
export interface ErrorDetails {
  INVALID_ARGUMENT: { name?: string; reason: string };
  USAGE: { reason: string };
  INVALID_SIZE_LIMIT: { value: number | string };
  SOURCE_NOT_FOUND: { path: string };
  SOURCE_IS_SYMLINK: { path: string };
  SOURCE_TYPE_MISMATCH: { path: string; expected: string; found: string };
  SOURCE_PERMISSION_DENIED: { path: string };
  SCAN_CANCELLED: Empty;
  EXTRACT_FAILED: { path: string; reason: string; skipReason?: string; peakRssMb?: number };
  STORE_EXISTS: { name: string };
  STORE_NOT_FOUND: { name: string };
  STORE_ATTACHED: { name: string; roles: string };
  SOURCE_EXISTS: { path: string; existing: string };
  SOURCE_OVERLAP: { path: string; existing: string };
  SOURCE_UNKNOWN: { id: string; store: string };
  SOURCE_DATA_DIR: { path: string; relation: 'lies inside' | 'contains'; home: string };
  STORE_BUSY: { store: string; job?: string; pid?: Pid; lost?: boolean; staleMs?: number };
  JOB_CANCELLED: { reason?: string };
  MODEL_NOT_FOUND: { id: string };
  MODEL_CHANGED: { path: string; id?: string; reason?: string; want?: string; got?: string };
  MODEL_INVALID: { path: string; reason: string };
  MODEL_DIMENSION_MISMATCH: { model: string; got: number; want: number; store: string };
  FINGERPRINT_MISMATCH: { path: string; found: string; want: string; fields?: string[] };
  MODEL_FINGERPRINT_MISMATCH: { path: string; got: string; want: string; fields: string };
  GGUF_INVALID: { path: string; reason: string };
  VOCAB_UNAVAILABLE: { name: string; bundle: string; reason: string };
  EMBED_FAILED: { what?: string; model: string; reason: string };
  EMBEDDER_CLOSED: { model: string };
  DOWNLOAD_FAILED: { url: string; reason: string; status?: number };
  DOWNLOAD_CANCELLED: Empty;
  DOWNLOAD_HASH_MISMATCH: { url: string; want: string; got: string };
  MODEL_EXISTS: { path: string; reason: string };
  MODEL_FILE_MISSING: { path: string; id: string };
  MODEL_BUSY: { id: string; pid: Pid };
  SNAPSHOT_CORRUPT: { path: string; reason: string };
  SNAPSHOT_VERSION: { path: string; version: number | string };
  FSYNC_FAILED: { path: string; reason: string };
  DIR_FSYNC_FAILED: { path: string; reason: string };
  IO_FAILED: { path: string; op: string; reason: string };
  HNSW_FAILED: { path: string; op: string; reason: string };
  /** A file we wrote and read back (store.json, job.json, a profile, a keymap…) does not match its schema. */
  FILE_INVALID: { path: string; kind: string; field: string; expected: string; found: string };
  PROFILE_NOT_FOUND: { name: string };
  CITATION_MISSING: { retrieved?: string[] };
  CITATION_UNKNOWN: { markers: string; unknown?: string[]; plural: boolean };
  CHAT_BACKEND_FAILED: { backend: string; reason: string; status?: number; retryAfterMs?: number };
  PROFILES_INVALID: { path: string; reason: string };
  ACTION_UNKNOWN: { action: string; expected: string };
  QUERY_EMPTY: Empty;
  LAST_COMMAND_UNAVAILABLE: { reason: string };
  SKILL_INVALID: { path: string; reason: string };
  PRESET_INVALID: { path: string; reason: string };
  PRESET_NOT_FOUND: { family: string; known: string };
  CHAT_TIMEOUT: { backend: string; ms: number; phase: string };
  CHAT_CANCELLED: { backend: string };
  CHAT_TOOL_LIMIT: { backend: string; tool: string; rounds: number };
  ENDPOINT_REFUSED: { url: string; reason: string; rule?: string };
  QDRANT_COLLECTION_MISMATCH: { collection: string; reason: string };
  QDRANT_FAILED: {
    op: string;
    reason: string;
    status?: number;
    sourceId?: string;
    field?: string;
    batch?: number;
    batches?: number;
    attempts?: number;
  };
  VAULT_LOCKED: Empty;
  VAULT_BAD_PASSPHRASE: { path: string };
  VAULT_CORRUPT: { path: string; reason: string };
  VAULT_VERSION: { path: string; version: number | string };
  VAULT_KDF_PARAMS: { path: string; reason: string };
  WATCHER_RUNNING: { home: string; pid?: Pid };
  EXTRACT_CANCELLED: { path: string };
  CHUNK_FAILED: { path?: string; reason: string };
  STORE_NOT_AUTONOMOUS: { name: string; enable: string };
  STORE_NOT_SERVED: { name: string; served: string };
  EXCERPT_REFUSED: { path: string; reason: string };
  MARKER_UNKNOWN: { marker: string; known: string };
  SERVICE_REFUSED: { path: string; reason: string };
  SERVICE_RUNNING: { home: string; pid?: Pid };
}

type Empty = Record<string, never>;

export type ErrorCode = keyof ErrorDetails;

export const ERROR_MESSAGES: { [C in ErrorCode]: (d: ErrorDetails[C]) => string } = {
  // configuration / arguments
  INVALID_ARGUMENT: (d) => `invalid argument${d.name ? ` ${d.name}` : ''}: ${d.reason}`,
  // a command line the CLI cannot run: it prints the reason, then the usage, and exits 2
  USAGE: (d) => `${d.reason}`,
  INVALID_SIZE_LIMIT: (d) => `size limit ${d.value} is outside 1 MiB..1 GiB`,
  // scanning
  SOURCE_NOT_FOUND: (d) => `${d.path}: source root does not exist`,
  SOURCE_IS_SYMLINK: (d) => `${d.path}: source root is a symbolic link; links are never followed`,
  SOURCE_TYPE_MISMATCH: (d) => `${d.path}: expected a ${d.expected}, found a ${d.found}`,
  SOURCE_PERMISSION_DENIED: (d) => `${d.path}: permission denied`,
  SCAN_CANCELLED: () => 'scan cancelled',
  // extraction
  EXTRACT_FAILED: (d) => `${d.path}: ${d.reason}`,
  // stores / sources
  STORE_EXISTS: (d) => `a store named "${d.name}" already exists`,
  STORE_NOT_FOUND: (d) => `no store named "${d.name}"`,
  STORE_ATTACHED: (d) => `store "${d.name}" is attached to role(s) ${d.roles}; detach it first`,
  SOURCE_EXISTS: (d) => `${d.path} is already covered by source ${d.existing}`,
  SOURCE_OVERLAP: (d) => `${d.path} overlaps the existing source ${d.existing}`,
  SOURCE_UNKNOWN: (d) => `no source ${d.id} in store "${d.store}"`,
  SOURCE_DATA_DIR: (d) =>
    `${d.path} ${d.relation} the kortty data directory ${d.home}; indexing it would index the stores' own files (store.json, jobs, run logs), so it is refused`,
  STORE_BUSY: (d) =>
    d.lost
      ? `store "${d.store}": this job stalled longer than ${d.staleMs} ms and lost its lock${d.pid ? ` to pid ${d.pid}` : ''}; nothing was activated`
      : `a ${d.job ?? 'job'} is already running for store "${d.store}" (pid ${d.pid ?? '?'})`,
  JOB_CANCELLED: () => 'cancelled before activation; the previous snapshot is unchanged',
  // models
  MODEL_NOT_FOUND: (d) => `no installed embedding model "${d.id}"`,
  MODEL_CHANGED: (d) =>
    `${d.path}: model file changed since it was installed (sha256 mismatch); reinstall it`,
  MODEL_INVALID: (d) => `${d.path}: not a usable GGUF embedding model: ${d.reason}`,
  MODEL_DIMENSION_MISMATCH: (d) =>
    `model "${d.model}" produces ${d.got}-dimensional vectors but store "${d.store}" uses ${d.want}; rebuild the store to change models`,
  FINGERPRINT_MISMATCH: (d) =>
    `${d.path}: index was built with another embedding configuration (${d.found}); this store uses ${d.want}. Rebuild the store`,
  MODEL_FINGERPRINT_MISMATCH: (d) =>
    `${d.path}: this model (${d.got}) differs from the store's embedding configuration (${d.want}) in ${d.fields}; rebuild the store to change models`,
  GGUF_INVALID: (d) => `${d.path}: not a valid GGUF file (${d.reason})`,
  VOCAB_UNAVAILABLE: (d) => `vocabulary ${d.name} could not be extracted from ${d.bundle}: ${d.reason}`,
  EMBED_FAILED: (d) => `embedding ${d.what ?? 'text'} with ${d.model} failed: ${d.reason}`,
  EMBEDDER_CLOSED: (d) => `the embedder for ${d.model} was closed`,
  DOWNLOAD_FAILED: (d) => `download of ${d.url} failed: ${d.reason}`,
  DOWNLOAD_CANCELLED: () => 'download cancelled; run install again to resume',
  DOWNLOAD_HASH_MISMATCH: (d) =>
    `${d.url}: downloaded file has sha256 ${d.got} but ${d.want} was expected; the download was discarded`,
  MODEL_EXISTS: (d) => `${d.path}: ${d.reason}`,
  MODEL_FILE_MISSING: (d) => `${d.path}: the file of model "${d.id}" is missing; install or add it again`,
  MODEL_BUSY: (d) => `model "${d.id}" is being installed by another process (pid ${d.pid})`,
  // snapshots / storage
  SNAPSHOT_CORRUPT: (d) => `${d.path}: snapshot is damaged (${d.reason})`,
  SNAPSHOT_VERSION: (d) => `${d.path}: unsupported snapshot version ${d.version}`,
  FSYNC_FAILED: (d) => `${d.path}: fsync failed (${d.reason}); the candidate was abandoned`,
  DIR_FSYNC_FAILED: (d) =>
    `${d.path}: directory fsync failed after activation (${d.reason}); the new file is in place but may not survive a power loss`,
  IO_FAILED: (d) => `${d.path}: ${d.op} failed (${d.reason})`,
  HNSW_FAILED: (d) => `${d.path}: HNSW ${d.op} failed (${d.reason})`,
  FILE_INVALID: (d) => `${d.path}: damaged ${d.kind}: ${d.field}: expected ${d.expected}, found ${d.found}`,
  // retrieval / AI
  PROFILE_NOT_FOUND: (d) => `no AI profile "${d.name}"`,
  CITATION_MISSING: () => 'the answer cites no retrieved excerpt marker although citations are required',
  CITATION_UNKNOWN: (d) => `the answer cites ${d.markers}, which ${d.plural ? 'were' : 'was'} not retrieved`,
  CHAT_BACKEND_FAILED: (d) => `chat backend ${d.backend} failed: ${d.reason}`,
  PROFILES_INVALID: (d) => `${d.path}: ${d.reason}`,
  ACTION_UNKNOWN: (d) => `unknown AI action "${d.action}"; expected one of ${d.expected}`,
  QUERY_EMPTY: () => 'nothing to ask: give a prompt or select terminal text',
  LAST_COMMAND_UNAVAILABLE: (d) => `cannot read the last command: ${d.reason}`,
  SKILL_INVALID: (d) => `${d.path}: AI Skill not usable: ${d.reason}`,
  PRESET_INVALID: (d) => `${d.path}: model-family preset not usable: ${d.reason}`,
  PRESET_NOT_FOUND: (d) => `no model-family preset "${d.family}" (known: ${d.known})`,
  CHAT_TIMEOUT: (d) => `chat backend ${d.backend} sent nothing for ${d.ms} ms (${d.phase}); gave up`,
  CHAT_CANCELLED: (d) => `chat with ${d.backend} cancelled`,
  CHAT_TOOL_LIMIT: (d) =>
    `chat backend ${d.backend} kept calling ${d.tool} after ${d.rounds} tool rounds; no answer`,
  // qdrant / vault
  ENDPOINT_REFUSED: (d) => `${d.url}: ${d.reason}`,
  QDRANT_COLLECTION_MISMATCH: (d) => `Qdrant collection "${d.collection}": ${d.reason}`,
  QDRANT_FAILED: (d) => `Qdrant ${d.op} failed: ${d.reason}`,
  VAULT_LOCKED: () => 'the vault is locked: set KORTTY_VAULT_PASSPHRASE or enter the passphrase',
  VAULT_BAD_PASSPHRASE: (d) => `${d.path}: wrong passphrase or damaged vault`,
  VAULT_CORRUPT: (d) => `${d.path}: vault file is damaged (${d.reason})`,
  VAULT_VERSION: (d) => `${d.path}: unsupported vault version ${d.version}`,
  VAULT_KDF_PARAMS: (d) => `${d.path}: KDF parameters out of bounds (${d.reason})`,
  // watcher (appended by the terminal-integration helper)
  WATCHER_RUNNING: (d) =>
    `a watcher is already running for ${d.home} (pid ${d.pid ?? '?'}); stop it first or pass --if-not-running`,
  // extraction / chunking (appended by the extract+chunk helper)
  EXTRACT_CANCELLED: (d) => `${d.path}: extraction cancelled`,
  CHUNK_FAILED: (d) => `chunking failed${d.path ? ` for ${d.path}` : ''}: ${d.reason}`,
  // MCP server
  STORE_NOT_AUTONOMOUS: (d) =>
    `store "${d.name}" has not opted into autonomous workflows, so MCP clients can neither see nor search it; ` +
    `the user can allow it with: ${d.enable}`,
  STORE_NOT_SERVED: (d) =>
    `store "${d.name}" is not served by this MCP server (started with ${d.served}); the user can add ` +
    `--store "${d.name}" to the server's command`,
  EXCERPT_REFUSED: (d) => `${d.path}: cannot be read through MCP: ${d.reason}`,
  MARKER_UNKNOWN: (d) => `marker ${d.marker} is not from the last search of this session (${d.known})`,
  // query service
  SERVICE_REFUSED: (d) => `${d.path}: ${d.reason}`,
  SERVICE_RUNNING: (d) => `a query service is already running for ${d.home} (pid ${d.pid ?? '?'})`,
};

export class KorttyError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: ErrorCode, details: Record<string, unknown> = {}, cause?: unknown, message?: string) {
    // `message` lets an error crossing a process boundary keep its original wording.
    super(
      message ?? (ERROR_MESSAGES[code] as (d: Record<string, unknown>) => string)(details),
      cause === undefined ? undefined : { cause },
    );
    this.name = 'KorttyError';
    this.code = code;
    this.details = details;
  }
}

/** A KorttyError whose code is known, with that code's details. */
export type KorttyErrorOf<C extends ErrorCode> = KorttyError & {
  readonly code: C;
  readonly details: ErrorDetails[C];
};

/** Codes whose details are all optional may be raised without them. */
type NoDetails = { [C in ErrorCode]: Empty extends ErrorDetails[C] ? C : never }[ErrorCode];

/** The one way code raises an error: the details must have the shape the code declares. */
export function createError<C extends NoDetails>(code: C): KorttyError;
export function createError<C extends ErrorCode>(
  code: C,
  details: ErrorDetails[C],
  cause?: unknown,
): KorttyError;
export function createError(
  code: ErrorCode,
  details: Record<string, unknown> = {},
  cause?: unknown,
): KorttyError {
  return new KorttyError(code, details, cause);
}

export function isKorttyError(err: unknown): err is KorttyError;
export function isKorttyError<C extends ErrorCode>(err: unknown, code: C): err is KorttyErrorOf<C>;
export function isKorttyError(err: unknown, code?: ErrorCode): err is KorttyError {
  return err instanceof KorttyError && (code === undefined || err.code === code);
}
