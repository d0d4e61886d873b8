import picomatch from 'picomatch';
import { createError } from '../errors.js';
import type { PreviewBounds, SourceOptions } from '../types.js';

// Pure scan rules: which names are never entered, option defaults and validation, globs.

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** Metadata, dependency, build, cache and IDE directories (spec "Safe folder scanning"). Exact names. */
export const EXCLUDED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.gradle',
  '.idea',
  '.vscode',
  '.venv',
  'venv',
  'node_modules',
  'vendor',
  'build',
  'target',
  'dist',
  'out',
  'coverage',
  '__pycache__',
]);

const MIN_FILE_LIMIT = MiB;
const MAX_FILE_LIMIT = GiB;

export const DEFAULT_SOURCE_OPTIONS: Readonly<SourceOptions> = Object.freeze({
  maxFileBytes: 50 * MiB,
  include: [],
  exclude: [],
  // On by default: ignored files are mostly generated output, caches and local secrets, and the
  // review table shows every file skipped this way (reason `gitignored`), so nothing is hidden.
  gitignore: true,
});

export const DEFAULT_PREVIEW_BOUNDS: Readonly<PreviewBounds> = Object.freeze({
  maxFiles: 5000,
  maxAcceptedBytes: 500 * MiB,
  maxExtractedChars: 100 * MiB,
});

/** Directory names that are never entered. The source root itself is exempt: the user chose it. */
export function isExcludedDir(name: string): boolean {
  return EXCLUDED_DIRS.has(name);
}

export function isHidden(name: string): boolean {
  return name.startsWith('.');
}

export function validateSizeLimit(value: number): number {
  if (!Number.isInteger(value) || value < MIN_FILE_LIMIT || value > MAX_FILE_LIMIT) {
    throw createError('INVALID_SIZE_LIMIT', { value });
  }
  return value;
}

function validateGlobs(name: string, globs: unknown): string[] {
  if (!Array.isArray(globs))
    throw createError('INVALID_ARGUMENT', { name, reason: 'expected a list of globs' });
  for (const g of globs) {
    if (typeof g !== 'string' || g.trim() === '') {
      throw createError('INVALID_ARGUMENT', {
        name,
        reason: `empty or non-string glob ${JSON.stringify(g)}`,
      });
    }
    if (g.startsWith('/') || g.split('/').includes('..')) {
      throw createError('INVALID_ARGUMENT', {
        name,
        reason: `glob "${g}" must be relative to the source root`,
      });
    }
  }
  return [...globs];
}

/** Defaults filled in and every option validated. */
export function resolveSourceOptions(options: Partial<SourceOptions> = {}): SourceOptions {
  return {
    maxFileBytes: validateSizeLimit(options.maxFileBytes ?? DEFAULT_SOURCE_OPTIONS.maxFileBytes),
    include: validateGlobs('include', options.include ?? []),
    exclude: validateGlobs('exclude', options.exclude ?? []),
    gitignore: options.gitignore ?? DEFAULT_SOURCE_OPTIONS.gitignore,
    ...(options.hardLinks ? { hardLinks: true } : {}),
  };
}

export function resolveBounds(bounds: Partial<PreviewBounds> = {}): PreviewBounds {
  const out = { ...DEFAULT_PREVIEW_BOUNDS, ...bounds };
  for (const [name, v] of Object.entries(out)) {
    if (!Number.isInteger(v) || v < 0)
      throw createError('INVALID_ARGUMENT', { name, reason: `bad bound ${v}` });
  }
  return out;
}

export interface GlobRules {
  /** Excluded by an exclude glob (files and directories; a matched directory is not entered). */
  excluded(relPath: string, isDir: boolean): boolean;
  /** Passes the include globs (always true without include globs). Only asked for allowlisted files. */
  included(relPath: string): boolean;
}

/**
 * Globs are matched against the `/`-separated path relative to the source root, case-insensitively
 * like the format allowlist ("File-name matching is case-insensitive"). A glob without a `/`
 * matches the name at any depth (`*.md`), as in .gitignore; `dir/**` also matches `dir` itself.
 */
export function createGlobRules(options: Pick<SourceOptions, 'include' | 'exclude'>): GlobRules {
  // picomatch's own `basename` option also rewrites globs that contain a slash, so anchor by hand.
  const compile = (globs: string[]) =>
    globs.length === 0
      ? null
      : picomatch(
          globs.map((g) => (g.replace(/\/$/, '').includes('/') ? g : `**/${g}`)),
          { dot: true, nocase: true },
        );
  const exclude = compile(options.exclude);
  const include = compile(options.include);
  return {
    excluded: (rel, isDir) => exclude !== null && (exclude(rel) || (isDir && exclude(`${rel}/`))),
    included: (rel) => include === null || include(rel),
  };
}
