import { parseArgs } from 'node:util';
import { readStatus } from '../../status/status-file.js';
import { writeStatusLines } from '../../status/status-lines.js';
import { formatStatus } from '../../status/status-model.js';
import { korttyHome } from '../../storage/paths.js';
import type { CliIO } from '../io.js';

// Called by status bars every few seconds: reads status.json and live job files only. Status bars
// that can `cat` a file use the pre-rendered rag/status.tmux and rag/status.txt instead; this
// command keeps those in step (a job killed mid-way leaves its last progress line behind).
export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { format: { type: 'string', default: 'plain' } } });
  const format = values.format === 'tmux' || values.format === 'json' ? values.format : 'plain';
  const home = korttyHome(io.env);
  const info = await readStatus(home);
  io.stdout.write(`${formatStatus(info, format)}\n`);
  await writeStatusLines(info, home, { onlyIfChanged: true }).catch(() => {});
  return 0;
}
