import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { addSources, createStore } from '../src/store/engine.js';
import type { BenchRow } from './run.js';

// What a user waits for when a terminal key runs `kortty-rag search`: the wall time of a fresh
// process, from spawn to exit, against `node -e 0` measured in the same run (the floor for any
// Node CLI). Warm: the query service is running with the model and snapshot loaded, so the
// process only starts Node, loads the lean client path and asks over the socket. Cold: the same
// command with --no-service, which loads the engine, the tokenizer and the model and opens the
// snapshot itself (what every search paid before the service). The store is a real one: 300
// generated documents indexed with the starter model through the real sync.
// KORTTY_BENCH_SERVICE_RUNS sets the number of timed warm runs of each setup (default 25; cold runs are a third).

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/kortty-rag.js', import.meta.url));
const QUERIES = [
  'tar archive listing without extracting',
  'kiwi orchard irrigation schedule',
  'rotate the ssh keys',
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function wall(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; stdout: string; stderr: string }> {
  const t0 = performance.now();
  const { stdout, stderr } = await run(args[0]!, args.slice(1), { env, maxBuffer: 16 << 20 });
  return { ms: performance.now() - t0, stdout, stderr };
}

function corpus(): Record<string, string> {
  const words =
    'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(
      ' ',
    );
  const topics = [
    'tar archive',
    'kiwi orchard',
    'ssh keys',
    'bicycle chain',
    'sourdough bread',
    'git rebase',
  ];
  const files: Record<string, string> = {};
  let s = 7;
  for (let i = 0; i < 300; i++) {
    const topic = topics[i % topics.length]!;
    const lines = [`# ${topic} ${i}`, ''];
    for (let l = 0; l < 40; l++) {
      const w: string[] = [topic];
      for (let j = 0; j < 12; j++) {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        w.push(words[s % words.length]!);
      }
      lines.push(`${w.join(' ')}.`);
    }
    files[`doc-${String(i).padStart(3, '0')}.md`] = `${lines.join('\n')}\n`;
  }
  return files;
}

export async function benchService(): Promise<BenchRow[]> {
  const runs = Number(process.env.KORTTY_BENCH_SERVICE_RUNS ?? 25);
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-service-'));
  // The documents sit next to the data directory: a source inside it is refused.
  const docs = `${home}-docs`;
  const env = { ...process.env, KORTTY_HOME: home };
  try {
    await mkdir(docs, { recursive: true });
    for (const [name, text] of Object.entries(corpus())) await writeFile(join(docs, name), text);
    await createStore({ name: 'bench', modelId: STARTER_MODEL_ID }, home);
    await addSources('bench', [{ kind: 'folder', path: docs }], {}, home);
    const node = [process.execPath, '-e', '0'];
    const search = (q: string, ...extra: string[]) => [
      process.execPath,
      BIN,
      'search',
      ...extra,
      '--store',
      'bench',
      q,
    ];

    // Start the service and warm it (model, tokenizer, snapshot).
    const first = await wall(search(QUERIES[0]!, '--verbose'), env);
    if (!/answered by the query service/.test(first.stderr))
      throw new Error(`the service did not answer:\n${first.stderr}`);
    for (const q of QUERIES) await wall(search(q), env);

    // Each setup is set against the `node -e 0` runs interleaved with its own: a machine that
    // slows down between the two setups moves both sides of a ratio alike.
    const anchor: number[] = [];
    const anchorConfig: number[] = [];
    const warm: number[] = [];
    const cold: number[] = [];
    const measureWarm = async (into: number[], anchors: number[], n: number) => {
      for (let i = 0; i < n; i++) {
        anchors.push((await wall(node, env)).ms);
        const r = await wall(search(QUERIES[i % QUERIES.length]!, '--verbose'), env);
        if (!/answered by the query service/.test(r.stderr))
          throw new Error(
            `a warm run fell back (a loaded machine? the default answer timeout is 1.5 s):\n${r.stderr}`,
          );
        into.push(r.ms);
        if (i % 3 === 0)
          cold.push((await wall(search(QUERIES[i % QUERIES.length]!, '--no-service'), env)).ms);
      }
    };
    // The usual setup first: no config.json.
    await measureWarm(warm, anchor, runs);
    // Then with a config.json holding a service block, which the warm path checks without zod
    // (storage/service-block.ts); only a doubtful block loads the schema.
    await writeFile(
      join(home, 'rag', 'config.json'),
      JSON.stringify({ service: { answerTimeoutMs: 60_000, startTimeoutMs: 60_000 } }),
    );
    const warmConfig: number[] = [];
    await measureWarm(warmConfig, anchorConfig, runs);
    const base = median(anchor);
    const baseConfig = median(anchorConfig);
    const w = median(warm);
    const c = median(cold);
    const wc = median(warmConfig);
    return [
      {
        name: 'service: search, warm service / node -e 0',
        ratio: w / base,
        details: `fresh process p50 ${w.toFixed(0)} ms p90 ${pct(warm, 0.9).toFixed(0)} ms; node -e 0 p50 ${base.toFixed(0)} ms (aim <= 2.5x); ${runs} runs, no config.json`,
      },
      {
        name: 'service: search, warm service with a config.json / node -e 0',
        ratio: wc / baseConfig,
        details: `fresh process p50 ${wc.toFixed(0)} ms p90 ${pct(warmConfig, 0.9).toFixed(0)} ms; node -e 0 p50 ${baseConfig.toFixed(0)} ms (aim <= 2.5x); a valid service block, checked without zod; ${warmConfig.length} runs`,
      },
      {
        name: 'service: search, cold in-process / node -e 0',
        ratio: c / base,
        details: `--no-service p50 ${c.toFixed(0)} ms (loads model, tokenizer, snapshot); ${cold.length} runs; warm is ${(c / w).toFixed(1)}x faster`,
      },
    ];
  } finally {
    await run(process.execPath, [BIN, 'service', 'stop'], { env }).catch(() => {});
    // The stopped service may still be writing its last files while it exits: retry the removal.
    await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await rm(docs, { recursive: true, force: true });
  }
}
