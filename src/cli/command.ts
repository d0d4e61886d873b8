import { parseArgs } from 'node:util';
import { createError, isKorttyError } from '../errors.js';
import { type NumberRange, rangeProblem } from '../util/ranges.js';
import type { CliIO } from './io.js';

// The command-definition layer: each command is a record (name, summary, positionals, options,
// handler) parsed by node:util parseArgs. Help, usage errors and the option checks that run
// before a handler are derived from these records, so every command answers --help and reports a
// bad argument the same way.

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** The value's name in help (`--store NAME`); absent for booleans. */
  value?: string;
  help: string;
  /** The accepted values, checked before the handler runs. */
  choices?: readonly string[];
  /**
   * A number option's range, checked before the handler runs. Every duration or count has one:
   * a value outside it is a usage error naming the option and the range, never clamped.
   */
  range?: NumberRange;
  /** Why a value is not accepted (checked before the handler runs), or undefined when it is. */
  check?: (value: string) => string | undefined;
}

export type OptionSpecs = Record<string, OptionSpec>;

export interface PositionalSpec {
  name: string;
  optional?: boolean;
  /** Takes every remaining argument (at least one unless optional). */
  variadic?: boolean;
  choices?: readonly string[];
}

/** Options every command takes. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', help: 'print the result as JSON' },
  debug: { type: 'boolean', help: 'show the stack trace of an unexpected error' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionSpecs;

type ValueOf<S extends OptionSpec> = S['type'] extends 'string'
  ? S['multiple'] extends true
    ? string[]
    : string
  : S['multiple'] extends true
    ? boolean[]
    : boolean;

/** What parseArgs returns for these options: a value with a default is always there. */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { default: string | boolean } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

type ParsedFor<O extends OptionSpecs> = { values: OptionValues<O & typeof COMMON_OPTIONS> };

export interface CommandContext<O extends OptionSpecs> {
  values: ParsedFor<O>['values'];
  positionals: string[];
  /** Positionals by their spec names; a variadic one is the first of its values. */
  args: Record<string, string | undefined>;
  io: CliIO;
  /** JSON on --json (or the command's own JSON switch), the text otherwise; a newline is added. */
  out(obj: unknown, text: string): void;
  json: boolean;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  /** `scan`, or a subcommand with its group: `store create`. */
  name: string;
  summary: string;
  positionals?: readonly PositionalSpec[];
  options: O;
  /** A synopsis written by hand (after `kortty-rag NAME `) when the generated one would mislead. */
  synopsis?: string;
  /** Further paragraphs of the help text. */
  notes?: string;
  /** No --json: the command has no result to print (the TUI). */
  noJson?: boolean;
  /** Whether stdout carries JSON; default: --json. */
  jsonOutput?: (values: ParsedFor<O>['values']) => boolean;
  run(ctx: CommandContext<O>): Promise<number>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  notes?: string;
  commands: readonly Command[];
}

export type Definition = Command | CommandGroup;

export const isGroup = (d: Definition): d is CommandGroup => 'commands' in d;

/** Typed construction: the handler sees values typed after its own options. */
export function defineCommand<const O extends OptionSpecs>(c: Command<O>): Command {
  return c as unknown as Command;
}

/** A usage error: one line saying what was wrong; the caller adds the usage and exits 2. */
export function usageError(reason: string): Error {
  return createError('USAGE', { reason });
}

export const isUsageError = (err: unknown) => isKorttyError(err, 'USAGE');

export function allOptions(c: Command): OptionSpecs {
  const common: OptionSpecs = { ...COMMON_OPTIONS };
  if (c.noJson) delete common.json;
  return { ...c.options, ...common };
}

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  args: Record<string, string | undefined>;
}

/** Parses and checks argv against a command; throws a usage error naming what was wrong. */
export function parseCommand(c: Command, argv: string[]): Parsed {
  const options = allOptions(c);
  let parsed: { values: Parsed['values']; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(options).map(([k, o]) => [
          k,
          {
            type: o.type,
            ...(o.short ? { short: o.short } : {}),
            ...(o.multiple ? { multiple: true } : {}),
            ...(o.default !== undefined ? { default: o.default } : {}),
          },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (err) {
    throw usageError(parseErrorReason(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return { values, positionals, args: {} };
  for (const [name, o] of Object.entries(options)) {
    const v = values[name];
    if (typeof v !== 'string' && !Array.isArray(v)) continue;
    for (const one of (Array.isArray(v) ? v : [v]) as string[]) {
      if (o.choices && !o.choices.includes(one)) {
        throw usageError(`--${name} ${quote(one)} is not one of ${o.choices.join(', ')}`);
      }
      const why = (o.range && rangeProblem(one, o.range)) || o.check?.(one);
      if (why) throw usageError(`--${name} ${quote(one)}: ${why}`);
    }
  }
  return { values, positionals, args: bindPositionals(c.positionals ?? [], positionals) };
}

function bindPositionals(
  specs: readonly PositionalSpec[],
  given: string[],
): Record<string, string | undefined> {
  const args: Record<string, string | undefined> = {};
  let i = 0;
  for (const p of specs) {
    const v = given[i];
    if (v === undefined) {
      if (!p.optional) throw usageError(`missing ${p.name}`);
      continue;
    }
    const taken = p.variadic ? given.slice(i) : [v];
    for (const one of taken) {
      if (p.choices && !p.choices.includes(one)) {
        throw usageError(`${p.name} ${quote(one)} is not one of ${p.choices.join(', ')}`);
      }
    }
    args[p.name] = v;
    i += taken.length;
  }
  if (i < given.length) throw usageError(`unexpected argument ${quote(given[i]!)}`);
  return args;
}

// parseArgs' messages are long and suggest `--` tricks; name the option and the problem instead.
function parseErrorReason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  const raw = /'([^']*)'/.exec(message)?.[1] ?? '';
  // "-y, --yes" or "--store <value>": name the long form when there is one.
  const name = /--[^\s,]+/.exec(raw)?.[0] ?? raw.split(/[\s,]/)[0] ?? raw;
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${name}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(message)
        ? `option ${name} takes no value`
        : `option ${name} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quote(raw)}`;
    default:
      return message;
  }
}

const quote = (s: string) => JSON.stringify(s);
