import { resolve } from 'node:path';
import { MiB } from '../../app/limits.js';
import { detectSourceKind, reviewToLines, scanSources } from '../../app/scan.js';
import { FILE_SIZE_RANGE } from '../args.js';
import { defineCommand } from '../command.js';

// `kortty-rag scan PATH...`: the review table of a would-be source, as a dry run that writes nothing.

export const definition = defineCommand({
  name: 'scan',
  summary: 'dry run: what a source would index, nothing written',
  positionals: [{ name: 'PATH', variadic: true }],
  options: {
    include: {
      type: 'string',
      multiple: true,
      value: 'GLOB',
      help: 'only index files matching GLOB (after the format allowlist)',
    },
    exclude: { type: 'string', multiple: true, value: 'GLOB', help: 'skip files and folders matching GLOB' },
    'no-gitignore': { type: 'boolean', help: 'do not apply .gitignore files (applied by default)' },
    'max-file-size': {
      type: 'string',
      value: 'MIB',
      help: 'per-file limit in MiB (default 50)',
      range: FILE_SIZE_RANGE,
    },
  },
  notes: `Walks each PATH (a file or a folder) as a source would, and prints one row per visited entry
(status, size, format, path, why skipped) and a summary; --json prints the review (one object for
one PATH, an array for several). Globs are relative to the source root; a glob without "/" matches
names at any depth.

Exit status: 0 done, 1 error, 2 usage, 3 a preview bound stopped the scan (review incomplete).`,
  async run({ values, positionals, io, json }) {
    const options = {
      include: values.include ?? [],
      exclude: values.exclude ?? [],
      gitignore: !values['no-gitignore'],
      ...(values['max-file-size'] !== undefined
        ? { maxFileBytes: Math.round(Number(values['max-file-size']) * MiB) }
        : {}),
    };
    const sources = positionals.map((p) => {
      const root = resolve(io.cwd, p);
      return { root, kind: detectSourceKind(root), options };
    });
    const reviews = await scanSources(sources);
    if (json) {
      io.stdout.write(`${JSON.stringify(reviews.length === 1 ? reviews[0] : reviews, null, 2)}\n`);
    } else {
      const text = reviews.flatMap((r, i) => [...(i > 0 ? [''] : []), ...reviewToLines(r, sources[i]!.kind)]);
      io.stdout.write(`${text.join('\n')}\n`);
    }
    return reviews.some((r) => r.stoppedBy) ? 3 : 0;
  },
});
