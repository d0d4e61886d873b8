// `npm run bench`: every figure is a ratio against an anchor measured in the same run
// (openssl sha256 of the same bytes, bare tiktoken, the bare model call, a plain copy, exact
// search, raw hnswlib, splitting a selection into lines). Pass names to run a subset: `npm run bench -- scan index`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchRow {
  name: string;
  ratio: number;
  details: string;
}

const SUITES: Record<string, () => Promise<BenchRow[]>> = {
  scan: async () => (await import('./scan-bench.js')).benchScan(),
  extract: async () => (await import('./extract-bench.js')).benchExtract(),
  chunk: async () => (await import('./chunk-bench.js')).benchChunk(),
  embed: async () => (await import('./embed-bench.js')).benchEmbed(),
  index: async () => [
    ...(await (await import('./sync-bench.js')).benchSync()),
    ...(await (await import('./index-bench.js')).benchIndex()),
  ],
  sync: async () => (await import('./sync-bench.js')).benchSync(),
  store: async () => (await import('./store-bench.js')).benchStore(),
  retrieval: async () => [
    ...(await (await import('./retrieval-bench.js')).benchRetrieval()),
    ...(await (await import('./service-bench.js')).benchService()),
  ],
  service: async () => (await import('./service-bench.js')).benchService(),
  shape: async () => (await import('./shape-bench.js')).benchShape(),
  tui: async () => (await import('./tui-bench.js')).benchTui(),
  mcp: async () => (await import('./mcp-bench.js')).benchMcp(),
  last: async () => [
    ...(await (await import('./last-bench.js')).benchLast()),
    ...(await (await import('./last-key-bench.js')).benchLastKey()),
  ],
  'last-key': async () => (await import('./last-key-bench.js')).benchLastKey(),
};

async function main() {
  // A home made here is the bench's own and goes with it; one passed in is the caller's.
  const ownHome = process.env.KORTTY_HOME ? undefined : mkdtempSync(join(tmpdir(), 'kortty-bench-home-'));
  if (ownHome) process.env.KORTTY_HOME = ownHome;
  try {
    await runSuites();
  } finally {
    if (ownHome) rmSync(ownHome, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function runSuites() {
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : Object.keys(SUITES);
  const rows: BenchRow[] = [];
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      console.error(`unknown bench "${name}"; known: ${Object.keys(SUITES).join(', ')}`);
      process.exitCode = 2;
      continue;
    }
    const t0 = performance.now();
    try {
      const got = await suite();
      for (const r of got)
        console.log(`${r.name.padEnd(48)} ${r.ratio.toFixed(3).padStart(9)}  ${r.details}`);
      rows.push(...got);
    } catch (err) {
      console.error(`bench ${name} failed: ${(err as Error).stack ?? err}`);
      process.exitCode = 1;
    }
    console.log(`-- ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  console.log('\nsummary (ratio = measured / anchor unless the name says otherwise)');
  for (const r of rows) console.log(`  ${r.name}: ${r.ratio.toFixed(3)}`);
}

await main();
