import { SHELLS, type Shell, shellSnippet } from '../../app/shell-init-file.js';
import { type CommandContext, defineCommand } from '../command.js';

// Prints the shell integration for the shell's rc file. It is static text, so the shell starts
// no node process per prompt; inside tmux it calls `tmux display` once per mark.
export const definition = defineCommand({
  name: 'shell-init',
  summary: 'shell integration (command marks) for bash, zsh or fish',
  positionals: [{ name: 'SHELL', choices: SHELLS }],
  options: {},
  noJson: true,
  notes: `Add one line to the shell's rc file:

  ~/.bashrc                   eval "$(kortty-rag shell-init bash)"
  ~/.zshrc                    eval "$(kortty-rag shell-init zsh)"
  ~/.config/fish/config.fish  kortty-rag shell-init fish | source

It marks each prompt, command line, output and exit code (OSC 133 A, B, C, D), and inside tmux
records where the last command's output lies, for "kortty-rag last".`,
  run: runShellInit,
});

async function runShellInit({ args, io }: CommandContext<Record<string, never>>): Promise<number> {
  io.stdout.write(await shellSnippet(args.SHELL as Shell));
  return 0;
}
