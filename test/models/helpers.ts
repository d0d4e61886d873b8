import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '../../src/cli/io.js';

// Test fixtures for the model tests: a GGUF-shaped file (valid v3 header with a few metadata keys,
// random bytes after it; real model loading is tested elsewhere) and a loopback HTTP server that
// serves it the way Hugging Face does: Content-Length, Accept-Ranges, 206 answers to Range requests.

export async function tempHome(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `kortty-models-${label}-`));
}

type KvValue = { u32: number } | { str: string };

/** A GGUF v3 header with the given metadata and no tensors, padded with random bytes to `size`. */
export function ggufBytes(size: number, kv: Record<string, KvValue> = defaultKv()): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  parts.push(Buffer.from('GGUF'), u32(3), u64(0), u64(Object.keys(kv).length));
  for (const [key, value] of Object.entries(kv)) {
    parts.push(str(key));
    if ('u32' in value) parts.push(u32(4), u32(value.u32));
    else parts.push(u32(8), str(value.str));
  }
  const header = Buffer.concat(parts);
  if (header.length > size) throw new Error('size too small for the header');
  return Buffer.concat([header, randomBytes(size - header.length)]);
}

function defaultKv(): Record<string, KvValue> {
  return {
    'general.architecture': { str: 'bert' },
    'general.name': { str: 'kortty-test-model' },
    'bert.embedding_length': { u32: 64 },
  };
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface ServedRequest {
  method: string;
  range?: string;
  /** Body bytes the server handed to the socket for this request. */
  sent: number;
}

export interface TestServer {
  url: string;
  requests: ServedRequest[];
  bytesSent(): number;
  /** Lets a server held by `holdAfterBytes` send the rest. */
  release(): void;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Answer every request with this status and no body. */
  status?: number;
  /** Bytes per write. */
  sliceBytes?: number;
  /**
   * Once this many body bytes have been sent in all, hold every stream until `release()`: the
   * download stays in flight until the test is done with it, however fast the machine is.
   */
  holdAfterBytes?: number;
}

export async function serveFile(body: Buffer, path: string, opts: ServeOptions = {}): Promise<TestServer> {
  const requests: ServedRequest[] = [];
  const bytesSent = () => requests.reduce((n, r) => n + r.sent, 0);
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let isReleased = false;

  void released.then(() => {
    isReleased = true;
  });
  const server: Server = createServer((req, res) => {
    const rec: ServedRequest = { method: req.method ?? '?', range: req.headers.range, sent: 0 };
    requests.push(rec);
    if (opts.status) {
      res.writeHead(opts.status, { 'content-length': 0 });
      res.end();
      return;
    }
    if (req.url?.split('?')[0] !== path) {
      res.writeHead(404, { 'content-length': 0 });
      res.end();
      return;
    }
    let start = 0;
    let end = body.length - 1;
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (m) {
      start = Number(m[1]);
      end = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
      if (start > end) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` });
        res.end();
        return;
      }
      res.writeHead(206, {
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${body.length}`,
        'accept-ranges': 'bytes',
      });
    } else {
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const slice = opts.sliceBytes ?? 1 << 20;
    let pos = start;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const step = () => {
      if (closed) return;
      if (pos > end) {
        res.end();
        return;
      }
      const n = Math.min(slice, end - pos + 1);
      const chunk = body.subarray(pos, pos + n);
      pos += n;
      res.write(chunk, (err) => {
        if (err) return;
        rec.sent += n;
        const hold = opts.holdAfterBytes !== undefined && !isReleased && bytesSent() >= opts.holdAfterBytes;
        if (hold) void released.then(step);
        else setImmediate(step);
      });
    };
    step();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    bytesSent,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A CliIO that records what a command prints. */
export function captureIO(env: NodeJS.ProcessEnv, tty = false) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    ({
      write(chunk: string | Uint8Array) {
        append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
        return true;
      },
      isTTY: tty,
    }) as unknown as NodeJS.WritableStream & { isTTY?: boolean };
  const io: CliIO = {
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
    stdin: process.stdin,
    env,
    cwd: process.cwd(),
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}
