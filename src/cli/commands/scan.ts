import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createError } from '../../errors.js';
import { reviewToLines } from '../../scan/review-text.js';
import { MiB } from '../../scan/rules.js';
import { detectSourceKind, scanSources } from '../../scan/scan-source.js';
import type { CliIO } from '../io.js';

// `kortty-rag scan PATH...`: the review table of a would-be source, as a dry run that writes nothing.

export const USAGE = `usage: kortty-rag scan PATH... [--json] [--include GLOB]... [--exclude GLOB]...
                       [--no-gitignore] [--max-file-size MIB]

Dry run: walks each PATH (a file or a folder) as a source would, and prints one row per visited
entry (status, size, format, path, why skipped) and a summary. Nothing is written.
  --json             print the review as JSON (one object for one PATH, an array for several)
  --include GLOB     only index files matching GLOB (after the format allowlist; repeatable)
  --exclude GLOB     skip files and folders matching GLOB (repeatable)
  --no-gitignore     do not apply .gitignore files (applied by default)
  --max-file-size N  per-file limit in MiB, 1..1024 (default 50)
Globs are relative to the source root; a glob without "/" matches names at any depth.
Exit status: 0 done, 1 error, 2 usage, 3 a preview bound stopped the scan (review incomplete).
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.stderr.write(`kortty-rag scan: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length === 0) {
    io.stderr.write(`kortty-rag scan: no PATH given\n\n${USAGE}`);
    return 2;
  }
  const options = {
    include: values.include ?? [],
    exclude: values.exclude ?? [],
    gitignore: !values['no-gitignore'],
    ...(values['max-file-size'] !== undefined ? { maxFileBytes: parseMiB(values['max-file-size']) } : {}),
  };
  const sources = positionals.map((p) => {
    const root = resolve(io.cwd, p);
    return { root, kind: detectSourceKind(root), options };
  });
  const reviews = await scanSources(sources);
  if (values.json) {
    io.stdout.write(`${JSON.stringify(reviews.length === 1 ? reviews[0] : reviews, null, 2)}\n`);
  } else {
    const text = reviews.flatMap((r, i) => [...(i > 0 ? [''] : []), ...reviewToLines(r, sources[i]!.kind)]);
    io.stdout.write(`${text.join('\n')}\n`);
  }
  return reviews.some((r) => r.stoppedBy) ? 3 : 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'no-gitignore': { type: 'boolean' },
      'max-file-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function parseMiB(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw createError('INVALID_ARGUMENT', {
      name: '--max-file-size',
      reason: `"${text}" is not a size in MiB`,
    });
  }
  return Math.round(n * MiB);
}
