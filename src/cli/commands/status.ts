import { readStatus } from '../../app/status.js';
import { writeStatusLines } from '../../status/status-lines.js';
import { formatStatus } from '../../status/status-model.js';
import { configWarnings } from '../../storage/config-json.js';
import { korttyHome } from '../../storage/paths.js';
import { exposedDataDirs } from '../../storage/private-files.js';
import { sanitizeLine } from '../../util/terminal-text.js';
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

// Called by status bars every few seconds: reads status.json and live job files only. Status bars
// that can `cat` a file use the pre-rendered rag/status.tmux and rag/status.txt instead; this
// command keeps those in step (a job killed mid-way leaves its last progress line behind).
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
  const home = korttyHome(io.env);
  const info = await readStatus(home);
  io.stdout.write(`${formatStatus(info, format)}\n`);
  // stderr: a status bar shows stdout only, and --json output keeps its shape.
  for (const w of await configWarnings(home)) io.stderr.write(`kortty-rag status: ${sanitizeLine(w)}\n`);
  // Snapshots hold the full text of indexed documents: a data directory others can read is said.
  for (const d of await exposedDataDirs(home))
    io.stderr.write(
      `kortty-rag status: warning: ${sanitizeLine(d.path)} has mode ${d.mode}: other users can read your indexed documents (chmod 700 ${sanitizeLine(d.path)}; kortty-rag store list tightens it)\n`,
    );
  // A store a search had to leave out is named with its state and fix (the line says "error N").
  for (const e of info.errors.filter((x) => /^(DAMAGED|UNREACHABLE): /.test(x.reason)))
    io.stderr.write(`kortty-rag status: store "${sanitizeLine(e.store)}" ${sanitizeLine(e.reason)}\n`);
  await writeStatusLines(info, home, { onlyIfChanged: true }).catch(() => {});
  return 0;
}
