import { type LastCommand, MAX_STDIN_BYTES, readLastCommand } from '../../app/last-command.js';
import { LAST_BYTES_RANGE, LAST_LINES_RANGE } from '../../storage/config-json.js';
import { wholeRange } from '../args.js';
import { type CommandContext, defineCommand, usageError } from '../command.js';

const options = {
  pane: { type: 'string', value: 'TARGET', help: 'the tmux pane (default: this one, $TMUX_PANE)' },
  stdin: {
    type: 'boolean',
    help: 'read {"command", "output", "exitCode"} as JSON from stdin (the WezTerm plugin)',
  },
  lines: {
    type: 'string',
    value: 'N',
    help: 'keep the last N lines of output (default 200)',
    range: wholeRange(LAST_LINES_RANGE.min, LAST_LINES_RANGE.max, 'lines'),
  },
  bytes: {
    type: 'string',
    value: 'N',
    help: 'keep at most N bytes of output (default 16384)',
    range: wholeRange(LAST_BYTES_RANGE.min, LAST_BYTES_RANGE.max, 'bytes'),
  },
} as const;

// The last complete command of a tmux pane, found by the marks the shell integration records
// (`kortty-rag shell-init`), or by the prompt pattern without them. Everything printed passes the
// terminal sanitizer (the CLI's output streams), so captured escape sequences show as text.
export const definition = defineCommand({
  name: 'last',
  summary: 'the last command of a tmux pane, its exit code and output',
  options,
  notes: `With the shell integration installed (see "kortty-rag shell-init"), the command line, its exit
code and exactly its output rows; without it, the text since the previous prompt line (the
"last": {"promptPattern": …} block of config.json). The output is cut to its last lines and bytes,
and a note says what was cut or could not be found (rows that scrolled out of tmux's history,
a cleared screen, a resized pane).

--json prints {command, exitCode, output, truncated, marks, note?}.`,
  run: runLast,
});

async function runLast({ values, io, out }: CommandContext<typeof options>): Promise<number> {
  if (values.stdin && values.pane) throw usageError('--stdin and --pane exclude each other');
  const last = await readLastCommand({
    ...(values.pane ? { pane: values.pane } : {}),
    ...(values.stdin ? { stdinText: await readBounded(io.stdin, MAX_STDIN_BYTES + 1) } : {}),
    ...(values.lines ? { maxLines: Number(values.lines) } : {}),
    ...(values.bytes ? { maxBytes: Number(values.bytes) } : {}),
    env: io.env,
  });
  out(last, formatLast(last));
  return 0;
}

function formatLast(l: LastCommand): string {
  const status = l.exitCode === null ? 'exit code unknown' : `exit ${l.exitCode}`;
  const head = `$ ${l.command || '(command line not recorded)'}    [${status}]`;
  return [head, ...(l.output ? [l.output] : []), ...(l.note ? [`(${l.note})`] : [])].join('\n');
}

async function readBounded(stream: NodeJS.ReadableStream, max: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    parts.push(b);
    size += b.length;
    if (size >= max) break;
  }
  return Buffer.concat(parts).subarray(0, max).toString('utf8');
}
