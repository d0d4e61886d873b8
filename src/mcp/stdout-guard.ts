import { Writable } from 'node:stream';

// In an MCP stdio server, stdout is the protocol channel: one stray line (a library's log, a
// console.log, a progress line) breaks the client's JSON-RPC parser. This takes stdout for the
// protocol and sends every other write to it (process.stdout.write, console.log, console.info,
// node-llama-cpp's logger, which writes through console) to stderr instead.

/** A stream only the protocol transport writes to; from now on everything else goes to stderr. */
export function takeStdoutForProtocol(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): Writable {
  const write = stdout.write.bind(stdout) as (chunk: unknown, cb: (err?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk, _encoding, cb) {
      write(chunk, (err) => cb(err ?? null));
    },
  });
  stdout.write = stderr.write.bind(stderr) as typeof stdout.write;
  return protocol;
}
