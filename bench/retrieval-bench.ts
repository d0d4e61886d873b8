import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from '../src/chunk/tokenizer.js';
import { STARTER_MODEL_ID } from '../src/embed/starter-model.js';
import { writeSnapshot } from '../src/index/snapshot-io.js';
import { chunkId, type SnapshotData, type SnapshotDoc, sortDocs } from '../src/index/snapshot-types.js';
import { createSearchDeps, type SearchMode, search } from '../src/retrieve/search.js';
import { snapshotPath } from '../src/storage/paths.js';
import { createStore, newSourceRecord } from '../src/store/engine.js';
import { saveStore } from '../src/store/store-config.js';
import type { SourceRecord, StoreConfig } from '../src/store/store-types.js';
import { mulberry32 as rng } from '../test/helpers/prng.js';
import type { BenchRow } from './run.js';

// Retrieval latency through search() (createSearchDeps: the real model cache, snapshot cache and
// per-call freshness check) on a store of 100,000 chunks of ~800 tokens, with the starter model's
// fingerprint so search() accepts it and embeds each query with the real model. The snapshot is
// written directly (embedding 100k chunks would take an hour): texts are Zipf-distributed words
// (a real vocabulary head, a long tail of made-up words, so BM25 has long posting lists to merge),
// vectors are clustered random unit vectors. Anchor: vector-only search in the same run, with the
// modes interleaved query by query so both see the same machine state.
// KORTTY_BENCH_SCALE (shared with index-bench) or KORTTY_BENCH_RETRIEVAL_CHUNKS scale it down;
// KORTTY_BENCH_RETRIEVAL_QUERIES sets the number of timed queries per mode (default 300).

const DIM = 384;
const CHUNKS_PER_DOC = 10;
const SOURCES = 5;
const WORDS_PER_CHUNK = [330, 430] as const; // ~2 cl100k tokens per word: ~600-860 tokens, as the chunker makes
const WORDS_PER_LINE = 12;

function gaussian(r: () => number): () => number {
  return () => {
    let u = 0;
    while (u === 0) u = r();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  };
}

// The head of the distribution is ordinary English (stop words first, as in real prose); the tail
// is 40,000 pronounceable made-up words (the starter model splits them into word pieces).
const HEAD = (
  'the of and to a in is that for it as with was on be by this are from at or an which not have ' +
  'index store query search model vector token chunk file source document page line text result ' +
  'value function error system data time process memory server request response config option ' +
  'build test cache update write read open close path name type level state user network table ' +
  'record field version change order limit size count first second number method class module ' +
  'output input default format report check event thread lock queue stream buffer signal handler'
).split(' ');
const SYLLABLES = 'ka ro mi te su la ve no pi du ra ze to bi fo ne lu sa ki mo'.split(' ');

function vocabulary(): string[] {
  const words = [...HEAD];
  const seen = new Set(words);
  const r = rng(7);
  while (words.length < HEAD.length + 40000) {
    let w = '';
    const n = 2 + Math.floor(r() * 3);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]!;
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

/** Zipf(1) sampler over `vocab` (rank 1 most frequent). */
function zipf(vocab: string[], r: () => number): (minRank?: number) => string {
  const cdf = new Float64Array(vocab.length);
  let acc = 0;
  for (let i = 0; i < vocab.length; i++) cdf[i] = acc += 1 / (i + 1);
  return (minRank = 0) => {
    const lo0 = minRank > 0 ? cdf[minRank - 1]! : 0;
    const u = lo0 + r() * (acc - lo0);
    let lo = minRank;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
}

/**
 * Words are letters only, so cl100k's pre-tokeniser splits this text exactly at the word, space
 * and line-break boundaries and the count is a sum of memoised per-word counts: the chunk table
 * gets the exact count the chunker would store, without encoding 300 MB of text.
 */
function wordCounter(): { word(w: string, spaced: boolean): number; newline: number } {
  const bare = new Map<string, number>();
  const spaced = new Map<string, number>();
  return {
    word(w, sp) {
      const m = sp ? spaced : bare;
      let n = m.get(w);
      if (n === undefined) {
        n = countTokens(sp ? ` ${w}` : w);
        m.set(w, n);
      }
      return n;
    },
    newline: countTokens('\n'),
  };
}

function chunkText(
  pick: () => string,
  r: () => number,
  counter: ReturnType<typeof wordCounter>,
): { text: string; tokens: number } {
  const [min, max] = WORDS_PER_CHUNK;
  const n = min + Math.floor(r() * (max - min));
  const lines: string[] = [];
  let tokens = 0;
  for (let i = 0; i < n; i += WORDS_PER_LINE) {
    const line: string[] = [];
    for (let j = i; j < Math.min(n, i + WORDS_PER_LINE); j++) {
      const w = pick();
      tokens += counter.word(w, j > i);
      line.push(w);
    }
    lines.push(line.join(' '));
  }
  return { text: lines.join('\n'), tokens: tokens + (lines.length - 1) * counter.newline };
}

function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (let d = 0; d < DIM; d++) norm += v[d]! * v[d]!;
  norm = Math.sqrt(norm);
  for (let d = 0; d < DIM; d++) v[d]! /= norm;
  return v;
}

/** A random unit centre plus isotropic noise of expected norm 1 (cosine ~0.5 within a cluster). */
function clusteredUnitVector(centres: Float32Array[], r: () => number, g: () => number): Float32Array {
  const c = centres[Math.floor(r() * centres.length)]!;
  const v = new Float32Array(DIM);
  for (let d = 0; d < DIM; d++) v[d] = c[d]! + g() / Math.sqrt(DIM);
  return normalise(v);
}

export function syntheticStore(cfg: StoreConfig, chunks: number): SnapshotData {
  const r = rng(11);
  const g = gaussian(rng(12));
  const pick = zipf(vocabulary(), r);
  const counter = wordCounter();
  const centres = Array.from({ length: 1000 }, () => normalise(Float32Array.from({ length: DIM }, g)));
  const docs: SnapshotDoc[] = [];
  for (let d = 0; d * CHUNKS_PER_DOC < chunks; d++) {
    const source = cfg.sources[d % cfg.sources.length]!;
    const path = join(source.path, `doc-${String(d).padStart(6, '0')}.md`);
    const doc: SnapshotDoc = {
      sourceId: source.id,
      path,
      sha256: createHash('sha256').update(path).digest('hex'),
      size: 0,
      format: 'markdown',
      chunks: [],
    };
    let line = 1;
    for (let c = 0; c < CHUNKS_PER_DOC && d * CHUNKS_PER_DOC + c < chunks; c++) {
      const { text, tokens } = chunkText(pick, r, counter);
      const lines = text.split('\n').length;
      doc.chunks.push({
        id: chunkId(cfg.id, source.id, path, c, text),
        index: c,
        text,
        tokens, // exact, as the chunker stores it (checked on a sample below)
        lineStart: line,
        lineEnd: line + lines - 1,
        vector: clusteredUnitVector(centres, r, g),
      });
      line += lines;
      doc.size += text.length + 1;
    }
    docs.push(doc);
  }
  return { fingerprint: cfg.fingerprint, dimension: DIM, docs: sortDocs(docs) };
}

/** Questions of 3–9 words: a few ordinary words, the rest content words of any frequency. */
export function queries(n: number): string[] {
  const r = rng(99);
  const pick = zipf(vocabulary(), r);
  const starts = ['how does the', 'why is', 'what', 'where is the', 'find', 'explain the'];
  return Array.from({ length: n }, () => {
    const words = [starts[Math.floor(r() * starts.length)]!];
    const k = 2 + Math.floor(r() * 6);
    for (let i = 0; i < k; i++) words.push(pick(30));
    return words.join(' ');
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;

interface Samples {
  total: number[];
  embed: number[];
  search: number[];
  assemble: number[];
}

function describe(s: Samples): string {
  const pp = (xs: number[]) => `${ms(pct(xs, 0.5))}/${ms(pct(xs, 0.99))}`;
  return `p50/p99 total ${pp(s.total)} (embed ${pp(s.embed)}, search ${pp(s.search)}, assemble ${pp(s.assemble)})`;
}

export async function benchRetrieval(): Promise<BenchRow[]> {
  const scale = Number(process.env.KORTTY_BENCH_SCALE ?? 1);
  const n = Number(process.env.KORTTY_BENCH_RETRIEVAL_CHUNKS ?? Math.max(1000, Math.round(100_000 * scale)));
  const nq = Number(process.env.KORTTY_BENCH_RETRIEVAL_QUERIES ?? 300);
  const home = await mkdtemp(join(tmpdir(), 'kortty-bench-retrieval-'));
  try {
    const created = await createStore({ name: 'retrieval-bench', modelId: STARTER_MODEL_ID }, home);
    const sources: SourceRecord[] = [];
    for (let i = 0; i < SOURCES; i++) {
      const s = newSourceRecord({ kind: 'folder', path: join(home, 'docs', `source-${i}`) }, sources);
      sources.push({ ...s, status: 'READY' as const });
    }
    const cfg: StoreConfig = { ...created, sources };
    let t0 = performance.now();
    const data = syntheticStore(cfg, n);
    const genMs = performance.now() - t0;
    const sample = data.docs.slice(0, 20).flatMap((d) => d.chunks.map((c) => countTokens(c.text)));
    const stored = data.docs.slice(0, 20).flatMap((d) => d.chunks.map((c) => c.tokens));
    if (sample.some((n, i) => n !== stored[i]))
      throw new Error('stored token counts differ from countTokens');
    t0 = performance.now();
    const { bytes } = await writeSnapshot(snapshotPath(cfg.id, home), data);
    const writeMs = performance.now() - t0;
    await saveStore(cfg, home);

    const deps = createSearchDeps(home);
    try {
      const qs = queries(nq + 10);
      t0 = performance.now();
      await search({ stores: [cfg], query: qs[0]!, mode: 'hybrid' }, deps); // opens snapshot, loads model
      const coldMs = performance.now() - t0;
      const modes: SearchMode[] = ['hybrid', 'vector', 'lexical'];
      for (const q of qs.slice(1, 10))
        for (const mode of modes) await search({ stores: [cfg], query: q, mode }, deps);
      const got = new Map<SearchMode, Samples>(
        modes.map((m) => [m, { total: [], embed: [], search: [], assemble: [] }]),
      );
      let excerpts = 0;
      const blockCount: number[] = [];
      for (const [i, q] of qs.slice(10).entries()) {
        // rotate the order so no mode always runs first (warm caches) or last
        for (let j = 0; j < modes.length; j++) {
          const mode = modes[(i + j) % modes.length]!;
          const t = performance.now();
          const res = await search({ stores: [cfg], query: q, mode }, deps);
          const s = got.get(mode)!;
          s.total.push(performance.now() - t);
          s.embed.push(res.timings.embedMs);
          s.search.push(res.timings.searchMs);
          s.assemble.push(res.timings.assembleMs);
          if (mode === 'hybrid') {
            excerpts += res.excerpts.length;
            const tc = performance.now();
            countTokens(res.block);
            blockCount.push(performance.now() - tc);
          }
        }
      }
      const h = got.get('hybrid')!;
      const v = got.get('vector')!;
      const l = got.get('lexical')!;
      const meanTokens = sample.reduce((a, b) => a + b, 0) / sample.length;
      const store =
        `${n} chunks (~${meanTokens.toFixed(0)} tokens each), ${data.docs.length} documents in ${SOURCES} sources, ` +
        `snapshot ${(bytes / 1e6).toFixed(0)} MB (generated ${(genMs / 1000).toFixed(1)} s, written ${(writeMs / 1000).toFixed(1)} s)`;
      return [
        {
          name: 'retrieval: hybrid / vector-only latency, p50',
          ratio: pct(h.total, 0.5) / pct(v.total, 0.5),
          details:
            `in-process hybrid p50 ${ms(pct(h.total, 0.5))}, p99 ${ms(pct(h.total, 0.99))} at ${n} chunks; ` +
            `${nq} queries per mode; hybrid ${describe(h)}; vector-only ${describe(v)}; ` +
            `${(excerpts / nq).toFixed(1)} excerpts per hybrid answer`,
        },
        {
          name: 'retrieval: hybrid / vector-only latency, p99',
          ratio: pct(h.total, 0.99) / pct(v.total, 0.99),
          details: `${store}`,
        },
        {
          name: 'retrieval: lexical-only / vector-only latency, p50',
          ratio: pct(l.total, 0.5) / pct(v.total, 0.5),
          details: `lexical-only ${describe(l)} (no query embedding); first search ${(coldMs / 1000).toFixed(1)} s (opens the snapshot, loads the model)`,
        },
        {
          // Bounds count the short header lines, the excerpt being trimmed and the final block once; one
          // count of the final block is the floor.
          name: 'retrieval: hybrid assembly / one token count of its block, p50',
          ratio: pct(h.assemble, 0.5) / pct(blockCount, 0.5),
          details: `assembly p50 ${ms(pct(h.assemble, 0.5))}, countTokens(final block) p50 ${ms(pct(blockCount, 0.5))}`,
        },
      ];
    } finally {
      await deps.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
