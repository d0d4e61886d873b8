// Run records: what an AI action with retrieval was given and what it cited. Pure shape,
// serialization and staleness; appending and reading is src/ai/runs-file.ts.
//
// Log format: rag/runs/YYYY-MM-DD.jsonl (UTC day of the record's time), one JSON object per
// line, each starting with `{"v":1,` — that fixed prefix lets a reader resynchronise after a
// line torn by a crash. The raw answer is kept only when the action did not succeed
// (rejected by the citation check, or failed), so it stays viewable; ok runs keep markers only.
// A record made by an MCP tool call carries `via` (which tool, which client); its `profile` is ''.
// Fields are only ever added as optional ones, so older records still read.

import type { ActionKind, ChunkLocation, Excerpt, RetrievalMode } from '../types.js';

export const RUN_VERSION = 1;
export const RUN_LINE_PREFIX = '{"v":1,';

export interface RunExcerpt extends ChunkLocation {
  marker: string;
  storeId: string;
  storeName: string;
  sourceId: string;
  path: string;
  chunkId: string;
  contentSha256: string;
  vectorRank?: number;
  lexicalRank?: number;
  vectorScore?: number;
  lexicalScore?: number;
  fusedScore: number;
  tokens: number;
  trimmed: boolean;
}

export type RunStatus = 'ok' | 'rejected' | 'failed';

/** Where a run came from when not from an AI action of ours: an MCP client's tool call. */
export interface RunVia {
  kind: 'mcp';
  tool: string;
  /** The client's own name and version from the MCP handshake (untrusted, display only). */
  client?: string;
}

export interface RunRecord {
  v: 1;
  id: string;
  /** ISO 8601, UTC. */
  time: string;
  action: ActionKind;
  profile: string;
  backend?: string;
  model?: string;
  retrievalMode?: RetrievalMode;
  stores: { id: string; name: string }[];
  query: string;
  excerpts: RunExcerpt[];
  /** Markers the answer cited (`R1`...), retrieved or not. */
  cited: string[];
  status: RunStatus;
  /** Why it was rejected or failed: the error code and message. */
  reason?: { code: string; message: string };
  /** Raw answer, kept when status is not ok. */
  answer?: string;
  via?: RunVia;
}

export interface RunInput {
  id: string;
  time: Date;
  action: ActionKind;
  profile: string;
  backend?: string;
  model?: string;
  retrievalMode?: RetrievalMode;
  stores: readonly { id: string; name: string }[];
  query: string;
  excerpts: readonly Excerpt[];
  cited: readonly string[];
  status: RunStatus;
  reason?: { code: string; message: string };
  answer?: string;
  via?: RunVia;
}

const EXCERPT_KEYS = [
  'marker',
  'storeId',
  'storeName',
  'sourceId',
  'path',
  'lineStart',
  'lineEnd',
  'pageStart',
  'pageEnd',
  'chunkId',
  'contentSha256',
  'vectorRank',
  'lexicalRank',
  'vectorScore',
  'lexicalScore',
  'fusedScore',
  'tokens',
  'trimmed',
] as const;

/** The excerpt as recorded: location, ids, scores and hash — not the text. */
export function runExcerpt(e: Excerpt): RunExcerpt {
  const out: Record<string, unknown> = {};
  for (const k of EXCERPT_KEYS) if (e[k] !== undefined) out[k] = e[k];
  return out as unknown as RunExcerpt;
}

export function createRunRecord(input: RunInput): RunRecord {
  // Key order is fixed (v first) so every line starts with RUN_LINE_PREFIX.
  const r: RunRecord = {
    v: 1,
    id: input.id,
    time: input.time.toISOString(),
    action: input.action,
    profile: input.profile,
    stores: input.stores.map((s) => ({ id: s.id, name: s.name })),
    query: input.query,
    excerpts: input.excerpts.map(runExcerpt),
    cited: [...input.cited],
    status: input.status,
  };
  if (input.backend !== undefined) r.backend = input.backend;
  if (input.model !== undefined) r.model = input.model;
  if (input.retrievalMode !== undefined) r.retrievalMode = input.retrievalMode;
  if (input.reason !== undefined) r.reason = { code: input.reason.code, message: input.reason.message };
  if (input.status !== 'ok' && input.answer !== undefined) r.answer = input.answer;
  if (input.via !== undefined)
    r.via = {
      kind: input.via.kind,
      tool: input.via.tool,
      ...(input.via.client !== undefined ? { client: input.via.client } : {}),
    };
  return r;
}

/** One line, newline-terminated (JSON escapes line feeds inside strings, so a record never spans lines). */
export function serializeRun(r: RunRecord): string {
  const { v, ...rest } = r;
  return `${JSON.stringify({ v, ...rest })}\n`;
}

/** Who ran it, for lists: `profile NAME`, or `MCP TOOL (CLIENT)` for an MCP tool call. */
export function runOrigin(r: Pick<RunRecord, 'profile' | 'via'>): string {
  if (r.via?.kind === 'mcp') return `MCP ${r.via.tool}${r.via.client ? ` (${r.via.client})` : ''}`;
  return `profile ${r.profile}`;
}

export function runFileName(time: Date): string {
  return `${time.toISOString().slice(0, 10)}.jsonl`;
}

export const RUN_FILE_RE = /^\d{4}-\d{2}-\d{2}\.jsonl$/;

export interface DamagedLine {
  file: string;
  line: number;
  reason: string;
}

/**
 * Records from one log file's text. A line torn by a crash (and a record appended right after
 * it, glued onto the same line) is recovered from the last RUN_LINE_PREFIX in the line; what
 * cannot be parsed is reported, not thrown.
 */
export function parseRunLines(text: string, file: string): { records: RunRecord[]; damaged: DamagedLine[] } {
  const records: RunRecord[] = [];
  const damaged: DamagedLine[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let rec = tryParse(line);
    if (!rec) {
      const at = line.lastIndexOf(RUN_LINE_PREFIX);
      if (at > 0) rec = tryParse(line.slice(at));
      damaged.push({
        file,
        line: i + 1,
        reason: rec ? 'torn record before a recovered one' : 'not a run record',
      });
    }
    if (rec) records.push(rec);
  });
  return { records, damaged };
}

function tryParse(line: string): RunRecord | undefined {
  try {
    const r = JSON.parse(line) as RunRecord;
    if (r && r.v === 1 && typeof r.time === 'string' && Array.isArray(r.excerpts) && Array.isArray(r.cited))
      return r;
  } catch {}
  return undefined;
}

export interface StaleExcerpt extends RunExcerpt {
  /** The source's content hash differs from the recorded one, or the source is gone. */
  stale: boolean;
  /** The source (or its document) no longer exists. */
  missing: boolean;
}

export interface RunWithStaleness extends Omit<RunRecord, 'excerpts'> {
  excerpts: StaleExcerpt[];
  /** Cited markers whose excerpt is stale. */
  staleCited: string[];
}

/**
 * Mark excerpts whose document changed since the run. `currentHash` returns the document's
 * current content sha256, or undefined when it is no longer indexed.
 */
export function flagStale(
  record: RunRecord,
  currentHash: (e: RunExcerpt) => string | undefined,
): RunWithStaleness {
  const excerpts = record.excerpts.map((e) => {
    const now = currentHash(e);
    return { ...e, stale: now !== e.contentSha256, missing: now === undefined };
  });
  const staleMarkers = new Set(excerpts.filter((e) => e.stale).map((e) => e.marker));
  return { ...record, excerpts, staleCited: record.cited.filter((m) => staleMarkers.has(m)) };
}
