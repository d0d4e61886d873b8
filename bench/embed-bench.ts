import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';
import { createPrng } from '../src/embed/prng.js';
import { createEmbedder } from '../src/embed/provider.js';
import { ensureStarterModel } from '../src/embed/starter-model.js';
import { dot, l2Normalize } from '../src/embed/vectors.js';
import { usableCores } from '../src/util/cores.js';

// Embedding throughput on the generated starter model, each figure a ratio against an anchor
// measured in the same run (variants interleaved over several rounds; medians used):
//  - provider (defaults: one single-threaded context per usable core) over the bare
//    node-llama-cpp call with its default threads (the thread pitfall the provider avoids);
//  - provider over the bare call with usableCores threads (what batching adds over a tuned call);
//  - bare call with usableCores threads over its default threads;
//  - provider defaults over the provider with one context using all threads.

const WORDS =
  'index store chunk vector search query model token embed file folder source snapshot excerpt marker terminal ' +
  'the of and to in is for on with that as by this from are be or at an it not which have has was were will can ' +
  'function return const value error result string number array object type interface class import export async';

function makeChunks(count: number, words: number, seed = 7): string[] {
  const list = WORDS.split(' ');
  const rnd = createPrng(seed);
  return Array.from({ length: count }, (_, c) => {
    const out: string[] = [`chunk${c}`];
    for (let i = 0; i < words; i++) out.push(list[Math.floor(rnd() * list.length)]!);
    return out.join(' ');
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchEmbed(): Promise<{ name: string; ratio: number; details: string }[]> {
  const home = join(tmpdir(), 'kortty-bench-home');
  const { path } = await ensureStarterModel(home);
  const chunks = makeChunks(Number(process.env.KORTTY_BENCH_CHUNKS ?? 24), 600);
  const cores = usableCores();

  // Bare node-llama-cpp: its own Llama with default options, one embedding context, one call per chunk.
  const bareLlama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const bareModel = await bareLlama.loadModel({ modelPath: path });
  const bare = async (threads?: number) => {
    const ctx = await bareModel.createEmbeddingContext({
      contextSize: 2048,
      batchSize: 2048,
      ...(threads ? { threads } : {}),
    });
    const t0 = performance.now();
    const out: number[][] = [];
    for (const c of chunks) out.push([...(await ctx.getEmbeddingFor(c)).vector]);
    const ms = performance.now() - t0;
    await ctx.dispose();
    return { ms, out };
  };
  const provider = async (parallel?: number) => {
    const e = await createEmbedder({ modelPath: path, ...(parallel ? { parallel } : {}) });
    const t0 = performance.now();
    const out = await e.embedDocuments(chunks);
    const ms = performance.now() - t0;
    const tokens = e.stats.tokens;
    await e.close();
    return { ms, out, tokens };
  };

  const times: Record<string, number[]> = { bareDefault: [], bareCores: [], prov: [], provOne: [] };
  let tokens = 0;
  let agreement = 1;
  const rounds = Number(process.env.KORTTY_BENCH_ROUNDS ?? 3);
  for (let r = 0; r < rounds; r++) {
    times.bareDefault!.push((await bare()).ms);
    const bc = await bare(cores);
    times.bareCores!.push(bc.ms);
    const p = await provider();
    times.prov!.push(p.ms);
    tokens = p.tokens;
    times.provOne!.push((await provider(1)).ms);
    // Same model, same chunks: the provider's vectors must be the bare ones, normalised.
    for (let i = 0; i < chunks.length; i++)
      agreement = Math.min(agreement, dot(l2Normalize(bc.out[i]!)!, p.out[i]!));
  }
  await bareModel.dispose();
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
    string,
    number
  >;
  const rate = (ms: number) => `${((chunks.length / ms) * 1000).toFixed(1)} chunks/s`;
  const tps = (ms: number) => `${Math.round((tokens / ms) * 1000)} tokens/s`;
  const common = `${chunks.length} chunks, ${tokens} tokens, ${cores} usable cores, median of ${rounds}, load average ${loadavg()[0]!.toFixed(1)}`;
  return [
    {
      name: 'embed: provider vs bare node-llama-cpp (default threads)',
      ratio: m.bareDefault! / m.prov!,
      details: `provider ${rate(m.prov!)} (${tps(m.prov!)}), bare default threads ${rate(m.bareDefault!)}; ${common}`,
    },
    {
      name: 'embed: provider vs bare node-llama-cpp (usableCores threads)',
      ratio: m.bareCores! / m.prov!,
      details: `provider ${rate(m.prov!)}, bare ${cores} threads ${rate(m.bareCores!)}; min cosine provider/bare ${agreement.toFixed(6)}`,
    },
    {
      name: 'embed: bare usableCores threads vs default threads',
      ratio: m.bareDefault! / m.bareCores!,
      details: `${cores} threads ${rate(m.bareCores!)}, default ${rate(m.bareDefault!)}`,
    },
    {
      name: 'embed: parallel single-thread contexts vs one context',
      ratio: m.provOne! / m.prov!,
      details: `${cores} contexts x 1 thread ${rate(m.prov!)}, 1 context x ${cores} threads ${rate(m.provOne!)}`,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchEmbed()) console.log(`${r.name}: ${r.ratio.toFixed(2)}x  (${r.details})`);
}
