import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ColourDepth } from './colour.js';
import { colourDepth, parseTerminfo, type TerminfoCaps, terminfoDirs } from './terminfo.js';

// Reads $TERM's entry from the terminfo database, where ncurses would find it.

/** The compiled entry for `term`, read from the terminfo database, or undefined. */
export function readTerminfo(term: string, env: NodeJS.ProcessEnv): TerminfoCaps | undefined {
  if (!term || term.includes('/') || term.startsWith('.')) return undefined;
  for (const dir of terminfoDirs(env, homedir())) {
    // Linux uses the first letter, macOS its hex code.
    for (const sub of [term[0]!, term.charCodeAt(0).toString(16)]) {
      let buf: Buffer;
      try {
        buf = readFileSync(join(dir, sub, term));
      } catch {
        continue;
      }
      const caps = parseTerminfo(buf);
      if (caps) return caps;
    }
  }
  return undefined;
}

/** Reads the terminfo database for $TERM and decides (the one I/O step of colour detection). */
export function detectColourDepth(env: NodeJS.ProcessEnv): ColourDepth {
  return colourDepth(env, readTerminfo(env.TERM ?? '', env));
}
