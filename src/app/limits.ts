// Limits and path rules the faces check input against: file size units, the scanner's excluded and
// hidden names (the TUI's file browser), and chunk bounds (the create form).

export { chunkParamsProblem, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../chunk/params.js';
export { isExcludedDir, isHidden, MiB } from '../scan/rules.js';
