import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

// The shell integration snippets are shell code kept as files (shell/kortty-rag.bash, .zsh, .fish)
// so they can be read, linted and sourced as they are; `kortty-rag shell-init SHELL` prints one.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const SNIPPET_DIR = new URL('../../../shell/', import.meta.url);

export const snippetPath = (shell: Shell) => fileURLToPath(new URL(`kortty-rag.${shell}`, SNIPPET_DIR));

export async function shellSnippet(shell: Shell): Promise<string> {
  return readFile(snippetPath(shell), 'utf8');
}
