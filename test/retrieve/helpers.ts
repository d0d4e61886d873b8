// Shared by the retrieval and AI tests: a temp KORTTY_HOME, a real tiktoken counter, candidates,
// and block checks that do not trust the code under test (they re-derive everything from text).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { SPECIAL_TOKENS } from '../../src/retrieve/sanitize.js';
import type { Candidate } from '../../src/types.js';

export function useTempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'kortty-rag-test-'));
  process.env.KORTTY_HOME = home;
  return home;
}

let enc: Tiktoken | undefined;
/** o200k_base token count (encode_ordinary: special-token text is counted as text, never throws). */
export function countTokens(text: string): number {
  enc ??= get_encoding('o200k_base');
  return enc.encode_ordinary(text).length;
}
export function freeTokenizer(): void {
  enc?.free();
  enc = undefined;
}

export function lines(prefix: string, n: number, words = 8): string {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) {
    out.push(
      `${prefix} line ${i}: ${Array.from({ length: words }, (_, w) => `w${(i * 7 + w) % 97}`).join(' ')}`,
    );
  }
  return out.join('\n');
}

export function cand(
  p: Partial<Candidate> & { storeId?: string; sourceId: string; chunk: number; fusedScore: number },
): Candidate {
  const storeId = p.storeId ?? 'st1';
  const chunkId = p.chunkId ?? `${p.sourceId}-c${p.chunk}`;
  const text = p.text ?? lines(`${p.sourceId}#${p.chunk}`, 5);
  return {
    key: `${storeId}:${chunkId}`,
    storeId,
    storeName: p.storeName ?? `Store ${storeId}`,
    sourceId: p.sourceId,
    path: p.path ?? `/docs/${p.sourceId}.md`,
    lineStart: p.lineStart ?? (p.pageStart === undefined ? 1 + p.chunk * 10 : undefined),
    lineEnd:
      p.lineEnd ?? (p.pageStart === undefined ? 1 + p.chunk * 10 + text.split('\n').length - 1 : undefined),
    pageStart: p.pageStart,
    pageEnd: p.pageEnd,
    text,
    // The chunk table's count, as the chunker stores it (with this file's counter, which the tests
    // also pass to the bounds).
    tokens: p.tokens ?? countTokens(text),
    vectorRank: p.vectorRank,
    lexicalRank: p.lexicalRank,
    vectorScore: p.vectorScore,
    lexicalScore: p.lexicalScore,
    fusedScore: p.fusedScore,
    chunkId,
    contentSha256: p.contentSha256 ?? 'a'.repeat(64),
  };
}

const OPEN = '<retrieved_context>';
const CLOSE = '</retrieved_context>';
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

export function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

/** Tag-like mentions of a wrapper, tolerant of case, spaces, `_`/`-`, look-alikes folded by NFKC. */
export function tolerantTagCount(text: string, name: 'retrieved' | 'terminal'): number {
  const folded = text.normalize('NFKC').replace(INVISIBLE, '');
  const re =
    name === 'retrieved'
      ? /[<＜﹤‹〈〈⟨❮]\s*\/?\s*retrieved[\s_-]*context/gi
      : /[<＜﹤‹〈〈⟨❮]\s*\/?\s*terminal[\s_-]*selection/gi;
  return [...folded.matchAll(re)].length;
}

export interface ParsedBlock {
  preamble: string;
  excerpts: { marker: string; header: string; body: string }[];
}

/**
 * Parse a block line by line with the grammar of src/retrieve/block.ts. Throws when the text
 * does not follow it, e.g. when a document line managed to look like a header or a tag.
 */
export function parseBlock(block: string): ParsedBlock {
  const ls = block.split('\n');
  if (ls[0] !== OPEN) throw new Error(`block does not start with ${OPEN}`);
  if (ls[ls.length - 1] !== CLOSE) throw new Error(`block does not end with ${CLOSE}`);
  const preamble = ls[1] ?? '';
  if (ls[2] !== '') throw new Error('no blank line after preamble');
  const excerpts: ParsedBlock['excerpts'] = [];
  let i = 3;
  while (i < ls.length - 1) {
    const header = ls[i]!;
    const m = /^\[(R[1-9][0-9]*)\] /.exec(header);
    if (!m) throw new Error(`line ${i + 1}: expected a header, got ${JSON.stringify(header.slice(0, 80))}`);
    const marker = m[1]!;
    if (ls[i + 1] !== `<excerpt id="${marker}">`) throw new Error(`line ${i + 2}: expected excerpt open tag`);
    let j = i + 2;
    const body: string[] = [];
    while (j < ls.length - 1 && ls[j] !== '</excerpt>') {
      if (ls[j]!.includes('<')) throw new Error(`line ${j + 1}: '<' inside excerpt text`);
      body.push(ls[j]!);
      j++;
    }
    if (ls[j] !== '</excerpt>') throw new Error(`excerpt ${marker} not closed`);
    excerpts.push({ marker, header, body: body.join('\n') });
    i = j + 1;
    if (i < ls.length - 1) {
      if (ls[i] !== '') throw new Error(`line ${i + 1}: expected blank line between excerpts`);
      i++;
    }
  }
  return { preamble, excerpts };
}

export function specialTokensIn(text: string): string[] {
  const lower = text.toLowerCase();
  return SPECIAL_TOKENS.filter((t) => lower.includes(t.toLowerCase()));
}
