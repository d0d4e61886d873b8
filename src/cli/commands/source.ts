import { pathKind } from '../../app/files.js';
import { MiB } from '../../app/limits.js';
import { createError } from '../../errors.js';
import {
  type AddSourceInput,
  addSources,
  findStore,
  removeSource,
  setSourceEnabled,
  setSourceSync,
  updateSources,
} from '../../store/engine.js';
import type { Review } from '../../types.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { FILE_SIZE_RANGE, parseSync, SYNC_WORDS } from '../args.js';
import { type CommandGroup, defineCommand } from '../command.js';
import { askYesNo, createInterrupt, type Interrupt } from '../interrupt.js';
import type { CliIO } from '../io.js';
import { type JobHooksForCli, runCliJob } from '../job-runner.js';
import { formatReviewSummary, formatSummary, table } from '../progress.js';

const STORE = { name: 'STORE' } as const;
const SOURCE = { name: 'SOURCE' } as const;
const yesOption = { type: 'boolean', short: 'y', help: 'index without asking after the review' } as const;

const add = defineCommand({
  name: 'source add',
  summary: 'add files or folders to a store: scan, review, confirm, index',
  positionals: [STORE, { name: 'PATH', variadic: true }],
  options: {
    file: { type: 'boolean', help: 'treat each PATH as a single file source' },
    sync: { type: 'string', value: 'MODE', help: 'synchronization', choices: SYNC_WORDS, default: 'manual' },
    include: { type: 'string', multiple: true, value: 'GLOB', help: 'only index files matching GLOB' },
    exclude: { type: 'string', multiple: true, value: 'GLOB', help: 'skip files and folders matching GLOB' },
    'no-gitignore': { type: 'boolean', help: 'do not apply .gitignore files' },
    'hard-links': {
      type: 'boolean',
      help: 'also index files with more than one name (hard links; skipped by default)',
    },
    'max-file-size': {
      type: 'string',
      value: 'MIB',
      help: 'per-file limit in MiB (default 50)',
      range: FILE_SIZE_RANGE,
    },
    yes: yesOption,
  },
  notes: `The review (what would be indexed and why anything is skipped) is shown first; on a terminal
you are asked to confirm, elsewhere --yes is required. Ctrl-C cancels before activation and
leaves the store as it was.`,
  async run({ values, args, positionals, io, out, json }) {
    const inputs: AddSourceInput[] = [];
    for (const p of positionals.slice(1)) {
      const kind = await pathKind(p);
      inputs.push({
        kind: values.file ? 'file' : kind,
        path: p,
        sync: parseSync(values.sync),
        options: {
          ...(values.include ? { include: values.include } : {}),
          ...(values.exclude ? { exclude: values.exclude } : {}),
          ...(values['no-gitignore'] ? { gitignore: false } : {}),
          ...(values['hard-links'] ? { hardLinks: true } : {}),
          ...(values['max-file-size']
            ? { maxFileBytes: Math.round(Number(values['max-file-size']) * MiB) }
            : {}),
        },
      });
    }
    const job = await runCliJob(io, { quiet: json }, (h) =>
      addSources(args.STORE!, inputs, {
        confirm: (reviews) => confirmReviews(reviews, io, h, { yes: Boolean(values.yes), json }),
        onProgress: h.onProgress,
        signal: h.signal,
      }),
    );
    if (job.done) out(job.result, `added: ${formatSummary(job.result.summary)}`);
    return job.exitCode;
  },
});

const list = defineCommand({
  name: 'source list',
  summary: "list a store's sources with their status and counts",
  positionals: [STORE],
  options: {},
  async run({ args, out }) {
    const cfg = await findStore(args.STORE!);
    const rows = cfg.sources.map((s) => [
      s.id,
      s.path,
      s.kind,
      s.sync,
      s.enabled ? s.status : 'DISABLED',
      `${s.files}/${s.chunks}`,
      s.lastChunksEmbedded === undefined ? '-' : `${s.lastChunksEmbedded}/${s.lastChunksReused ?? 0}`,
      String(s.problems),
      String(s.skipped),
      s.lastIndexedAt ?? '-',
    ]);
    // Why a source is ERROR or MISSING (a failed sync, a refused or vanished root).
    const reasons = cfg.sources
      .filter((s) => s.enabled && (s.status === 'ERROR' || s.status === 'MISSING') && s.statusReason)
      .map((s) => sanitizeLine(`${s.id} ${s.status}: ${s.statusReason}`));
    out(
      cfg.sources,
      cfg.sources.length === 0
        ? `store "${sanitizeLine(cfg.name)}" has no sources: kortty-rag source add ${sanitizeLine(cfg.name)} PATH`
        : [
            table([
              [
                'ID',
                'PATH',
                'TYPE',
                'SYNC',
                'STATUS',
                'FILES/CHUNKS',
                'EMBEDDED/REUSED',
                'PROBLEMS',
                'SKIPPED',
                'LAST INDEXED',
              ],
              ...rows,
            ]),
            ...reasons,
          ].join('\n'),
    );
    return 0;
  },
});

const update = defineCommand({
  name: 'source update',
  summary: 'Update now: rescan sources and index what changed (all sources when none given)',
  positionals: [STORE, { name: 'SOURCE', variadic: true, optional: true }],
  options: {
    'retry-failed': {
      type: 'boolean',
      help: 'extract again the files whose extraction failed before, although they are unchanged',
    },
    yes: yesOption,
  },
  notes: `A file whose extraction failed (a PDF that timed out, a parser's heap cap, a damaged
document) is not parsed again while it is unchanged: the review shows it skipped, "unchanged since
it failed on DATE". --retry-failed tries such files again. Ctrl-C cancels before activation and
leaves the store as it was.`,
  async run({ values, args, positionals, io, out, json }) {
    const refs = positionals.slice(1);
    const job = await runCliJob(io, { quiet: json }, (h) =>
      updateSources(args.STORE!, refs.length ? refs : 'all', {
        retryFailed: Boolean(values['retry-failed']),
        confirm: (reviews) => confirmReviews(reviews, io, h, { yes: Boolean(values.yes), json }),
        onProgress: h.onProgress,
        signal: h.signal,
      }),
    );
    if (!job.done) return job.exitCode;
    const res = job.result;
    const statuses = Object.entries(res.statuses)
      .filter(([, st]) => st === 'MISSING' || st === 'ERROR')
      .map(([id, st]) => `  ${id}: ${st}`);
    out(res, [`updated: ${formatSummary(res.summary)}`, ...statuses].join('\n'));
    if (job.exitCode !== 0) return job.exitCode;
    return Object.values(res.statuses).includes('ERROR') ? 1 : 0;
  },
});

const enableOrDisable = (verb: 'enable' | 'disable') =>
  defineCommand({
    name: `source ${verb}`,
    summary:
      verb === 'disable'
        ? 'exclude a source from retrieval (its chunks are kept)'
        : 'include a disabled source in retrieval again',
    positionals: [STORE, SOURCE],
    options: {},
    async run({ args, out }) {
      const src = await setSourceEnabled(args.STORE!, args.SOURCE!, verb === 'enable');
      out(
        src,
        `${verb}d ${sanitizeLine(src.path)}${verb === 'disable' ? ' (chunks kept, excluded from retrieval)' : ''}`,
      );
      return 0;
    },
  });

const sync = defineCommand({
  name: 'source sync',
  summary: "set a source's synchronization: automatic (the watcher) or manual",
  positionals: [STORE, SOURCE, { name: 'MODE', choices: SYNC_WORDS }],
  options: {},
  async run({ args, out }) {
    const src = await setSourceSync(args.STORE!, args.SOURCE!, parseSync(args.MODE) ?? 'manual');
    out(src, `${sanitizeLine(src.path)}: synchronization ${src.sync}`);
    return 0;
  },
});

const remove = defineCommand({
  name: 'source remove',
  summary: 'remove a source and its chunks (files on disk are untouched)',
  positionals: [STORE, SOURCE],
  options: { yes: { type: 'boolean', short: 'y', help: 'remove without asking' } },
  async run({ values, args, io, out, json }) {
    const ref = args.SOURCE!;
    if (!values.yes) {
      const interrupt = createInterrupt();
      try {
        const ok = await askYesNo(
          io,
          `Remove source ${ref} and delete its chunks? Source files are kept. [y/N] `,
          interrupt,
        );
        if (interrupt.signal.aborted) {
          io.stderr.write('cancelled; nothing changed\n');
          return 130;
        }
        if (!ok) {
          io.stderr.write(`not removed${io.stdin.isTTY ? '' : ' (not a terminal: pass --yes to confirm)'}\n`);
          return 1;
        }
      } finally {
        interrupt.dispose();
      }
    }
    const job = await runCliJob(io, { quiet: json }, (h) =>
      removeSource(args.STORE!, ref, { onProgress: h.onProgress, signal: h.signal }),
    );
    if (job.done) {
      out(
        job.result,
        `removed ${ref}: ${job.result.summary.removed} document(s) dropped from the index; files on disk untouched`,
      );
    }
    return job.exitCode;
  },
});

export const definition: CommandGroup = {
  name: 'source',
  summary: "a store's sources",
  notes: 'STORE is a store name or id; SOURCE is a source id (src-…) or its path.',
  commands: [add, list, update, enableOrDisable('disable'), enableOrDisable('enable'), sync, remove],
};

/** The review step of the CLI: print the preview; on a TTY ask, otherwise require --yes. */
async function confirmReviews(
  reviews: ReadonlyMap<string, Review>,
  io: CliIO,
  h: JobHooksForCli,
  opts: { yes: boolean; json: boolean },
): Promise<boolean> {
  h.clearLine();
  if (!opts.json) {
    for (const r of reviews.values()) {
      io.stderr.write(`${formatReviewSummary(r)}\n`);
      for (const row of r.rows.filter((x) => x.status === 'skipped').slice(0, 20)) {
        io.stderr.write(
          `  skipped ${sanitizeLine(row.relPath)}: ${sanitizeLine(row.explanation ?? row.reason ?? '')}\n`,
        );
      }
    }
  }
  if ([...reviews.values()].some((r) => r.stoppedBy)) {
    throw createError('INVALID_ARGUMENT', {
      name: 'source',
      reason: 'the preview stopped at a bound; narrow the source with --include/--exclude before indexing',
    });
  }
  if (opts.yes) return true;
  if (!io.stdin.isTTY) {
    throw createError('INVALID_ARGUMENT', {
      name: '--yes',
      reason: 'not a terminal: review the preview above and pass --yes to confirm',
    });
  }
  const ok = await askYesNo(io, 'Index as shown? [y/N] ', h.interrupt as Interrupt);
  if (!ok) h.declined();
  return ok;
}
