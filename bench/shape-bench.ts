import { QUERY_WORD_BUDGET, shapeQuery } from '../src/retrieve/query-shape.js';
import { mulberry32 as prng } from '../test/helpers/prng.js';
import type { BenchRow } from './run.js';

// Query shaping of a 10,000-line terminal selection over its anchor, measured in the same run on
// the same text: the anchor splits the text into lines and squashes each line's whitespace, the
// least any line-based shaping must do. Shaping adds the escape, prompt, timestamp, hex, UUID,
// number and gutter passes, the repeat check and the budget choice. Rounds are interleaved; best
// of each. A selection this long is rare (a whole scrollback); it must still shape in a blink.

const LINES = 10_000;
const ROUNDS = 15;

const WORDS =
  'request worker queue cache connect socket timeout retry backup archive config module import build deploy'.split(
    ' ',
  );

/** A scrollback as terminals hold it: coloured log lines, prompts, traces, errors and repeats. */
function scrollback(lines: number, seed = 7): string {
  const rnd = prng(seed);
  const pick = () => WORDS[Math.floor(rnd() * WORDS.length)]!;
  const hex = () => Math.floor(rnd() * 2 ** 48).toString(16);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const r = rnd();
    const ts = `2026-12-04T05:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}.${i % 1000}Z`;
    if (r < 0.4) out.push(`${ts} \x1b[32mINFO\x1b[0m ${pick()} ${pick()} done in ${i % 900} ms id=${hex()}`);
    else if (r < 0.6)
      out.push(`    at ${pick()}_${pick()} (/srv/app/${pick()}/${pick()}.js:${i % 400}:${i % 80})`);
    else if (r < 0.7) out.push(`user@host:~/src$ ${pick()} --${pick()} ./${pick()}/${pick()}.tar`);
    else if (r < 0.75)
      out.push(`${ts} \x1b[31mERROR\x1b[0m ${pick()}: cannot ${pick()} ${pick()}: Connection refused`);
    else if (r < 0.85) out.push(`  ${i % 999} | const ${pick()} = ${pick()}(${pick()});`);
    else out.push(out[Math.floor(rnd() * out.length)] ?? 'retrying');
  }
  return out.join('\n');
}

function anchor(text: string): number {
  let n = 0;
  for (const l of text.split('\n')) n += l.replace(/\s+/gu, ' ').trim().length;
  return n;
}

export async function benchShape(): Promise<BenchRow[]> {
  const text = scrollback(LINES);
  let best = { shape: Infinity, anchor: Infinity };
  let words = 0;
  let sink = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    sink += anchor(text);
    const t1 = performance.now();
    const s = shapeQuery(text);
    const t2 = performance.now();
    words = s.words;
    sink += s.query.length;
    best = { anchor: Math.min(best.anchor, t1 - t0), shape: Math.min(best.shape, t2 - t1) };
  }
  if (sink === 0) throw new Error('nothing measured');
  return [
    {
      name: 'shape: 10k-line selection / split+squash lines',
      ratio: best.shape / best.anchor,
      details: `shape ${best.shape.toFixed(1)} ms, anchor ${best.anchor.toFixed(2)} ms, ${(text.length / 1024).toFixed(0)} KB → ${words} words (budget ${QUERY_WORD_BUDGET})`,
    },
  ];
}
