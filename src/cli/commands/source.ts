import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import {
  addSources,
  findStore,
  removeSource,
  setSourceEnabled,
  setSourceSync,
  updateSources,
} from '../../store/engine.js';
import type { Review } from '../../types.js';
import type { CliIO } from '../io.js';
import { formatReviewSummary, formatSummary, progressPrinter, table } from '../progress.js';
import { interruptSignal, toInt } from './store.js';

const USAGE = `usage:
  kortty-rag source add STORE PATH... [--file] [--sync automatic|manual] [--include G]... [--exclude G]...
                        [--no-gitignore] [--max-file-size MIB] [--yes] [--json]
  kortty-rag source list STORE [--json]
  kortty-rag source update STORE [SOURCE...] [--retry-failed] [--yes] [--json]
                        (Update now; all sources when none given; --retry-failed extracts again
                        the files that failed before although they are unchanged)
  kortty-rag source disable|enable STORE SOURCE
  kortty-rag source sync STORE SOURCE automatic|manual
  kortty-rag source remove STORE SOURCE [--yes]
SOURCE is a source id (src-…) or its path.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      file: { type: 'boolean' },
      sync: { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'no-gitignore': { type: 'boolean' },
      'max-file-size': { type: 'string' },
      'retry-failed': { type: 'boolean' },
    },
  });
  const [store, ...refs] = positionals;
  if (!sub || !store) {
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const out = (obj: unknown, text: string) =>
    io.stdout.write(values.json ? `${JSON.stringify(obj, null, 2)}\n` : `${text}\n`);
  const progress = progressPrinter(io, values.json);
  const confirm = (reviews: ReadonlyMap<string, Review>) =>
    confirmReviews(reviews, io, Boolean(values.yes), Boolean(values.json));
  switch (sub) {
    case 'add': {
      if (refs.length === 0)
        throw createError('INVALID_ARGUMENT', { name: 'PATH', reason: 'give at least one file or folder' });
      const { stat } = await import('node:fs/promises');
      const inputs = [];
      for (const p of refs) {
        const st = await stat(p).catch(() => undefined);
        if (!st) throw createError('SOURCE_NOT_FOUND', { path: p });
        inputs.push({
          kind: (values.file || st.isFile() ? 'file' : 'folder') as 'file' | 'folder',
          path: p,
          sync: parseSync(values.sync),
          options: {
            ...(values.include ? { include: values.include } : {}),
            ...(values.exclude ? { exclude: values.exclude } : {}),
            ...(values['no-gitignore'] ? { gitignore: false } : {}),
            ...(values['max-file-size']
              ? { maxFileBytes: toInt(values['max-file-size'], 'max-file-size') * 1024 * 1024 }
              : {}),
          },
        });
      }
      const res = await addSources(store, inputs, {
        confirm,
        onProgress: progress.onProgress,
        signal: interruptSignal(),
      });
      progress.done();
      out(res, `added: ${formatSummary(res.summary)}`);
      return 0;
    }
    case 'list': {
      const cfg = await findStore(store);
      const rows = cfg.sources.map((s) => [
        s.id,
        s.path,
        s.kind,
        s.sync,
        s.enabled ? s.status : 'DISABLED',
        `${s.files}/${s.chunks}`,
        s.lastChunksEmbedded === undefined ? '-' : `${s.lastChunksEmbedded}/${s.lastChunksReused ?? 0}`,
        String(s.problems),
        s.lastIndexedAt ?? '-',
      ]);
      out(
        cfg.sources,
        cfg.sources.length === 0
          ? `store "${cfg.name}" has no sources: kortty-rag source add ${cfg.name} PATH`
          : table(
              [
                [
                  'ID',
                  'PATH',
                  'TYPE',
                  'SYNC',
                  'STATUS',
                  'FILES/CHUNKS',
                  'EMBEDDED/REUSED',
                  'PROBLEMS',
                  'LAST INDEXED',
                ],
                ...rows,
              ],
              io,
            ),
      );
      return 0;
    }
    case 'update': {
      const res = await updateSources(store, refs.length ? refs : 'all', {
        retryFailed: Boolean(values['retry-failed']),
        confirm,
        onProgress: progress.onProgress,
        signal: interruptSignal(),
      });
      progress.done();
      const statuses = Object.entries(res.statuses)
        .filter(([, st]) => st === 'MISSING' || st === 'ERROR')
        .map(([id, st]) => `  ${id}: ${st}`);
      out(res, [`updated: ${formatSummary(res.summary)}`, ...statuses].join('\n'));
      return Object.values(res.statuses).includes('ERROR') ? 1 : 0;
    }
    case 'disable':
    case 'enable': {
      const src = await setSourceEnabled(store, need(refs[0]), sub === 'enable');
      out(src, `${sub}d ${src.path}${sub === 'disable' ? ' (chunks kept, excluded from retrieval)' : ''}`);
      return 0;
    }
    case 'sync': {
      const src = await setSourceSync(store, need(refs[0]), parseSync(refs[1]) ?? 'manual');
      out(src, `${src.path}: synchronization ${src.sync}`);
      return 0;
    }
    case 'remove': {
      const ref = need(refs[0]);
      if (
        !values.yes &&
        !(await ask(io, `Remove source ${ref} and delete its chunks? Source files are kept. [y/N] `))
      ) {
        io.stderr.write('not removed\n');
        return 1;
      }
      const res = await removeSource(store, ref, { onProgress: progress.onProgress });
      progress.done();
      out(
        res,
        `removed ${ref}: ${res.summary.removed} document(s) dropped from the index; files on disk untouched`,
      );
      return 0;
    }
    default:
      io.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

function need(ref: string | undefined): string {
  if (!ref) throw createError('INVALID_ARGUMENT', { name: 'SOURCE', reason: 'missing source id or path' });
  return ref;
}

function parseSync(v: string | undefined): 'automatic' | 'manual' | undefined {
  if (v === undefined) return undefined;
  if (v === 'automatic' || v === 'auto') return 'automatic';
  if (v === 'manual') return 'manual';
  throw createError('INVALID_ARGUMENT', { name: '--sync', reason: `"${v}" is not automatic or manual` });
}

/** The review step of the CLI: print the preview; on a TTY ask, otherwise require --yes. */
async function confirmReviews(
  reviews: ReadonlyMap<string, Review>,
  io: CliIO,
  yes: boolean,
  json: boolean,
): Promise<boolean> {
  if (!json) {
    for (const r of reviews.values()) {
      io.stderr.write(`${formatReviewSummary(r)}\n`);
      for (const row of r.rows.filter((x) => x.status === 'skipped').slice(0, 20)) {
        io.stderr.write(`  skipped ${row.relPath}: ${row.explanation ?? row.reason}\n`);
      }
    }
  }
  if ([...reviews.values()].some((r) => r.stoppedBy)) {
    throw createError('INVALID_ARGUMENT', {
      name: 'source',
      reason: 'the preview stopped at a bound; narrow the source with --include/--exclude before indexing',
    });
  }
  if (yes) return true;
  if (!io.stdin.isTTY) {
    throw createError('INVALID_ARGUMENT', {
      name: '--yes',
      reason: 'not a terminal: review the preview above and pass --yes to confirm',
    });
  }
  return ask(io, 'Index as shown? [y/N] ');
}

async function ask(io: CliIO, q: string): Promise<boolean> {
  if (!io.stdin.isTTY) return false;
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(q)).trim());
  } finally {
    rl.close();
  }
}
