import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/cli/io.js';

// A CliIO whose stdout and stderr collect the exact bytes a command writes.

export function captureIO(
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string; tty?: boolean } = {},
) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sink = (parts: Buffer[]) => {
    const s = new PassThrough();
    s.on('data', (c: Buffer) => parts.push(c));
    return Object.assign(s, { isTTY: opts.tty ?? false });
  };
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  const io: CliIO = {
    stdout: sink(out),
    stderr: sink(err),
    stdin,
    env: opts.env ?? process.env,
    cwd: opts.cwd ?? process.cwd(),
  };
  return {
    io,
    stdoutBytes: () => Buffer.concat(out),
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
  };
}

/** A stack trace line as Node prints one. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>)$/m;
