import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createTerminalSanitizer, escapeForJson } from '../util/terminal-text.js';

// The CLI's view of the outside world, so commands can be tested without a real terminal.
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * The unfiltered stderr, for the CLI's own control sequences (rewriting the progress line,
   * readline prompts); anything else goes through `stderr`. Set by terminalIO.
   */
  rawStderr?: NodeJS.WritableStream & { isTTY?: boolean };
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

type Out = CliIO['stdout'];

/**
 * The streams a command writes to: everything passes through the one terminal sanitizer (text:
 * controls made visible, statefully across writes; JSON: the same characters as \u escapes, so it
 * stays valid JSON). `flush` writes what the text sanitizer still holds (a final CR).
 */
export function terminalIO(io: CliIO, opts: { json: boolean }): CliIO & { flush(): void } {
  const stdout = opts.json ? jsonStream(io.stdout) : textStream(io.stdout);
  const stderr = textStream(io.stderr);
  return {
    ...io,
    stdout,
    stderr,
    rawStderr: io.rawStderr ?? io.stderr,
    flush() {
      stdout.flush();
      stderr.flush();
    },
  };
}

function wrap(target: Out, convert: (s: string) => string, end: () => string): Out & { flush(): void } {
  const decoder = new StringDecoder('utf8');
  // Writes pass straight through (the callback runs at once), so output order and the moment a
  // byte reaches the real stream are as if the command wrote to it directly.
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      const text = convert(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      if (text) target.write(text);
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number; flush(): void };
  Object.defineProperty(stream, 'isTTY', { get: () => target.isTTY });
  Object.defineProperty(stream, 'columns', { get: () => target.columns });
  stream.flush = () => {
    const text = convert(decoder.end()) + end();
    if (text) target.write(text);
  };
  return stream as unknown as Out & { flush(): void };
}

function textStream(target: Out) {
  const s = createTerminalSanitizer();
  return wrap(
    target,
    (t) => s.write(t),
    () => s.end(),
  );
}

function jsonStream(target: Out) {
  return wrap(target, escapeForJson, () => '');
}
