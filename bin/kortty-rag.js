#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`kortty-rag: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
