// Deterministic generated text for chunker tests: prose paragraphs and code, with unique words so
// that overlaps between chunks can be located unambiguously.

import { mulberry32 as prng } from '../helpers/prng.js';

export { prng };

const WORDS =
  'store index chunk vector search query model token file folder source snapshot excerpt marker terminal ' +
  'the of and to in is for on with that as by this from are be or at an it not which have has was';

/** `paragraphs` paragraphs of 1–6 lines; every line carries a unique tag like `L17`. */
export function prose(paragraphs: number, seed = 1): string {
  const rnd = prng(seed);
  const words = WORDS.split(' ');
  const out: string[] = [];
  let line = 0;
  for (let p = 0; p < paragraphs; p++) {
    const lines: string[] = [];
    const count = 1 + Math.floor(rnd() * 6);
    for (let l = 0; l < count; l++) {
      line++;
      const n = 5 + Math.floor(rnd() * 15);
      const ws = Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)] as string);
      lines.push(`L${line} ${ws.join(' ')}.`);
    }
    out.push(lines.join('\n'));
  }
  return `${out.join('\n\n')}\n`;
}

/** One line of `words` unique words (w0 w1 w2 …): no newline anywhere. */
export function oneLine(words: number): string {
  return Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
}
