// Run records: what an AI action with retrieval was given and what it cited. Pure shape,
// serialization and staleness; appending and reading is src/ai/runs-file.ts.
//
// Log format: rag/runs/YYYY-MM-DD.jsonl (UTC day of the record's time), then YYYY-MM-DD.1.jsonl,
// .2.jsonl, … once a day's file reaches RUN_LOG_MAX_BYTES; one JSON object per line, each starting
// with `{"v":1,` — that fixed prefix lets a reader resynchronise after a line torn by a crash. The raw answer is kept only when the action did not succeed
// (rejected by the citation check, or failed), so it stays viewable; ok runs keep markers only.
// A record made by an MCP tool call carries `via` (which tool, which client); its `profile` is ''.
// Fields are only ever added as optional ones, so older records still read.

import { z } from 'zod';
import type { ActionKind, Excerpt, RetrievalMode } from '../types.js';
import { firstIssue } from '../util/json-check.js';
import { ACTION_KINDS } from './policy.js';

export const RUN_VERSION = 1;
export const RUN_LINE_PREFIX = '{"v":1,';

const num = z.number();
const line = z.number().int().positive();

/** One excerpt as recorded (its text is not kept). */
export const runExcerptSchema = z.object({
  marker: z.string(),
  storeId: z.string(),
  storeName: z.string(),
  sourceId: z.string(),
  path: z.string(),
  lineStart: line.optional(),
  lineEnd: line.optional(),
  pageStart: line.optional(),
  pageEnd: line.optional(),
  chunkId: z.string(),
  contentSha256: z.string(),
  vectorRank: num.optional(),
  lexicalRank: num.optional(),
  vectorScore: num.optional(),
  lexicalScore: num.optional(),
  fusedScore: num,
  tokens: num,
  trimmed: z.boolean(),
});
export type RunExcerpt = z.infer<typeof runExcerptSchema>;

const runStatusSchema = z.enum(['ok', 'rejected', 'failed']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** Where a run came from when not from an AI action of ours: an MCP client's tool call. */
const runViaSchema = z.object({
  kind: z.literal('mcp'),
  tool: z.string(),
  /** The client's own name and version from the MCP handshake (untrusted, display only). */
  client: z.string().optional(),
});
export type RunVia = z.infer<typeof runViaSchema>;

/** An action about the last command: what was known of it (its text is not kept). */
const runLastCommandSchema = z.object({
  exitCode: z.number().int().nullable(),
  truncated: z.boolean(),
  /** The boundaries came from the shell integration's marks, not a prompt pattern. */
  marks: z.boolean().optional(),
});
export type RunLastCommand = z.infer<typeof runLastCommandSchema>;

/** Secrets redacted from terminal text before it was sent: kinds and counts, never the secret. */
const runRedactionSchema = z.object({ kind: z.string(), count: z.number().int().positive() });

/** One line of a run log. Unknown fields are dropped, so a newer version's records still read. */
export const runRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  /** ISO 8601, UTC. */
  time: z.string(),
  action: z.enum(ACTION_KINDS as [ActionKind, ...ActionKind[]]),
  profile: z.string(),
  backend: z.string().optional(),
  model: z.string().optional(),
  retrievalMode: z.enum(['before', 'tool', 'both']).optional(),
  stores: z.array(z.object({ id: z.string(), name: z.string() })),
  query: z.string(),
  excerpts: z.array(runExcerptSchema),
  /** Markers the answer cited (`R1`...), retrieved or not. */
  cited: z.array(z.string()),
  status: runStatusSchema,
  /** Why it was rejected or failed: the error code and message. */
  reason: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Raw answer, kept when status is not ok. */
  answer: z.string().optional(),
  via: runViaSchema.optional(),
  /** The selection was cut (bytes when read, tokens to fit the context): what was kept of what. */
  selectionCut: z
    .object({
      bytesCut: z.boolean(),
      readBytes: num,
      bytesTotal: num.optional(),
      keptBytes: num,
      keptTokens: num.optional(),
      tokensTotal: num.optional(),
      tokensAtLeast: z.boolean().optional(),
      slotTokens: num.optional(),
    })
    .optional(),
  lastCommand: runLastCommandSchema.optional(),
  redactions: z.array(runRedactionSchema).optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

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
  selectionCut?: RunRecord['selectionCut'];
  lastCommand?: RunLastCommand;
  redactions?: readonly { kind: string; count: number }[];
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
  if (input.selectionCut !== undefined) r.selectionCut = { ...input.selectionCut };
  if (input.via !== undefined)
    r.via = {
      kind: input.via.kind,
      tool: input.via.tool,
      ...(input.via.client !== undefined ? { client: input.via.client } : {}),
    };
  if (input.lastCommand !== undefined)
    r.lastCommand = {
      exitCode: input.lastCommand.exitCode,
      truncated: input.lastCommand.truncated,
      ...(input.lastCommand.marks !== undefined ? { marks: input.lastCommand.marks } : {}),
    };
  if (input.redactions !== undefined && input.redactions.length > 0)
    r.redactions = input.redactions.map((x) => ({ kind: x.kind, count: x.count }));
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

/** A log file grows to about this size (plus one record per concurrent writer), then the next starts. */
export const RUN_LOG_MAX_BYTES = 16 * 1024 * 1024;
/** Retention: at most this many log files (512 MiB) … */
export const RUN_LOG_KEEP_FILES = 32;
/** … none more than this many days older than the newest. */
export const RUN_LOG_KEEP_DAYS = 90;
/** A line longer than this is reported as damaged without being held in memory. */
export const RUN_LINE_MAX_BYTES = 8 * 1024 * 1024;

/** One log file: its UTC day and its part (0 for `YYYY-MM-DD.jsonl`, n for `YYYY-MM-DD.n.jsonl`). */
export interface RunFile {
  name: string;
  day: string;
  part: number;
}

const RUN_FILE_RE = /^(\d{4}-\d{2}-\d{2})(?:\.([1-9]\d{0,5}))?\.jsonl$/;

export function runDay(time: Date): string {
  return time.toISOString().slice(0, 10);
}

export function runFileName(day: string, part = 0): string {
  return part === 0 ? `${day}.jsonl` : `${day}.${part}.jsonl`;
}

export function parseRunFileName(name: string): RunFile | undefined {
  const m = RUN_FILE_RE.exec(name);
  return m ? { name, day: m[1] as string, part: m[2] ? Number(m[2]) : 0 } : undefined;
}

/** Log files among directory entries, oldest first. */
export function runFiles(names: readonly string[]): RunFile[] {
  return names
    .map(parseRunFileName)
    .filter((f): f is RunFile => f !== undefined)
    .sort((a, b) => (a.day === b.day ? a.part - b.part : a.day < b.day ? -1 : 1));
}

/**
 * The file a record of `day` goes to: the day's newest part, or the next one once that part has
 * reached RUN_LOG_MAX_BYTES (`sizeOf` gives a file's size). Never a rename: concurrent writers
 * that both see a full part simply both append to the next one, so no line is lost.
 */
export function pickRunFile(
  files: readonly RunFile[],
  day: string,
  sizeOf: (name: string) => number,
): string {
  const today = files.filter((f) => f.day === day);
  const last = today.at(-1);
  if (!last) return runFileName(day);
  return sizeOf(last.name) >= RUN_LOG_MAX_BYTES ? runFileName(day, last.part + 1) : last.name;
}

/**
 * Files retention removes once `newest` exists: those more than RUN_LOG_KEEP_DAYS days before the
 * newest file's day, then the oldest beyond RUN_LOG_KEEP_FILES. Never the newest file itself.
 */
export function expiredRunFiles(files: readonly RunFile[]): string[] {
  const newest = files.at(-1);
  if (!newest) return [];
  const cutoff = runDay(new Date(Date.parse(`${newest.day}T00:00:00Z`) - RUN_LOG_KEEP_DAYS * 86_400_000));
  const kept = files.filter((f) => f.day >= cutoff);
  const expired = files.filter((f) => f.day < cutoff).map((f) => f.name);
  return [...expired, ...kept.slice(0, Math.max(0, kept.length - RUN_LOG_KEEP_FILES)).map((f) => f.name)];
}

export interface DamagedLine {
  file: string;
  /** 1-based line number (a whole file read from its start). */
  line?: number;
  /** Byte offset of the line (a file read from its end, for the newest records only). */
  offset?: number;
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
  text.split('\n').forEach((line, i) => {
    parseRunLine(line, file, { line: i + 1 }, records, damaged);
  });
  return { records, damaged };
}

/** One line of a log (`where`: its number or offset): its record to `records`, or its damage to `damaged`. */
export function parseRunLine(
  line: string,
  file: string,
  where: { line: number } | { offset: number },
  records: RunRecord[],
  damaged: DamagedLine[],
): void {
  if (line.trim() === '') return;
  let rec: RunRecord | string | undefined = tryParse(line);
  if (typeof rec === 'string') {
    const at = line.lastIndexOf(RUN_LINE_PREFIX);
    const tail = at > 0 ? tryParse(line.slice(at)) : undefined;
    const recovered = tail !== undefined && typeof tail !== 'string';
    damaged.push({ file, ...where, reason: recovered ? 'torn record before a recovered one' : rec });
    rec = recovered ? tail : undefined;
  }
  if (rec) records.push(rec);
}

/** The record on one line, or why it is not one (for a record, the field that is wrong). */
function tryParse(line: string): RunRecord | string {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return 'not a run record';
  }
  const r = runRecordSchema.safeParse(raw);
  if (r.success) return r.data;
  const { field, expected, found } = firstIssue(r.error, raw);
  return `damaged run record: ${field}: expected ${expected}, found ${found}`;
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
