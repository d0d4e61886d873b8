import { formatSourceRef } from '../../app/present.js';
import { recentRuns, runOrigin } from '../../app/runs.js';
import { listStores } from '../../store/store-config.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { wholeRange } from '../args.js';
import { type CommandContext, defineCommand } from '../command.js';

const options = {
  last: {
    type: 'string',
    value: 'N',
    help: 'how many recent runs',
    default: '10',
    range: wholeRange(1, 1_000_000, 'runs'),
  },
} as const;

// Recent AI actions with the excerpts they were given; a citation whose document changed since
// (or is no longer indexed) is flagged stale.
export const definition = defineCommand({
  name: 'runs',
  summary: 'recent AI actions, their excerpts and citations',
  options,
  run: runRuns,
});

async function runRuns({ values, io, json }: CommandContext<typeof options>): Promise<number> {
  const { runs: flagged, damaged } = await recentRuns({
    last: Number(values.last),
    stores: await listStores(),
  });
  if (json) {
    io.stdout.write(`${JSON.stringify({ runs: flagged, damaged }, null, 2)}\n`);
    return 0;
  }
  if (flagged.length === 0) io.stdout.write('no runs recorded yet\n');
  for (const r of flagged) {
    io.stdout.write(
      `${sanitizeLine(r.time)}  ${sanitizeLine(r.action)} · ${sanitizeLine(runOrigin(r))} · ${r.status}${r.reason ? ` (${sanitizeLine(r.reason.message)})` : ''}\n  query: ${sanitizeLine(r.query.slice(0, 100).replace(/\s+/g, ' '))}\n`,
    );
    if (r.selectionCut?.keptTokens !== undefined || r.selectionCut?.bytesCut)
      io.stdout.write(
        `  selection cut: ${r.selectionCut.bytesCut ? `first ${r.selectionCut.readBytes} bytes read; ` : ''}${r.selectionCut.keptBytes} bytes${r.selectionCut.keptTokens !== undefined ? ` (${r.selectionCut.keptTokens} tokens)` : ''} sent\n`,
      );
    for (const e of r.excerpts) {
      const mark = r.cited.includes(e.marker) ? 'cited' : '     ';
      io.stdout.write(
        `  [${sanitizeLine(e.marker)}] ${mark} ${sanitizeLine(formatSourceRef(e))}${e.stale ? (e.missing ? '  STALE (no longer indexed)' : '  STALE (source changed)') : ''}\n`,
      );
    }
  }
  for (const d of damaged) io.stderr.write(`damaged run record: ${JSON.stringify(d)}\n`);
  return 0;
}
