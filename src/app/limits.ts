// Limits and path rules the faces check input against: file size units, the scanner's excluded and
// hidden names (the TUI's file browser), default source options, and chunk bounds.

export { MIN_ANSWER_TOKENS } from '../ai/answer-bounds.js';
export { MAX_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW } from '../ai/profiles.js';
export {
  chunkParamsProblem,
  DEFAULT_CHUNK_PARAMS,
  MAX_CHUNK_TOKENS,
  MIN_CHUNK_TOKENS,
} from '../chunk/params.js';
export { DEFAULT_SOURCE_OPTIONS, isExcludedDir, isHidden, MiB } from '../scan/rules.js';
