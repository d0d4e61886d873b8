import { ask, parseActionKind } from '../../app/ask.js';
import type { PreparedCommand } from '../../app/ask-last.js';
import { formatSourceRef } from '../../app/present.js';
import { type ReadSelection, readSelectionFile, readSelectionStream } from '../../app/selection.js';
import { createError } from '../../errors.js';
import { korttyHome } from '../../storage/paths.js';
import { sanitizeLine } from '../../util/terminal-text.js';
import { type CommandContext, defineCommand, usageError } from '../command.js';
import { createInterrupt } from '../interrupt.js';

const options = {
  action: {
    type: 'string',
    value: 'ACTION',
    help: 'ask, explain, fix, summarize, translate, command, …',
    default: 'ask',
    check: (v: string) => {
      try {
        parseActionKind(v);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  },
  profile: {
    type: 'string',
    value: 'NAME',
    help: "AI profile (default: the one assigned to the action's role)",
  },
  stdin: {
    type: 'boolean',
    help: 'read the terminal selection from stdin (with --last: the command as JSON {command, output, exitCode?})',
  },
  last: { type: 'boolean', help: 'ask about the last command of a tmux pane and its output' },
  pane: { type: 'string', value: 'TARGET', help: 'with --last: the tmux pane (default: the current one)' },
  file: { type: 'string', value: 'FILE', help: 'read the terminal selection from FILE' },
  verbose: { type: 'boolean', help: 'say whether the query service or this process retrieved' },
  'no-service': { type: 'boolean', help: 'retrieve in this process, not through the query service' },
} as const;

export const definition = defineCommand({
  name: 'ask',
  summary: 'AI action with retrieval; streams the answer',
  positionals: [{ name: 'PROMPT', variadic: true, optional: true }],
  options,
  notes: `The selection comes from stdin (--stdin) or a file (--file), never from the command line, so
terminal text never passes through a shell. At most its first 512 KiB are read, then it is cut to
the tokens the model's context leaves it (after the answer, the retrieved block and the rest of
the prompt); a cut is said on stderr and kept in the run record. --last asks about the last command
instead (its line, exit code and bounded output, from the shell integration's marks): the preset's
request is "explain this output" after exit code 0 and "why did this fail and how do I fix it"
otherwise, and secrets in it (Authorization headers, tokens in URLs, *_TOKEN= and *_PASSWORD= lines,
key shapes, private keys) are replaced by [redacted] before anything is sent. Progress ("Retrieving from N stores…", then each
excerpt's marker and path) goes to stderr at once; the answer streams to stdout (control characters
shown, never acted on), then the cited sources. Retrieval goes through the query service when it
runs.

Exit status: 0 done, 1 failed, 2 usage, 3 answer rejected by the citation check (raw answer shown),
130 cancelled.`,
  run: runAsk,
});

async function runAsk({ values, positionals, io, json }: CommandContext<typeof options>): Promise<number> {
  const action = parseActionKind(values.action!);
  // Their loading overlaps reading stdin and the checks below.
  const lastModules = values.last ? loadLastModules() : undefined;
  lastModules?.catch(() => {});
  const home = korttyHome(io.env);
  if (values.pane !== undefined && !values.last) throw usageError('--pane goes with --last');
  if (values.last && values.file)
    throw usageError('--last reads the command from tmux or --stdin, not --file');
  // Read with a byte cap before anything else; the action then cuts it to the model's context.
  let read: ReadSelection | undefined;
  let pendingLast: Promise<PreparedCommand & { preview: string[] }> | undefined;
  if (values.last) {
    // Captured while ask loads the profile and the stores; the popup shows it once it is read.
    pendingLast = captureLast(lastModules!, {
      home,
      env: io.env,
      ...(values.pane !== undefined ? { pane: values.pane } : {}),
      ...(values.stdin ? { stdinText: (await readSelectionStream(io.stdin)).text } : {}),
    });
    pendingLast
      .then((p) => {
        if (!json) for (const line of p.preview) io.stderr.write(`${line}\n`);
      })
      .catch(() => {});
  } else if (values.file) {
    read = await readSelectionFile(values.file);
  } else if (values.stdin) {
    read = await readSelectionStream(io.stdin);
  }
  const selection = read?.text;
  const prompt = positionals.join(' ') || undefined;
  if (!prompt && !selection?.trim() && !pendingLast)
    throw usageError('nothing to ask: give a PROMPT, --stdin, --file or --last');
  const say = (m: string) => io.stderr.write(`kortty-rag ask: ${m}\n`);
  const verbose = values.verbose ? say : undefined;
  // Progress goes to stderr (the popup shows it; a pipe on stdout gets only the answer); --json
  // keeps both streams free of it.
  const progress = json ? undefined : (m: string) => io.stderr.write(`${m}\n`);
  const interrupt = createInterrupt();
  try {
    const res = await ask({
      home,
      useService: !values['no-service'],
      verbose,
      warn: say,
      action,
      prompt,
      selection,
      ...(read?.cut ? { selectionCut: read.cut } : {}),
      ...(pendingLast
        ? { lastCommand: pendingLast.then((p) => ({ ...p.capture, redactions: p.redactions })) }
        : {}),
      profile: values.profile,
      signal: interrupt.signal,
      onPlan: ({ stores, before }) => {
        const n = `${stores.length} store${stores.length === 1 ? '' : 's'}`;
        if (stores.length === 0)
          progress?.('No knowledge store for this action; answering without retrieval.');
        else if (before) progress?.(`Retrieving from ${n}…`);
        else progress?.(`The model may search ${n} while it answers.`);
      },
      onExcerpts: (excerpts) => {
        if (excerpts.length === 0) progress?.('  no matching excerpts');
        for (const e of excerpts)
          progress?.(`  [${e.marker}] ${sanitizeLine(formatSourceRef(e))} (${sanitizeLine(e.storeName)})`);
        progress?.('');
      },
      onToken: json ? undefined : (t) => io.stdout.write(t),
      onWarning: (m) => say(sanitizeLine(m)),
    });
    const last = pendingLast ? await pendingLast : undefined;
    if (interrupt.signal.aborted) {
      io.stderr.write('\ncancelled\n');
      return 130;
    }
    if (json) {
      io.stdout.write(
        `${JSON.stringify(
          {
            ...res,
            excerpts: res.excerpts.map(({ text: _t, ...e }) => e),
            ...(last
              ? {
                  lastCommand: {
                    command: last.capture.command,
                    exitCode: last.capture.exitCode,
                    truncated: last.capture.truncated,
                    marks: last.capture.marks,
                  },
                  redactions: last.redactions,
                }
              : {}),
          },
          null,
          2,
        )}\n`,
      );
    } else {
      io.stdout.write('\n');
      const cited = res.excerpts.filter((e) => res.cited.includes(e.marker));
      if (cited.length > 0) {
        io.stdout.write('\nSources:\n');
        for (const e of cited) io.stdout.write(`  [${e.marker}] ${sanitizeLine(formatSourceRef(e))}\n`);
      } else if (res.excerpts.length > 0 && !res.error) {
        io.stdout.write(`\n(${res.excerpts.length} excerpt(s) were provided; the answer cites none)\n`);
      }
    }
    if (res.error) {
      io.stderr.write(
        `kortty-rag ask: ${res.status === 'rejected' ? 'answer rejected: ' : ''}${res.error.message}\n`,
      );
      return res.status === 'rejected' ? 3 : 1;
    }
    return 0;
  } finally {
    interrupt.dispose();
  }
}

/** Loaded only for --last: the selection path stays as lean as it was. */
function loadLastModules() {
  return Promise.all([import('../../app/last-command.js'), import('../../app/ask-last.js')]);
}

/** The last command read (tmux, or the plugin's JSON), redacted, with the popup's preview lines. */
async function captureLast(
  modules: ReturnType<typeof loadLastModules>,
  opts: Parameters<typeof import('../../app/last-command.js').readLastCommand>[0],
): Promise<PreparedCommand & { preview: string[] }> {
  const [{ readLastCommand }, { prepareLastCommand, lastCommandPreview }] = await modules;
  const p = prepareLastCommand(await readLastCommand(opts));
  if (p.capture.command.trim() === '' && p.capture.output.trim() === '')
    throw createError('LAST_COMMAND_UNAVAILABLE', { reason: p.capture.note ?? 'no command found' });
  return { ...p, preview: lastCommandPreview(p) };
}
