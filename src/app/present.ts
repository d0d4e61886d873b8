// Pure formatters the faces show (units, formats, locations, source references, skip kinds).
// Light on purpose: `search` and `ask` load it on their warm path. Limits and rules: limits.ts.

export { formatSourceRef } from '../ai/citations.js';
export { formatLocation } from '../retrieve/block.js';
export { type ShapedQuery, shapeQuery } from '../retrieve/query-shape.js';
export { formatGroup } from '../scan/formats.js';
export { isProblem } from '../scan/skip-kinds.js';
export { formatBytes } from '../scan/units.js';
