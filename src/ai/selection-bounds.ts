// How much of a terminal selection reaches the model (pure over a Tokenizer). The selection is the
// one unbounded input of an AI action: it is cut first to SELECTION_MAX_BYTES when read (the faces
// do that, before anything else touches it), then here to the tokens left for it in the target
// model's context once the rest of the prompt has its room:
//
//   context window  =  answer (max_tokens)  +  retrieved block (≤ 25% of the context, ≤ 4,000)
//                    +  contract, skills, preset and the user's prompt (counted)  +  margin
//                    +  the selection's slot
//
// Retrieval, the prompt and the run record all see the cut text, never the whole selection.

import { mapTokens } from '../chunk/token-map.js';
import type { Tokenizer } from '../chunk/tokenizer.js';

/**
 * Bytes of a selection read at most (then cut). About 128 K tokens, the largest common context
 * window, and the query service's request limit; a scrollback selection rarely comes near it.
 */
export const SELECTION_MAX_BYTES = 512 * 1024;
/** Tokens kept for wrappers, message framing and the contract's selection sentences. */
export const PROMPT_MARGIN_TOKENS = 128;
/** A slot never shrinks below this: a selection too big for a tiny context still says something. */
const MIN_SELECTION_TOKENS = 64;
/** Characters looked at per token of the slot before tokenizing (cl100k tokens rarely pass 16). */
const CHARS_PER_TOKEN_SCAN = 16;

export interface SelectionSlot {
  contextWindow: number;
  answerTokens: number;
  /** Tokens reserved for the retrieved block (0 when the action retrieves nothing). */
  blockTokens: number;
  /** Tokens of everything else in the prompt: contract, skills, preset, the user's prompt. */
  promptTokens: number;
}

/** Tokens left for the selection. */
export function selectionSlot(s: SelectionSlot): number {
  const left = s.contextWindow - s.answerTokens - s.blockTokens - s.promptTokens - PROMPT_MARGIN_TOKENS;
  return Math.max(MIN_SELECTION_TOKENS, left);
}

/** What was cut from a selection, for the message, the result and the run record. */
export interface SelectionCut {
  /** The selection was longer than the byte cap: `readBytes` were read, of `bytesTotal` when known. */
  bytesCut: boolean;
  readBytes: number;
  bytesTotal?: number;
  /** Bytes of the selection the model gets. */
  keptBytes: number;
  /** Tokens kept, and how many there were before the token cut (a lower bound when `tokensAtLeast`). */
  keptTokens?: number;
  tokensTotal?: number;
  tokensAtLeast?: boolean;
  /** The slot the selection had. */
  slotTokens?: number;
}

/**
 * The selection cut to its first `slot` tokens, at a character boundary. Only the first
 * slot × CHARS_PER_TOKEN_SCAN characters are tokenized, so the cost follows the slot, not the input.
 */
export function fitToTokens(
  text: string,
  slot: number,
  tok: Tokenizer,
): { text: string; cut: boolean; tokens: number; tokensBefore: number; atLeast: boolean } {
  const scan = slot * CHARS_PER_TOKEN_SCAN;
  const head = text.length > scan ? text.slice(0, scan) : text;
  const map = mapTokens(head, tok);
  const atLeast = head.length < text.length;
  if (map.n <= slot && !atLeast) return { text, cut: false, tokens: map.n, tokensBefore: map.n, atLeast };
  let k = Math.min(slot, map.n);
  // A token may end inside a multi-byte character: step back to a boundary.
  while (k > 0 && ((map.bytes[map.off[k] as number] ?? 0) & 0xc0) === 0x80) k--;
  return {
    text: map.bytes.subarray(0, map.off[k]).toString('utf8'),
    cut: true,
    tokens: k,
    tokensBefore: map.n,
    atLeast,
  };
}

/** The one-line notice of a cut, for stderr, the popup and the TUI. */
export function describeCut(c: SelectionCut): string {
  const parts: string[] = [];
  if (c.bytesCut)
    parts.push(
      `read only its first ${c.readBytes} bytes${c.bytesTotal !== undefined ? ` of ${c.bytesTotal}` : ''} (the ${SELECTION_MAX_BYTES}-byte cap)`,
    );
  if (c.keptTokens !== undefined)
    parts.push(
      `kept its first ${c.keptTokens} tokens of ${c.tokensAtLeast ? 'more than ' : ''}${c.tokensTotal} to fit the ${c.slotTokens}-token room the model's context leaves it`,
    );
  return `the selection was cut: ${parts.join('; ')}`;
}
