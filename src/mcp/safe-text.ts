import { sanitizeTerminal } from '../util/terminal-text.js';

// Agent CLIs print tool results, errors and structured content in the user's terminal, so every
// string the server sends goes through the one terminal sanitizer: store names, paths, queries
// echoed in errors, parse errors quoting the line they could not read. Pure. Applied to whole
// outgoing JSON-RPC messages, so no answer (the SDK's own errors included) can skip it; already
// clean text comes back unchanged.

/** The value with every string in it (keys included) made terminal-safe; numbers and booleans kept. */
export function terminalSafe<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return sanitizeTerminal(v);
  if (Array.isArray(v)) return v.map(walk);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[sanitizeTerminal(k)] = walk(x);
    return out;
  }
  return v;
}
