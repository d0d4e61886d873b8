// How long an answer may be (pure). The profile's `maxTokens` is sent as `max_tokens`; a server that
// ignores it is still stopped by a character cap on what we keep of the streamed answer.

import type { AiProfile } from '../types.js';

/** A profile's maxTokens below this leaves no room for an answer that cites anything. */
export const MIN_ANSWER_TOKENS = 16;
/** Default answer length: a quarter of the context, at most this. */
const DEFAULT_MAX_ANSWER_TOKENS = 4096;
/**
 * Characters kept per answer token before the stream is cut. cl100k and the llama vocabularies have
 * tokens of up to a few dozen characters (runs of spaces, rules of `=`), prose averages about 4.
 */
const CHARS_PER_ANSWER_TOKEN = 32;

/** max_tokens for a profile: its own, else min(contextWindow / 4, 4096). */
export function answerTokens(profile: Pick<AiProfile, 'contextWindow' | 'maxTokens'>): number {
  return (
    profile.maxTokens ??
    Math.max(MIN_ANSWER_TOKENS, Math.min(DEFAULT_MAX_ANSWER_TOKENS, Math.floor(profile.contextWindow / 4)))
  );
}

/** The most answer characters kept for `maxTokens` tokens; past it the request is aborted. */
export function answerCharCap(maxTokens: number): number {
  return maxTokens * CHARS_PER_ANSWER_TOKEN;
}
