// Pure formatters and limits the faces show (units, formats, locations, source references).

export { formatSourceRef } from '../ai/citations.js';
export { chunkParamsProblem, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../chunk/params.js';
export { formatLocation } from '../retrieve/block.js';
export { formatGroup } from '../scan/formats.js';
export { isExcludedDir, isHidden, MiB } from '../scan/rules.js';
export { isProblem } from '../scan/skip-kinds.js';
export { formatBytes } from '../scan/units.js';
