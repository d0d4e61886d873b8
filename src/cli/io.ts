// The CLI's view of the outside world, so commands can be tested without a real terminal.
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
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

/** A command module: `src/cli/commands/<name>.ts` exports `run`. Returns the exit code. */
export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;
