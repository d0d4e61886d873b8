import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STARTER_DEFAULTS } from '../../src/embed/generate-model.js';
import { LEXICAL_GENERATOR_VERSION } from '../../src/embed/lexical-model.js';
import { STARTER_MODEL_ID, starterFileName, starterRecordPath } from '../../src/embed/starter-model.js';
import { modelsDir } from '../../src/storage/paths.js';
import { createDefaultPorts } from '../../src/store/default-ports.js';
import type { PipelinePorts } from '../../src/store/ports.js';
import { lexicalModel } from './models.js';

// A fresh $KORTTY_HOME per test with the (generated, cached) starter model already in place, so
// tests exercise the real model without regenerating it each time.

// Every home holds a 26 MB model copy: a full run would leave gigabytes in /tmp. Each test file
// runs in its own process, so its directories go when that process exits.
const made: string[] = [];
// A query service a test stopped may still be writing its last files as it exits (ENOTEMPTY): the
// removal retries, and a directory that still resists is left to the system's temp cleaning rather
// than failing a run whose tests all passed.
process.once('exit', () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {}
  }
});

/** A temporary directory removed when this test process exits. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export async function freshHome(): Promise<string> {
  const home = await tempDir('kortty-home-');
  process.env.KORTTY_HOME = home;
  return home;
}

export async function homeWithStarter(): Promise<string> {
  const home = await freshHome();
  const src = await lexicalModel();
  await mkdir(modelsDir(home), { recursive: true });
  const dest = join(modelsDir(home), starterFileName());
  await copyFile(src, dest);
  const bytes = await readFile(dest);
  await writeFile(
    starterRecordPath(home),
    JSON.stringify({
      id: STARTER_MODEL_ID,
      file: starterFileName(),
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      source: 'generated',
      dimension: STARTER_DEFAULTS.dimension,
      generatorVersion: LEXICAL_GENERATOR_VERSION,
      seed: STARTER_DEFAULTS.seed,
    }),
  );
  return home;
}

/** Real ports that count embedded texts and model opens. */
export function countingPorts(home: string): PipelinePorts & { embedded: number; opens: number } {
  const base = createDefaultPorts(home);
  const ports = {
    ...base,
    embedded: 0,
    opens: 0,
    async openEmbedder(fp: Parameters<PipelinePorts['openEmbedder']>[0], id: string) {
      ports.opens++;
      const e = await base.openEmbedder(fp, id);
      return {
        dimension: e.dimension,
        close: () => e.close(),
        async embedDocuments(texts: string[], opts?: { signal?: AbortSignal }) {
          ports.embedded += texts.length;
          return e.embedDocuments(texts, opts);
        },
      };
    },
  };
  return ports;
}

export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    await mkdir(join(p, '..'), { recursive: true });
    await writeFile(p, content);
  }
}

export const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu'.split(
    ' ',
  );

/** Deterministic prose of `n` lines about `topic`, ten words a line drawn from `words`. */
export function prose(topic: string, n: number, seed = 1, words: readonly string[] = WORDS): string {
  let s = seed;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const line = [topic];
    for (let j = 0; j < 10; j++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      line.push(words[s % words.length]!);
    }
    lines.push(`${line.join(' ')}.`);
  }
  return `${lines.join('\n')}\n`;
}
