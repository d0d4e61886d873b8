import { parseArgs } from 'node:util';
import { readStatus } from '../../status/status-file.js';
import { formatStatus } from '../../status/status-model.js';
import type { CliIO } from '../io.js';

// Called by status bars every few seconds: reads status.json and live job files only.
export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { format: { type: 'string', default: 'plain' } } });
  const format = values.format === 'tmux' || values.format === 'json' ? values.format : 'plain';
  io.stdout.write(`${formatStatus(await readStatus(), format)}\n`);
  return 0;
}
