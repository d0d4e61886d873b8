import { basename } from 'node:path';
import { MAX_TOOL_QUERY_CHARS } from '../ai/backends/search-knowledge.js';
import { MCP_ACTION, mcpStoreAccess, mcpVisibleStores } from '../ai/policy.js';
import { createRunRecord, type RunStatus } from '../ai/runs.js';
import { appendRunUnsynced, newRunId, syncRunLog } from '../ai/runs-file.js';
import { countTokens } from '../chunk/tokenizer.js';
import { createError, isKorttyError } from '../errors.js';
import { renderContextBlock } from '../retrieve/block.js';
import { selectExcerpts } from '../retrieve/bounds.js';
import { sanitizeInline } from '../retrieve/sanitize.js';
import { type SearchDeps, search, storeFailureWarning } from '../retrieve/search.js';
import { runsDir } from '../storage/paths.js';
import { damagedStoreWarning, scanStores } from '../store/store-config.js';
import type { SourceRecord, StoreConfig } from '../store/store-types.js';
import type { Candidate, Excerpt } from '../types.js';
import { formatRefusal, nameRefusal, readExcerptFile } from './excerpt-file.js';
import type { ExcerptRef, ReadArgs, SearchArgs } from './tools.js';

// One MCP connection: the tools' logic over the same search(), bounds, block and policy as
// `search` and `ask`. Pure of the protocol (server.ts wires it to the SDK). Every call re-reads
// store.json, so opt-in, role and source changes apply at once; calls run one at a time, so a
// snapshot swap never happens under a running search and "the last search" is well defined.
// Every call, failed ones included, is a run record marked as coming from MCP. The record is
// written before the answer leaves and fsynced right after it, off the reply path (one fsync
// costs more than a warm search; bursts of calls share one): a killed server loses no record,
// only a power cut in those milliseconds could.

/** The tool text with one line per store left out (already sanitized). */
function withWarnings(text: string, warnings: readonly string[]): string {
  return warnings.length === 0 ? text : `${text}\n\n${warnings.map((w) => `warning: ${w}`).join('\n')}`;
}

/** search() bounds the block to 25% of this when no context window is given (same default). */
const DEFAULT_CONTEXT_WINDOW = 32768;

export interface McpSessionOptions {
  home: string;
  /** The server's --store names: narrows what is visible, never widens it. */
  served?: readonly string[];
  searchDeps: SearchDeps<StoreConfig>;
  /** The client's name and version from the MCP handshake, once known. */
  clientName?: () => string | undefined;
}

export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

interface RunPart {
  stores: readonly StoreConfig[];
  query: string;
  excerpts: readonly Excerpt[];
}

interface MarkerRef {
  /** The excerpt as it can be read again: for search hits the whole chunk, before trimming. */
  candidate: Candidate;
  changedSinceIndexed?: boolean;
}

export interface McpSession {
  listStores(): Promise<ToolOutput>;
  searchKnowledge(args: SearchArgs): Promise<ToolOutput>;
  readExcerpt(args: ReadArgs): Promise<ToolOutput>;
  /** Waits for the last run records to be fsynced. */
  flush(): Promise<void>;
}

export function createMcpSession(opts: McpSessionOptions): McpSession {
  let markers = new Map<string, MarkerRef>();
  let nextMarker = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const dirty = new Set<string>();
  let flushing: Promise<void> | undefined;
  const drain = async () => {
    while (dirty.size > 0) {
      const paths = [...dirty];
      dirty.clear();
      for (const p of paths)
        await syncRunLog(p).catch((err) =>
          process.stderr.write(`kortty-rag mcp: ${(err as Error).message}\n`),
        );
    }
    flushing = undefined;
  };

  const stores = async () => {
    const { stores: all, damaged } = await scanStores(opts.home);
    // A damaged store.json hides whether the store opted in, so the store is named, never dropped
    // silently; its content is not searched.
    const warnings = damaged.map((d) => sanitizeInline(damagedStoreWarning(d)));
    return { all, visible: mcpVisibleStores(all, opts.served), warnings };
  };

  const requireStore = (ref: string, all: readonly StoreConfig[]): StoreConfig => {
    const access = mcpStoreAccess(ref, all, opts.served);
    if (access.ok) return access.store;
    if (access.reason === 'not-found') throw createError('STORE_NOT_FOUND', { name: ref });
    const s = access.store!;
    if (access.reason === 'not-autonomous') {
      const roles = s.roles.map((r) => ` --role ${r}`).join('');
      throw createError('STORE_NOT_AUTONOMOUS', {
        name: s.name,
        enable: `kortty-rag store roles ${shellWord(s.name)}${roles} --autonomous (or "autonomous workflows" in the TUI's Roles dialog)`,
      });
    }
    throw createError('STORE_NOT_SERVED', {
      name: s.name,
      served: (opts.served ?? []).map((n) => `--store ${shellWord(n)}`).join(' '),
    });
  };

  /** Serialised, recorded, errors made safe to show an agent. */
  function call(tool: string, args: unknown, fn: () => Promise<{ out: ToolOutput; run: RunPart }>) {
    const p = queue.then(async () => {
      let status: RunStatus = 'ok';
      let reason: { code: string; message: string } | undefined;
      let result: { out: ToolOutput; run: RunPart } | undefined;
      let failure: unknown;
      try {
        result = await fn();
      } catch (err) {
        status = 'failed';
        failure = err;
        reason = isKorttyError(err)
          ? { code: err.code, message: err.message }
          : { code: 'INTERNAL', message: (err as Error)?.message ?? String(err) };
      }
      const client = opts.clientName?.();
      // Recorded before the answer leaves: an excerpt the user cannot audit is never handed out.
      const log = appendRunUnsynced(
        createRunRecord({
          id: newRunId(),
          time: new Date(),
          action: MCP_ACTION,
          profile: '',
          stores: (result?.run.stores ?? []).map((s) => ({ id: s.id, name: s.name })),
          query: result?.run.query ?? describeArgs(args),
          excerpts: result?.run.excerpts ?? [],
          cited: [],
          status,
          ...(reason ? { reason } : {}),
          via: { kind: 'mcp', tool, ...(client ? { client } : {}) },
        }),
        runsDir(opts.home),
      );
      dirty.add(log);
      flushing ??= drain();
      if (result) return result.out;
      if (isKorttyError(failure)) throw failure;
      process.stderr.write(`kortty-rag mcp: ${tool} failed: ${(failure as Error)?.stack ?? failure}\n`);
      throw new Error(`${tool} failed inside the server (details on the server's stderr)`);
    });
    queue = p.catch(() => {});
    return p;
  }

  return {
    flush: async () => {
      await queue;
      await flushing;
    },
    listStores: () =>
      call('list_stores', {}, async () => {
        const { visible, warnings } = await stores();
        const rows = visible.map(storeRow);
        const text =
          rows.length === 0
            ? noStoresText(opts.served)
            : rows
                .map(
                  (r) =>
                    `${r.name} · ${r.type} · roles ${r.roles.join(', ') || 'none'} · model ${r.model} · ` +
                    `${r.sources} source(s), ${r.documents} document(s), ${r.chunks} chunk(s) · ${r.status}` +
                    r.roots.map((x) => `\n  ${x.kind} ${x.path} (${x.status})`).join(''),
                )
                .join('\n');
        return {
          out: {
            text: withWarnings(text, warnings),
            structured: { stores: rows, ...(warnings.length > 0 ? { warnings } : {}) },
          },
          run: { stores: visible, query: '', excerpts: [] },
        };
      }),

    searchKnowledge: (args) =>
      call('search_knowledge', args, async () => {
        const { all, visible, warnings: damaged } = await stores();
        const chosen = args.stores?.length ? unique(args.stores.map((r) => requireStore(r, all))) : visible;
        const query = args.query.trim().slice(0, MAX_TOOL_QUERY_CHARS);
        const res = await search(
          { stores: chosen, query, ...(args.mode ? { mode: args.mode } : {}) },
          opts.searchDeps,
        );
        // A store left out of this search (damaged snapshot, unreachable server) is named even when
        // it was asked for by name: its excerpts are missing from the answer.
        const warnings = [
          ...(args.stores?.length ? [] : damaged),
          ...res.failedStores.map((f) => sanitizeInline(storeFailureWarning(f))),
        ];
        const byKey = new Map(res.candidates.map((c) => [c.key, c]));
        markers = new Map(res.excerpts.map((e) => [e.marker, { candidate: byKey.get(e.key) ?? e }]));
        nextMarker = res.excerpts.length + 1;
        const text =
          res.block ||
          (chosen.length === 0
            ? noStoresText(opts.served)
            : 'No matching excerpts (the stores may have no enabled, indexed sources).');
        return {
          out: {
            text: withWarnings(text, warnings),
            structured: {
              excerpts: res.excerpts.map(excerptRef),
              stores: chosen.map((s) => sanitizeInline(s.name)),
              ...(warnings.length > 0 ? { warnings } : {}),
            },
          },
          run: { stores: chosen, query, excerpts: res.excerpts },
        };
      }),

    readExcerpt: (args) =>
      call('read_excerpt', args, async () => {
        if ((args.marker === undefined) === (args.path === undefined))
          throw createError('INVALID_ARGUMENT', {
            name: 'marker/path',
            reason: 'give either a marker or a path',
          });
        if (args.lineStart !== undefined && args.lineEnd !== undefined && args.lineEnd < args.lineStart)
          throw createError('INVALID_ARGUMENT', { name: 'lineEnd', reason: 'is before lineStart' });
        const { all, visible } = await stores();
        const ranged = args.lineStart !== undefined || args.lineEnd !== undefined;
        let store: StoreConfig;
        let source: SourceRecord;
        let path: string;
        let query: string;
        if (args.marker !== undefined) {
          const ref = markers.get(args.marker);
          if (!ref) {
            throw createError('MARKER_UNKNOWN', {
              marker: args.marker,
              known: markers.size
                ? `known: ${[...markers.keys()].join(', ')}`
                : 'no search yet in this session',
            });
          }
          const c = ref.candidate;
          store = requireStore(c.storeId, all);
          const src = store.sources.find((s) => s.id === c.sourceId && s.enabled);
          if (!src)
            throw createError('EXCERPT_REFUSED', {
              path: args.marker,
              reason: 'its source was disabled or removed',
            });
          source = src;
          path = c.path;
          query = `${args.marker}${ranged ? ` lines ${args.lineStart ?? 1}-${args.lineEnd ?? ''}` : ''}`;
          if (!ranged) {
            const changed = Object.hasOwn(source.hashes, path)
              ? source.hashes[path] !== c.contentSha256
              : true;
            return bounded(store, c, Number(args.marker.slice(1)), query, changed, false);
          }
        } else {
          path = args.path!;
          const found = locate(path, visible);
          if (!found)
            throw createError('EXCERPT_REFUSED', {
              path: sanitizeInline(path),
              reason:
                'not an absolute path inside an enabled source of a store visible to MCP clients (list_stores shows them)',
            });
          ({ store, source } = found);
          query = `${path}${ranged ? ` lines ${args.lineStart ?? 1}-${args.lineEnd ?? ''}` : ''}`;
        }
        const names = source.kind === 'folder' ? path.slice(source.path.length + 1).split('/') : [];
        // A file source's own name was chosen by the user (hidden or not); only its format matters.
        const refusal = source.kind === 'folder' ? nameRefusal(names) : formatRefusal(basename(path));
        if (refusal) throw createError('EXCERPT_REFUSED', { path: sanitizeInline(path), reason: refusal });
        if (!Object.hasOwn(source.hashes, path))
          throw createError('EXCERPT_REFUSED', {
            path: sanitizeInline(path),
            reason: 'not an indexed document of its source (excluded by its rules, or not synced yet)',
          });
        const read = readExcerptFile(source.path, names, source.options.maxFileBytes);
        if (!read.ok)
          throw createError('EXCERPT_REFUSED', { path: sanitizeInline(path), reason: read.reason });
        const lines = read.text.split('\n');
        if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
        const a = args.lineStart ?? 1;
        if (a > lines.length)
          throw createError('INVALID_ARGUMENT', {
            name: 'lineStart',
            reason: `the file has ${lines.length} line(s)`,
          });
        const b = Math.min(args.lineEnd ?? lines.length, lines.length);
        const candidate: Candidate = {
          key: `${store.id}:read:${source.id}:${path}:${a}-${b}`,
          storeId: store.id,
          storeName: store.name,
          sourceId: source.id,
          path,
          lineStart: a,
          lineEnd: b,
          text: lines.slice(a - 1, b).join('\n'),
          tokens: 0,
          fusedScore: 0,
          chunkId: `read:${a}-${b}`,
          contentSha256: read.sha256,
        };
        return bounded(store, candidate, nextMarker, query, source.hashes[path] !== read.sha256, true);
      }),
  };

  /** The same bounds and block as a search, for one excerpt numbered `n`. */
  function bounded(
    store: StoreConfig,
    c: Candidate,
    n: number,
    query: string,
    changed: boolean,
    fresh: boolean,
  ) {
    const [e] = selectExcerpts([c], { contextWindow: DEFAULT_CONTEXT_WINDOW, firstMarker: n }, countTokens);
    if (!e)
      throw createError('EXCERPT_REFUSED', {
        path: sanitizeInline(c.path),
        reason: 'nothing fits the token budget',
      });
    if (fresh) {
      markers.set(e.marker, { candidate: e, changedSinceIndexed: changed });
      nextMarker = n + 1;
    }
    return {
      out: { text: renderContextBlock([e]), structured: { ...excerptRef(e), changedSinceIndexed: changed } },
      run: { stores: [store], query, excerpts: [e] },
    };
  }
}

/** The visible store and enabled source holding an absolute path, by the path's text alone. */
function locate(
  path: string,
  visible: readonly StoreConfig[],
): { store: StoreConfig; source: SourceRecord } | null {
  if (!path.startsWith('/') || path.includes('\0')) return null;
  for (const store of visible) {
    for (const source of store.sources) {
      if (!source.enabled) continue;
      const inside =
        source.kind === 'file'
          ? path === source.path
          : path.startsWith(`${source.path.replace(/\/+$/, '')}/`);
      if (inside) return { store, source };
    }
  }
  return null;
}

function excerptRef(e: Excerpt): ExcerptRef {
  return {
    marker: e.marker,
    store: sanitizeInline(e.storeName),
    path: sanitizeInline(e.path),
    ...(e.lineStart !== undefined ? { lineStart: e.lineStart } : {}),
    ...(e.lineEnd !== undefined ? { lineEnd: e.lineEnd } : {}),
    ...(e.pageStart !== undefined ? { pageStart: e.pageStart } : {}),
    ...(e.pageEnd !== undefined ? { pageEnd: e.pageEnd } : {}),
    trimmed: e.trimmed,
    tokens: e.tokens,
  };
}

function storeRow(s: StoreConfig) {
  const enabled = s.sources.filter((x) => x.enabled);
  return {
    name: sanitizeInline(s.name),
    type: s.type,
    roles: [...s.roles],
    model: sanitizeInline(s.modelId),
    sources: enabled.length,
    documents: enabled.reduce((n, x) => n + x.files, 0),
    chunks: enabled.reduce((n, x) => n + x.chunks, 0),
    status: storeStatus(enabled),
    roots: enabled.map((x) => ({ path: sanitizeInline(x.path), kind: x.kind, status: x.status })),
  };
}

function storeStatus(enabled: readonly SourceRecord[]): string {
  if (enabled.length === 0) return 'no enabled sources';
  const has = (st: SourceRecord['status']) => enabled.some((x) => x.status === st);
  if (has('ERROR')) return 'error';
  if (has('MISSING')) return 'source missing';
  if (has('SCANNING') || has('INDEXING')) return 'indexing';
  if (enabled.every((x) => x.status === 'READY')) return 'ready';
  return 'not indexed yet';
}

function noStoresText(served: readonly string[] | undefined): string {
  return (
    'No knowledge store is visible to MCP clients' +
    (served?.length ? ` among ${served.map((n) => `"${sanitizeInline(n)}"`).join(', ')}` : '') +
    '. A store becomes visible once the user allows autonomous workflows for it ' +
    '(kortty-rag store roles NAME --role ... --autonomous).'
  );
}

function unique(stores: StoreConfig[]): StoreConfig[] {
  return stores.filter((s, i) => stores.findIndex((x) => x.id === s.id) === i);
}

function shellWord(s: string): string {
  return /^[\w.@%+=:,/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function describeArgs(args: unknown): string {
  try {
    return JSON.stringify(args).slice(0, MAX_TOOL_QUERY_CHARS);
  } catch {
    return '';
  }
}
