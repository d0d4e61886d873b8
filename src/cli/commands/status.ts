import { readStatus } from '../../status/status-file.js';
import { formatStatus } from '../../status/status-model.js';
import { type CommandContext, defineCommand } from '../command.js';

const options = {
  format: {
    type: 'string',
    value: 'FORMAT',
    help: 'plain text, a tmux status-line snippet, or JSON',
    choices: ['plain', 'tmux', 'json'],
    default: 'plain',
  },
} as const;

// Called by status bars every few seconds: reads status.json and live job files only.
export const definition = defineCommand({
  name: 'status',
  summary: 'one line for a status bar',
  options,
  notes: `--json is the same as --format json. In tmux:

  set -g status-right "#(kortty-rag status --format tmux)"`,
  jsonOutput: (values) => values.json === true || values.format === 'json',
  run: runStatus,
});

async function runStatus({ values, io, json }: CommandContext<typeof options>): Promise<number> {
  const format = json ? 'json' : (values.format as 'plain' | 'tmux');
  io.stdout.write(`${formatStatus(await readStatus(), format)}\n`);
  return 0;
}
