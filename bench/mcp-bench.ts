import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { createSearchDeps, search } from '../src/retrieve/search.js';
import { addSources, createStore, findStore } from '../src/store/engine.js';
import { mulberry32 as rng } from '../test/helpers/prng.js';
import type { BenchRow } from './run.js';

// Warm tool-call latency of `search_knowledge` through the real SDK client over stdio against
// `kortty-rag mcp`, over the in-process search() of the same query on the same store, in the same
// run. Both sides are warm (models, tokenizer and snapshot loaded by a few calls first) and run
// in alternating blocks of the same queries so they see the same machine state. The MCP figure is the
// whole round trip an agent pays: JSON-RPC over pipes, argument and output validation, the
// store.json re-read, search() and the durable (fsynced) run record.
// KORTTY_BENCH_MCP_FILES (default 200) documents, KORTTY_BENCH_MCP_QUERIES (default 100) queries.

const BIN = fileURLToPath(new URL('../../bin/kortty-rag.js', import.meta.url));
const TOPICS =
  'backup tmux kernel docker rsync cron nginx postgres git ssh firewall python rust logging deploy cache'.split(
    ' ',
  );
const WORDS =
  'index store query vector token chunk file source page line server request config option build test update write read lock queue stream buffer signal handler snapshot replica schedule retry timeout'.split(
    ' ',
  );

const BLOCK = 10;
const PACE_MS = 25;

const pick = <T>(r: () => number, xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export async function benchMcp(): Promise<BenchRow[]> {
  const files = Number(process.env.KORTTY_BENCH_MCP_FILES ?? 200);
  const queries = Number(process.env.KORTTY_BENCH_MCP_QUERIES ?? 100);
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-mcp-'));
  // The documents sit next to the data directory: a source inside it is refused.
  const docs = `${home}-docs`;
  const r = rng(42);
  try {
    for (let i = 0; i < files; i++) {
      const topic = TOPICS[i % TOPICS.length]!;
      const lines = Array.from(
        { length: 40 },
        () => `${topic} ${Array.from({ length: 10 }, () => pick(r, WORDS)).join(' ')}.`,
      );
      await mkdir(join(docs, topic), { recursive: true });
      await writeFile(join(docs, topic, `${topic}-${i}.md`), `# ${topic} ${i}\n${lines.join('\n')}\n`);
    }
    await createStore({ name: 'Bench', modelId: STARTER_MODEL_ID, roles: ['text'], autonomous: true }, home);
    await addSources('Bench', [{ kind: 'folder', path: docs }], {}, home);
    const store = await findStore('Bench', home);
    const qs = Array.from(
      { length: queries },
      () => `${pick(r, TOPICS)} ${pick(r, WORDS)} ${pick(r, WORDS)}`,
    );

    const deps = createSearchDeps(home);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), KORTTY_HOME: home },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'kortty-bench', version: '1' });
    await client.connect(transport);
    const viaMcp = async (query: string) => {
      const t0 = performance.now();
      const res = await client.callTool({
        name: 'search_knowledge',
        arguments: { query, stores: ['Bench'] },
      });
      if (res.isError) throw new Error(`search_knowledge failed: ${JSON.stringify(res.content)}`);
      return performance.now() - t0;
    };
    const inProcess = async (query: string) => {
      const t0 = performance.now();
      await search({ stores: [store], query }, deps);
      return performance.now() - t0;
    };
    const ping = async () => {
      const t0 = performance.now();
      await client.ping();
      return performance.now() - t0;
    };
    try {
      for (const q of qs.slice(0, 5)) {
        await viaMcp(q);
        await inProcess(q);
      }
      // Two paces. Agent-paced: a short idle before every call on both sides, as between an
      // agent's tool calls (its model thinks for seconds). Back-to-back: no idle; each call then
      // also pays for the previous embedding's model threads still spinning on the CPUs, which
      // slows the next call's first file reads (store.json) by about a millisecond each here.
      const measure = async (idleMs: number) => {
        const mcp: number[] = [];
        const local: number[] = [];
        const idle = () => new Promise((r) => setTimeout(r, idleMs));
        // Blocks of queries, alternating sides: per-query interleaving would time each side right
        // after the other process's embedding.
        for (let at = 0; at < qs.length; at += BLOCK) {
          const block = qs.slice(at, at + BLOCK);
          for (const q of block) {
            if (idleMs) await idle();
            mcp.push(await viaMcp(q));
          }
          for (const q of block) {
            if (idleMs) await idle();
            local.push(await inProcess(q));
          }
          for (let i = 0; i < 5; i++) pings.push(await ping());
        }
        return { mcp, local };
      };
      const pings: number[] = [];
      const paced = await measure(PACE_MS);
      const tight = await measure(0);
      const f = (x: number) => x.toFixed(1);
      const detail = (m: { mcp: number[]; local: number[] }, pace: string) =>
        `${files} docs, ${queries} queries, ${pace}; mcp p50 ${f(pct(m.mcp, 50))} ms p99 ${f(pct(m.mcp, 99))} ms; in-process p50 ${f(pct(m.local, 50))} ms p99 ${f(pct(m.local, 99))} ms`;
      const row = (m: { mcp: number[]; local: number[] }, p: number, pace: string, label: string) => ({
        name: `mcp search_knowledge p${p} / in-process p${p} (${label})`,
        ratio: pct(m.mcp, p) / pct(m.local, p),
        details: detail(m, pace),
      });
      return [
        row(paced, 50, `${PACE_MS} ms idle before each call`, 'agent-paced'),
        row(paced, 99, `${PACE_MS} ms idle before each call`, 'agent-paced'),
        row(tight, 50, 'no idle', 'back-to-back'),
        row(tight, 99, 'no idle', 'back-to-back'),
        {
          name: 'mcp ping round trip p50 (ms, protocol floor)',
          ratio: pct(pings, 50),
          details: `p99 ${f(pct(pings, 99))} ms`,
        },
      ];
    } finally {
      await client.close();
      await deps.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
    await rm(docs, { recursive: true, force: true });
  }
}
