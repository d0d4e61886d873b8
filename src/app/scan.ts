// Scanning for the faces: the review of what a source would index, before anything is indexed.

export { reviewToLines } from '../scan/review-text.js';
export { detectSourceKind, scanSources } from '../scan/scan-source.js';
