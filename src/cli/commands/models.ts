import { totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CATALOG,
  type CatalogModel,
  catalogEntry,
  defaultModelId,
  fitsMemory,
  GiB,
} from '../../embed/catalog.js';
import { type InstallProgress, installModel, installProgress } from '../../embed/installer.js';
import {
  addLocalModel,
  getInstalled,
  type InstallRecord,
  listInstalled,
  modelFilePath,
  removeModel,
  verifyInstalled,
} from '../../embed/model-registry.js';
import { createError, isKorttyError } from '../../errors.js';
import { korttyHome, modelsDir } from '../../storage/paths.js';
import { pad, width } from '../../util/display-width.js';
import type { CliIO } from '../io.js';

const USAGE = `usage:
  kortty-rag models list [--json]
  kortty-rag models install ID [--url URL] [--sha256 HEX] [--json]
  kortty-rag models add PATH.gguf [--id NAME] [--copy] [--json]
  kortty-rag models remove ID [--json]
  kortty-rag models verify ID [--json]

install fetches a catalog model (or, with --url, any GGUF file) into $KORTTY_HOME/rag/models;
an interrupted install resumes where it stopped. add uses a GGUF file where it is (--copy copies it).`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    io.stderr.write(`kortty-rag models: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const home = korttyHome(io.env);
  const json = Boolean(values.json);
  const out = (obj: unknown, text: string) =>
    io.stdout.write(json ? `${JSON.stringify(obj, null, 2)}\n` : `${text}\n`);
  const arg = positionals[0];
  const need = (what: string) => {
    if (!arg) throw createError('INVALID_ARGUMENT', { name: what, reason: `missing ${what}` });
    return arg;
  };
  switch (sub) {
    case 'list': {
      const listing = await modelListing(machineMemory(io), home);
      out(listing, formatListing(listing));
      return 0;
    }
    case 'install': {
      const id = need('ID');
      const printer = installProgressPrinter(io, json);
      const interrupt = interruptController();
      try {
        const res = await installModel(id, {
          url: values.url,
          sha256: values.sha256,
          home,
          signal: interrupt.signal,
          onProgress: printer.onProgress,
          generate: async (path) => {
            const { generateLexicalModel } = await import('../../embed/generate-model.js');
            await generateLexicalModel(path, {}, { vocabCacheDir: join(modelsDir(home), 'vocab') });
          },
        });
        printer.done();
        const verb = {
          installed: 'installed',
          'already-installed': 'already installed',
          adopted: 'recorded the existing file of',
        }[res.status];
        out(
          { ...res.record, path: res.path, status: res.status, resumed: res.resumed },
          `${verb} ${id}${res.resumed ? ' (resumed)' : ''}: ${res.path} (${formatBytes(res.record.size)}, sha256 ${res.record.sha256})`,
        );
        return 0;
      } catch (err) {
        printer.done();
        if (!isKorttyError(err, 'DOWNLOAD_CANCELLED')) throw err;
        io.stderr.write(`kortty-rag models: ${err.message}\n`);
        return 130;
      } finally {
        interrupt.dispose();
      }
    }
    case 'add': {
      const record = await addLocalModel(need('PATH'), { id: values.id, copy: values.copy, home });
      const path = modelFilePath(record, home);
      out(
        { ...record, path },
        `added ${record.id}: ${path} (${values.copy ? 'copied' : 'used in place, not copied'}; ${formatBytes(record.size)}, sha256 ${record.sha256})`,
      );
      return 0;
    }
    case 'remove': {
      const { record, deletedFile } = await removeModel(need('ID'), home);
      const path = modelFilePath(record, home);
      out(
        { removed: record.id, path, deletedFile },
        deletedFile
          ? `removed ${record.id} and deleted ${deletedFile}`
          : `removed ${record.id}; kept ${path} (${record.source === 'local' ? 'your file is never deleted' : 'still used by another model'})`,
      );
      return 0;
    }
    case 'verify': {
      const id = need('ID');
      const record = await getInstalled(id, home);
      if (!record) throw createError('MODEL_NOT_FOUND', { id });
      const printer = installProgressPrinter(io, json);
      try {
        const onBytes = (n: number) => printer.onProgress(installProgress('verify', n, record.size));
        const v = await verifyInstalled(id, { full: true, home, onBytes });
        printer.done();
        out(
          { id, path: v.path, sha256: v.record.sha256, ok: true },
          `ok: ${v.path} matches the sha256 recorded at install (${v.record.sha256})`,
        );
        return 0;
      } finally {
        printer.done();
      }
    }
    default:
      io.stderr.write(`${USAGE}\n`);
      return sub === undefined || sub === 'help' || sub === '--help' || sub === '-h' ? 0 : 2;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      url: { type: 'string' },
      sha256: { type: 'string' },
      id: { type: 'string' },
      copy: { type: 'boolean' },
    },
  });
}

/** Total memory; KORTTY_TOTAL_MEMORY_BYTES overrides it (to preview another machine's offer, and for tests). */
function machineMemory(io: CliIO): number {
  const override = Number(io.env.KORTTY_TOTAL_MEMORY_BYTES);
  return Number.isFinite(override) && override > 0 ? override : totalmem();
}

export interface ModelListing {
  totalMemoryBytes: number;
  defaultModelId: string;
  catalog: (CatalogModel & { offered: boolean; preselected: boolean; installed: boolean })[];
  installed: (InstallRecord & { path: string; inCatalog: boolean })[];
}

export async function modelListing(totalMemoryBytes: number, home: string): Promise<ModelListing> {
  const installed = await listInstalled(home);
  const ids = new Set(installed.map((r) => r.id));
  return {
    totalMemoryBytes,
    defaultModelId,
    catalog: CATALOG.map((m) => ({
      ...m,
      offered: fitsMemory(m, totalMemoryBytes),
      preselected: m.id === defaultModelId,
      installed: ids.has(m.id),
    })),
    installed: installed.map((r) => ({
      ...r,
      path: modelFilePath(r, home),
      inCatalog: catalogEntry(r.id) !== undefined,
    })),
  };
}

export function formatListing(l: ModelListing): string {
  const rows = [['', 'ID', 'MODEL', 'SIZE', 'DIM', 'STATUS']];
  for (const m of l.catalog) {
    const status = m.installed
      ? 'installed'
      : m.kind === 'generated'
        ? 'built on first use'
        : m.offered
          ? 'available'
          : `needs ${m.minMemoryBytes / GiB} GiB memory`;
    rows.push([
      m.preselected ? '*' : '',
      m.id,
      m.label,
      `${m.sizeExact ? '' : '~'}${formatBytes(m.sizeBytes)}`,
      String(m.dimension),
      status,
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => width(r[i]!))));
  const lines = [
    `memory on this machine: ${formatBytes(l.totalMemoryBytes)}`,
    ...rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!))).join('  ')),
    `* preselected (${l.defaultModelId})`,
  ];
  const other = l.installed.filter((r) => !r.inCatalog);
  if (other.length > 0) {
    lines.push('', 'other installed models:');
    for (const r of other) lines.push(`  ${r.id}  ${r.path}  ${formatBytes(r.size)}  (${r.source})`);
  }
  return lines.join('\n');
}

export function formatBytes(n: number): string {
  if (n >= GiB) return `${(n / GiB).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${Math.round(n / (1 << 20))} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/** On a TTY one status line is rewritten in place; otherwise a plain line per 10 % step and phase. */
export function installProgressPrinter(io: CliIO, quiet: boolean) {
  const tty = Boolean(io.stdout.isTTY);
  let last = '';
  let lastAt = 0;
  let shown = false;
  const line = (p: InstallProgress) =>
    `${p.phase === 'download' ? 'downloading' : 'verifying sha256'} ${p.percent.toFixed(1)}%  ${formatBytes(p.bytes)} / ${p.total ? formatBytes(p.total) : '?'}`;
  return {
    onProgress(p: InstallProgress) {
      if (quiet) return;
      if (tty) {
        const now = Date.now();
        if (now - lastAt < 100 && p.percent < 100) return;
        lastAt = now;
        io.stderr.write(`\r\x1b[2K${line(p)}`);
        shown = true;
        return;
      }
      const key = `${p.phase} ${Math.floor(p.percent / 10)}`;
      if (key === last) return;
      last = key;
      io.stderr.write(`${line(p)}\n`);
    },
    done() {
      if (tty && shown) io.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}

function interruptController() {
  const ac = new AbortController();
  const onSig = () => ac.abort();
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);
  return {
    signal: ac.signal,
    dispose() {
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
    },
  };
}
