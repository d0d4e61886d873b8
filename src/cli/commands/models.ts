import { totalmem } from 'node:os';
import { join } from 'node:path';
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
import { type CommandGroup, defineCommand } from '../command.js';
import { createInterrupt } from '../interrupt.js';
import type { CliIO } from '../io.js';

const ID = [{ name: 'ID' }] as const;

const list = defineCommand({
  name: 'models list',
  summary: 'the model catalog, what fits this machine, and the installed models',
  options: {},
  async run({ io, out }) {
    const listing = await modelListing(machineMemory(io), korttyHome(io.env));
    out(listing, formatListing(listing));
    return 0;
  },
});

const install = defineCommand({
  name: 'models install',
  summary: 'download a catalog model (or any GGUF file with --url); resumes where it stopped',
  positionals: ID,
  options: {
    url: { type: 'string', value: 'URL', help: 'download this GGUF file instead of a catalog entry' },
    sha256: { type: 'string', value: 'HEX', help: "the file's expected sha256 (with --url)" },
  },
  notes: 'Models are kept in $KORTTY_HOME/rag/models. Ctrl-C stops the download; install again to resume.',
  async run({ values, args, io, out, json }) {
    const home = korttyHome(io.env);
    const id = args.ID!;
    const printer = installProgressPrinter(io, json);
    const interrupt = createInterrupt();
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
      io.stderr.write(`kortty-rag models install: ${err.message}\n`);
      return 130;
    } finally {
      interrupt.dispose();
    }
  },
});

const add = defineCommand({
  name: 'models add',
  summary: 'use a local GGUF file as an embedding model (in place, or copied with --copy)',
  positionals: [{ name: 'PATH.gguf' }],
  options: {
    id: { type: 'string', value: 'NAME', help: 'the model id (default: from the file name)' },
    copy: { type: 'boolean', help: 'copy the file into $KORTTY_HOME/rag/models' },
  },
  async run({ values, positionals, io, out }) {
    const home = korttyHome(io.env);
    const record = await addLocalModel(positionals[0]!, { id: values.id, copy: values.copy, home });
    const path = modelFilePath(record, home);
    out(
      { ...record, path },
      `added ${record.id}: ${path} (${values.copy ? 'copied' : 'used in place, not copied'}; ${formatBytes(record.size)}, sha256 ${record.sha256})`,
    );
    return 0;
  },
});

const remove = defineCommand({
  name: 'models remove',
  summary: 'forget an installed model (a file you added is never deleted)',
  positionals: ID,
  options: {},
  async run({ args, io, out }) {
    const home = korttyHome(io.env);
    const { record, deletedFile } = await removeModel(args.ID!, home);
    const path = modelFilePath(record, home);
    out(
      { removed: record.id, path, deletedFile },
      deletedFile
        ? `removed ${record.id} and deleted ${deletedFile}`
        : `removed ${record.id}; kept ${path} (${record.source === 'local' ? 'your file is never deleted' : 'still used by another model'})`,
    );
    return 0;
  },
});

const verify = defineCommand({
  name: 'models verify',
  summary: 'check a model file against the sha256 recorded at install',
  positionals: ID,
  options: {},
  async run({ args, io, out, json }) {
    const home = korttyHome(io.env);
    const id = args.ID!;
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
  },
});

export const definition: CommandGroup = {
  name: 'models',
  summary: 'embedding models',
  commands: [list, install, add, remove, verify],
};

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
        (io.rawStderr ?? io.stderr).write(`\r\x1b[2K${line(p)}`);
        shown = true;
        return;
      }
      const key = `${p.phase} ${Math.floor(p.percent / 10)}`;
      if (key === last) return;
      last = key;
      io.stderr.write(`${line(p)}\n`);
    },
    done() {
      if (tty && shown) (io.rawStderr ?? io.stderr).write('\r\x1b[2K');
      shown = false;
    },
  };
}
