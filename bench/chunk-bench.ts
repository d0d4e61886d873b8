import { chunkDocument, DEFAULT_CHUNK_PARAMS } from '../src/chunk/chunk-document.js';
import { getTokenizer } from '../src/chunk/tokenizer.js';
import type { Chunk, ChunkParams, ExtractedDoc } from '../src/types.js';
import { mulberry32 as prng } from '../test/helpers/prng.js';
import { greedyChunks } from './greedy-chunker.js';

export { prng };

// Chunking cost over its anchor, measured in the same run on the same text: the time of
// `chunkDocument` (encode once + boundary choice + slicing + line ranges) over the time of bare
// tiktoken `encode_ordinary` of every document. Aim: <= 1.3x. Rounds are interleaved; best of each.
//
// Corpus: KORTTY_BENCH_CHUNK_MB (default 20) MB of generated documents, 2–64 KB each, half prose
// (sentences, paragraphs, Markdown headings) and half code (indented lines, identifiers, numbers,
// comments), plus a few paged documents as PDFs give them.
//
// Also from the same corpus: chunk sizes (content-defined cuts cap chunks at chunkTokens and vary
// below it) and how many chunks a one-line edit re-makes, both against v0.1's greedy chunker.

const PROSE =
  'the of and to in is for on with that as by this from are be or at an it not which have has was were will can ' +
  'store index chunk vector search query model token embedding file folder source snapshot excerpt marker terminal ' +
  'retrieval context answer citation page line paragraph document format scan review preview summary changed ' +
  'unchanged skipped reason limit bound timeout memory process child parser extract text markdown heading table';
const IDENTS =
  'value result index count offset buffer tokens chunk params options config store source path name size ' +
  'start end line page text error reason signal timeout limit map list set entry node child parent key';

export function proseDoc(rnd: () => number, bytes: number): string {
  const words = PROSE.split(' ');
  const pick = () => words[Math.floor(rnd() * words.length)] as string;
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    let para = '';
    if (rnd() < 0.15) para += `## ${pick()} ${pick()}\n\n`;
    const sentences = 2 + Math.floor(rnd() * 6);
    for (let s = 0; s < sentences; s++) {
      const n = 6 + Math.floor(rnd() * 18);
      const ws = Array.from({ length: n }, pick);
      ws[0] = (ws[0] as string).charAt(0).toUpperCase() + (ws[0] as string).slice(1);
      if (rnd() < 0.2) ws.splice(Math.floor(n / 2), 0, `${Math.floor(rnd() * 10000)},`);
      para += `${ws.join(' ')}${rnd() < 0.1 ? '?' : '.'}${s % 3 === 2 ? '\n' : ' '}`;
    }
    out.push(para.trimEnd());
    size += para.length + 2;
  }
  return `${out.join('\n\n')}\n`;
}

export function codeDoc(rnd: () => number, bytes: number): string {
  const ids = IDENTS.split(' ');
  const id = () => ids[Math.floor(rnd() * ids.length)] as string;
  const lines: string[] = [];
  let size = 0;
  let depth = 0;
  while (size < bytes) {
    const pad = '  '.repeat(depth);
    const r = rnd();
    let line: string;
    if (r < 0.1 && depth < 4) {
      line = `${pad}export function ${id()}${id().charAt(0).toUpperCase()}${id().slice(1)}(${id()}: number, ${id()}: string) {`;
      depth++;
    } else if (r < 0.18 && depth > 0) {
      depth--;
      line = `${'  '.repeat(depth)}}`;
    } else if (r < 0.3) {
      line = `${pad}// ${id()} ${id()} ${id()}: ${id()} the ${id()} before ${id()}`;
    } else if (r < 0.35) {
      line = '';
    } else {
      line = `${pad}const ${id()}_${Math.floor(rnd() * 100)} = ${id()}.${id()}(${id()}, ${Math.floor(rnd() * 4096)}) + ${id()}[${Math.floor(rnd() * 16)}];`;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

export function makeChunkCorpus(totalBytes: number, seed = 42): ExtractedDoc[] {
  const rnd = prng(seed);
  const docs: ExtractedDoc[] = [];
  let size = 0;
  while (size < totalBytes) {
    const bytes = 2048 + Math.floor(rnd() * 62 * 1024);
    const kind = rnd();
    if (kind < 0.05) {
      const pages = Array.from({ length: 2 + Math.floor(rnd() * 10) }, () => proseDoc(rnd, bytes / 6));
      docs.push({ kind: 'pages', pages });
      size += pages.reduce((a, p) => a + p.length, 0);
    } else {
      const text = kind < 0.5 ? proseDoc(rnd, bytes) : codeDoc(rnd, bytes);
      docs.push({ kind: 'lines', text, sourceLines: true });
      size += text.length;
    }
  }
  return docs;
}

function docText(d: ExtractedDoc): string {
  return d.kind === 'lines' ? d.text : d.pages.join('\n\n');
}

export async function benchChunk(): Promise<{ name: string; ratio: number; details: string }[]> {
  const mb = Number(process.env.KORTTY_BENCH_CHUNK_MB ?? 20);
  const docs = makeChunkCorpus(mb * 1024 * 1024);
  const texts = docs.map(docText);
  const tok = getTokenizer();
  const params = DEFAULT_CHUNK_PARAMS;

  // Interleaved per document (alternating which side goes first) and measured in CPU time of this
  // process, so other load on the machine shifts both sides alike instead of skewing the ratio.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // Warm-up on a slice: creates the encoder and fills the token-length cache for both sides.
  for (const d of docs.slice(0, 20)) chunkDocument(d, params, tok);
  const rounds = Number(process.env.KORTTY_BENCH_ROUNDS ?? 1);
  let bareCpu = 0;
  let chunkCpu = 0;
  let bareWall = 0;
  let chunkWall = 0;
  let tokens = 0;
  let chunks = 0;
  for (let r = 0; r < rounds; r++) {
    docs.forEach((d, i) => {
      const runBare = () => {
        const c0 = cpu();
        const w0 = performance.now();
        tokens += tok.encodeOrdinary(texts[i] as string).length;
        bareWall += performance.now() - w0;
        bareCpu += cpu() - c0;
      };
      const runChunk = () => {
        const c0 = cpu();
        const w0 = performance.now();
        chunks += chunkDocument(d, params, tok).length;
        chunkWall += performance.now() - w0;
        chunkCpu += cpu() - c0;
      };
      if ((i + r) % 2 === 0) {
        runBare();
        runChunk();
      } else {
        runChunk();
        runBare();
      }
    });
  }
  const bytes = texts.reduce((a, t) => a + Buffer.byteLength(t, 'utf8'), 0);
  const sizes = chunkSizes(docs, params, tok);
  const edits = editLocality(docs, params, tok);
  return [
    {
      name: 'chunking / bare tiktoken encode_ordinary',
      ratio: chunkCpu / bareCpu,
      details:
        `${docs.length} docs, ${(bytes / 1048576).toFixed(1)} MiB, ${tokens / rounds} tokens -> ${chunks / rounds} chunks ` +
        `(${params.chunkTokens}/${params.overlapTokens}), ${rounds} round(s); CPU: chunk ${chunkCpu.toFixed(0)} ms vs ` +
        `encode ${bareCpu.toFixed(0)} ms; wall: chunk ${chunkWall.toFixed(0)} ms vs encode ${bareWall.toFixed(0)} ms ` +
        `(${(chunkWall / bareWall).toFixed(2)}x)`,
    },
    sizes,
    edits,
  ];
}

type ChunkFn = (d: ExtractedDoc, p: ChunkParams, tok: ReturnType<typeof getTokenizer>) => Chunk[];

/** Mean tokens of every chunk but each document's last (which holds whatever is left). */
function meanSize(
  docs: readonly ExtractedDoc[],
  params: ChunkParams,
  tok: ReturnType<typeof getTokenizer>,
  fn: ChunkFn,
) {
  let sum = 0;
  let n = 0;
  let small = 0;
  for (const d of docs) {
    const cs = fn(d, params, tok);
    for (const c of cs.slice(0, -1)) {
      sum += c.tokens;
      n++;
      if (c.tokens < params.chunkTokens / 2) small++;
    }
  }
  return { mean: sum / Math.max(1, n), n, small };
}

function chunkSizes(
  docs: readonly ExtractedDoc[],
  params: ChunkParams,
  tok: ReturnType<typeof getTokenizer>,
) {
  const cd = meanSize(docs, params, tok, chunkDocument);
  const greedy = meanSize(docs, params, tok, greedyChunks);
  return {
    name: 'chunk size: mean tokens, content-defined / greedy',
    ratio: cd.mean / greedy.mean,
    details:
      `mean ${cd.mean.toFixed(0)} tokens (cap ${params.chunkTokens}, ${cd.small} of ${cd.n} under half) vs ` +
      `${greedy.mean.toFixed(0)} with v0.1's greedy cuts; each document's last chunk not counted`,
  };
}

/** New chunk texts per one-line insertion and deletion at 1/4, 1/2 and 3/4 of the longer line documents. */
function editLocality(
  docs: readonly ExtractedDoc[],
  params: ChunkParams,
  tok: ReturnType<typeof getTokenizer>,
) {
  const long = docs
    .filter(
      (d): d is Extract<ExtractedDoc, { kind: 'lines' }> => d.kind === 'lines' && d.text.length > 40_000,
    )
    .slice(0, 60);
  const fresh = (fn: ChunkFn, before: string, after: string) => {
    const old = new Set(
      fn({ kind: 'lines', text: before, sourceLines: true }, params, tok).map((c) => c.text),
    );
    return fn({ kind: 'lines', text: after, sourceLines: true }, params, tok).filter((c) => !old.has(c.text))
      .length;
  };
  const tally = { cd: 0, greedy: 0, cdMax: 0, greedyMax: 0, edits: 0 };
  for (const d of long) {
    const lines = d.text.split('\n');
    for (const at of [0.25, 0.5, 0.75]) {
      const i = Math.floor(lines.length * at);
      const inserted = [
        ...lines.slice(0, i),
        'One line inserted by an edit of this document.',
        ...lines.slice(i),
      ];
      const deleted = [...lines.slice(0, i), ...lines.slice(i + 1)];
      for (const edited of [inserted, deleted]) {
        const a = fresh(chunkDocument, d.text, edited.join('\n'));
        const b = fresh(greedyChunks, d.text, edited.join('\n'));
        tally.cd += a;
        tally.greedy += b;
        tally.cdMax = Math.max(tally.cdMax, a);
        tally.greedyMax = Math.max(tally.greedyMax, b);
        tally.edits++;
      }
    }
  }
  return {
    name: 'edit locality: chunks re-made per line edit, content-defined / greedy',
    ratio: tally.cd / Math.max(1, tally.greedy),
    details:
      `${tally.edits} one-line insertions and deletions in ${long.length} documents over 40 KB: ` +
      `${(tally.cd / tally.edits).toFixed(2)} new chunks per edit (max ${tally.cdMax}) vs ` +
      `${(tally.greedy / tally.edits).toFixed(2)} (max ${tally.greedyMax}) with greedy cuts`,
  };
}

// Run directly: node dist/bench/chunk-bench.js
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchChunk()) console.log(`${r.name}: ${r.ratio.toFixed(2)}x  ${r.details}`);
}
