import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, openSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { atomicWrite } from '../src/storage/atomic-write.js';
import { capText, MAX_PAGE_CHARS } from './man-pages.js';
import {
  PROJECT_FILES,
  PROJECT_MTIME,
  PROJECT_SETUP,
  type RunCase,
  SCROLLBACK_TREE,
} from './selection-cases.js';
import { type Captured, PROMPT, scrub, shellQuote } from './selection-set.js';

// The I/O half of the selection evaluation set: man pages rendered by man-db (`man`, which finds
// a page by the name a user types and formats it with groff, BSD mdoc pages included), and the
// real commands run in a throw-away project directory with their combined stdout and stderr
// captured. Everything is written under the temp `root` the caller removes.

export interface RenderedPage {
  name: string;
  text: string;
}

/** Where rendered pages are kept between runs: groff takes ~0.3 s a page, a cached page nothing. */
export function defaultCacheDir(): string {
  return (
    process.env.KORTTY_EVAL_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kortty-rag-eval', 'man')
  );
}

/**
 * Each page man-db has, rendered at 80 columns and cut at `maxChars` (capText), and the names it
 * has no page for. A rendering is cached under `cacheDir` by the page's name, its source file and
 * bytes, the cut and man-db's version, so an updated page or man-db renders anew.
 */
export async function renderPages(
  names: readonly string[],
  cacheDir = defaultCacheDir(),
  maxChars = MAX_PAGE_CHARS,
): Promise<{ pages: RenderedPage[]; missing: string[]; cached: number }> {
  const pages: RenderedPage[] = [];
  const missing: string[] = [];
  let cached = 0;
  const env = { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat', LC_ALL: 'C.UTF-8' };
  const version = execFileSync('man', ['--version'], { env }).toString('utf8').trim();
  await mkdir(cacheDir, { recursive: true });
  for (const name of names) {
    let source: string;
    try {
      source = execFileSync('man', ['-w', name], { env, stdio: 'pipe' }).toString('utf8').trim();
    } catch {
      missing.push(name);
      continue;
    }
    const key = createHash('sha256')
      .update(`${version}\0${name}\0${source}\0${maxChars}\0`)
      .update(await readFile(source))
      .digest('hex')
      .slice(0, 16);
    const path = join(cacheDir, `${name}-${key}.txt`);
    let text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined) cached++;
    else {
      const raw = execFileSync('man', ['-E', 'UTF-8', '--nh', '--nj', name], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 << 20,
      }).toString('utf8');
      text = capText(raw.replace(/[ \t]+$/gm, ''), maxChars);
      await atomicWrite(path, Buffer.from(text));
    }
    pages.push({ name, text });
  }
  return { pages, missing, cached };
}

/** True when `program` is an executable file: on PATH, or at its path when it has one. */
export function installed(program: string): boolean {
  const dirs = program.includes('/') ? [''] : (process.env.PATH ?? '').split(delimiter);
  return dirs.some((d) => {
    try {
      accessSync(join(d, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface Project {
  root: string;
  home: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** The project directory `<root>/home/user/proj` with its files, setup commands and source tree. */
export async function buildProject(root: string): Promise<Project> {
  const home = join(root, 'home', 'user');
  const dir = join(home, 'proj');
  await mkdir(dir, { recursive: true });
  // The commands see a plain user's environment: no agent, no git or kortty settings of this
  // machine, a fixed locale, zone and terminal. pyenv's shims find their root without HOME.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(SSH_|GIT_|KORTTY_|GNUPG|DISPLAY|XDG_|TMUX)/.test(k)) env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    USER: 'user',
    LOGNAME: 'user',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
    TERM: 'xterm-256color',
    GIT_CONFIG_NOSYSTEM: '1',
    PYENV_ROOT: process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'),
  });
  for (const f of PROJECT_FILES) {
    const path = join(dir, f.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.text);
    await chmod(path, f.mode ?? 0o644);
  }
  await pinTimes({ root, home, dir, env });
  for (const argv of PROJECT_SETUP) {
    if (installed(argv[0]!)) spawnSync(argv[0]!, argv.slice(1), { cwd: dir, env, stdio: 'ignore' });
  }
  for (const d of SCROLLBACK_TREE.dirs) {
    await mkdir(join(dir, d), { recursive: true });
    for (let i = 0; i < SCROLLBACK_TREE.filesPerDir; i++) {
      const name = `${MODULES[i % MODULES.length]}${i < MODULES.length ? '' : '.test'}.ts`;
      await writeFile(join(dir, d, name), `export const ${MODULES[i % MODULES.length]} = ${i};\n`);
    }
  }
  await pinTimes({ root, home, dir, env });
  return { root, home, dir, env };
}

const MODULES = [
  'audit',
  'auth',
  'billing',
  'cache',
  'config',
  'events',
  'export',
  'flags',
  'health',
  'import',
  'jobs',
  'locale',
  'mail',
  'metrics',
  'notify',
  'orders',
  'payments',
  'queue',
  'report',
  'routes',
  'schema',
  'search',
  'seed',
  'session',
  'storage',
  'tasks',
  'tokens',
  'upload',
  'users',
  'views',
  'webhooks',
  'workers',
];

/** Every project file and directory gets PROJECT_MTIME, so listings print the same dates each run. */
async function pinTimes(p: Project): Promise<void> {
  const paths = [
    p.home,
    p.dir,
    ...PROJECT_FILES.map((f) => join(p.dir, f.path)),
    ...['repo', 'broken', 'dist', 'src', 'release.tar.gz'].map((x) => join(p.dir, x)),
    ...SCROLLBACK_TREE.dirs.flatMap((d) => {
      const files: string[] = [join(p.dir, d)];
      for (let i = 0; i < SCROLLBACK_TREE.filesPerDir; i++)
        files.push(join(p.dir, d, `${MODULES[i % MODULES.length]}${i < MODULES.length ? '' : '.test'}.ts`));
      return files;
    }),
  ];
  for (const path of paths) await utimes(path, PROJECT_MTIME, PROJECT_MTIME).catch(() => {});
}

/** Combined stdout and stderr of `argv` run in the project (as a terminal shows them, in order), scrubbed. */
export function runInProject(p: Project, argv: readonly string[], stdin?: string): string {
  const outPath = join(p.root, 'capture.out');
  const out = openSync(outPath, 'w');
  const input = stdin ? openSync(join(p.dir, stdin), 'r') : 'ignore';
  try {
    spawnSync(argv[0]!, argv.slice(1), {
      cwd: p.dir,
      env: p.env,
      stdio: [input, out, out],
      timeout: 20_000,
      killSignal: 'SIGKILL',
    });
  } finally {
    closeSync(out);
    if (typeof input === 'number') closeSync(input);
  }
  return scrub(readFileSync(outPath, 'utf8'), p.root, homedir());
}

/** Each installed case's output (cases run in id order), and the scrollback filler. */
export async function captureCases(p: Project, cases: readonly RunCase[]): Promise<Captured> {
  const outputs = new Map<string, string>();
  for (const c of [...cases].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (!installed(c.argv[0]!)) continue;
    await pinTimes(p);
    outputs.set(c.id, runInProject(p, c.argv, c.stdin));
  }
  await pinTimes(p);
  const listing = ['ls', '-l', ...SCROLLBACK_TREE.dirs];
  const filler = `${PROMPT}${shellQuote(listing)}\n${runInProject(p, listing)}`;
  return { outputs, filler };
}
