import { width as displayWidth } from '../util/display-width.js';
import {
  allOptions,
  type Command,
  type CommandGroup,
  type Definition,
  isGroup,
  type OptionSpec,
} from './command.js';

// Help text generated from the command definitions (pure).

const BIN = 'kortty-rag';

/** Terminal cells of help text, by the one width rule (src/util/display-width.ts). */
const cells = displayWidth;
const padTo = (s: string, width: number) => s + ' '.repeat(Math.max(0, width - cells(s)));

/** Help fits an 80-column terminal. */
const WIDTH = 80;

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && cells(line) + 1 + cells(word) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** `  label  text`, the text wrapped under itself; a label wider than the column gets its own line. */
function twoColumns(rows: readonly (readonly [string, string])[], maxLabel: number): string[] {
  const width = Math.min(maxLabel, Math.max(...rows.map(([l]) => cells(l))));
  const indent = ' '.repeat(2 + width + 2);
  return rows.flatMap(([label, text]) => {
    const body = wrapWords(text, Math.max(20, WIDTH - indent.length));
    const head =
      cells(label) > width ? [`  ${label}`, `${indent}${body[0]}`] : [`  ${padTo(label, width)}  ${body[0]}`];
    return [...head, ...body.slice(1).map((l) => indent + l)];
  });
}

function positionalsText(c: Command): string {
  return (c.positionals ?? [])
    .map((p) => {
      const name = p.variadic ? `${p.name}...` : p.name;
      return p.optional ? `[${name}]` : name;
    })
    .join(' ');
}

function optionLabel(name: string, o: OptionSpec): string {
  const long = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
  return o.short ? `-${o.short}, ${long}` : long;
}

/** `kortty-rag store create [options] NAME`, or the command's own synopsis. */
export function synopsis(c: Command): string {
  if (c.synopsis) return `${BIN} ${c.name} ${c.synopsis}`;
  const own = Object.keys(c.options).length > 0;
  return [BIN, c.name, own ? '[options]' : '', positionalsText(c)].filter(Boolean).join(' ');
}

/** The usage lines printed after a usage error. */
export function usageText(c: Command): string {
  return `usage: ${synopsis(c).replace(/\n/g, '\n       ')}\nRun "${BIN} ${c.name} --help" for every option.\n`;
}

function optionLines(c: Command): string[] {
  const rows = Object.entries(allOptions(c)).map(([name, o]) => {
    const extra = [
      o.choices ? o.choices.join('|') : '',
      o.range ? `${o.range.min}..${o.range.max}` : '',
      o.default !== undefined && o.type === 'string' ? `default ${String(o.default)}` : '',
      o.multiple ? 'repeatable' : '',
    ].filter(Boolean);
    return [optionLabel(name, o), extra.length ? `${o.help} (${extra.join('; ')})` : o.help] as const;
  });
  return twoColumns(rows, 24);
}

/** Prose reflowed to the terminal width: a newline is a space, a blank line a new paragraph. */
function paragraphs(text: string): string[] {
  return text
    .trim()
    .split(/\n\s*\n/)
    .flatMap((p, i) => [...(i > 0 ? [''] : []), ...wrapWords(p.replace(/\s*\n\s*/g, ' '), WIDTH)]);
}

const sentence = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}.`;

/** Full help of one command: usage, summary, options, notes. */
export function commandHelp(c: Command): string {
  return [
    `usage: ${synopsis(c).replace(/\n/g, '\n       ')}`,
    '',
    ...paragraphs(sentence(c.summary)),
    '',
    'options:',
    ...optionLines(c),
    ...(c.notes ? ['', ...paragraphs(c.notes)] : []),
    '',
  ].join('\n');
}

function listing(commands: readonly Command[]): string[] {
  const rows = commands.map(
    (c) => [[c.name, positionalsText(c)].filter(Boolean).join(' '), c.summary] as const,
  );
  return twoColumns(rows, 32);
}

/** Help of a command group (`kortty-rag store`): its subcommands. */
export function groupHelp(g: CommandGroup): string {
  return [
    `usage: ${BIN} ${g.name} COMMAND [options]`,
    '',
    sentence(g.summary),
    '',
    'commands:',
    ...listing(g.commands),
    ...(g.notes ? ['', ...paragraphs(g.notes)] : []),
    '',
    `Run "${BIN} ${g.name} COMMAND --help" for a command's options.`,
    '',
  ].join('\n');
}

export function groupUsage(g: CommandGroup): string {
  return `usage: ${BIN} ${g.name} ${g.commands.map((c) => c.name.slice(g.name.length + 1)).join('|')} [options]\nRun "${BIN} ${g.name} --help" for the list.\n`;
}

/** `kortty-rag --help`: one line per command; a group lists its subcommands. */
export function topHelp(defs: readonly Definition[]): string {
  const rows = defs.map((d) =>
    isGroup(d)
      ? ([
          `${d.name} COMMAND`,
          `${d.summary}: ${d.commands.map((c) => c.name.slice(d.name.length + 1)).join(', ')}`,
        ] as const)
      : ([[d.name, positionalsText(d)].filter(Boolean).join(' '), d.summary] as const),
  );
  const footer = `Run "${BIN} COMMAND --help" for its options. Every command except tui and mcp takes --json; --debug \
shows the stack trace of an unexpected error. Exit status: 0 done, 1 failed, 2 usage, 130 interrupted \
(some commands add their own). Data lives in $KORTTY_HOME/rag (default ~/.kortty/rag).`;
  return [
    `${BIN}: local knowledge stores for terminal AI actions`,
    '',
    `usage: ${BIN} [COMMAND] [options]`,
    `       ${BIN} [--keymap NAME|FILE] [--theme NAME|FILE]   (the manager)`,
    `       ${BIN} --version`,
    '',
    'commands:',
    ...twoColumns(rows, 18),
    '',
    ...wrapWords(footer, WIDTH),
    '',
  ].join('\n');
}
