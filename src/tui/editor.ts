import { basename } from 'node:path';

// How to open a file at a line in the user's $EDITOR. Pure: returns an argument vector that is
// spawned without a shell, so a path (or anything in it) can never become a command.

export interface EditorCommand {
  file: string;
  args: string[];
}

const COLON_STYLE = new Set([
  'code',
  'codium',
  'code-insiders',
  'subl',
  'sublime_text',
  'hx',
  'helix',
  'zed',
]);

/** Splits $EDITOR into words (simple quotes supported) without ever invoking a shell. */
export function splitCommand(cmd: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let has = false;
  for (const ch of cmd) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

export function editorCommand(env: NodeJS.ProcessEnv, path: string, line?: number): EditorCommand {
  const words = splitCommand(env.EDITOR || env.VISUAL || 'vi');
  const file = words[0] ?? 'vi';
  const args = words.slice(1);
  const name = basename(file);
  if (line && line > 0) {
    if (COLON_STYLE.has(name)) {
      if (name.startsWith('code') || name === 'codium') args.push('--goto');
      args.push(`${path}:${line}`);
    } else args.push(`+${line}`, path);
  } else args.push(path);
  return { file, args };
}
