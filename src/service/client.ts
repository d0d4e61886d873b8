import { connect, type Socket } from 'node:net';
import { createLineSplitter } from './line-splitter.js';
import {
  encodeFrame,
  MAX_RESPONSE_BYTES,
  parseFrame,
  type Request,
  type ServerInfo,
  type WireError,
} from './protocol.js';

// One request to the query service over its socket, never waiting longer than the answer timeout
// for a sign of life: the service must say "accepted" and then send a heartbeat or the answer at
// least every `answerTimeoutMs`. A stopped (SIGSTOP) or wedged service accepts the connection in
// the kernel but never answers, and is given up on after that timeout.

export type CallOutcome =
  | { kind: 'result'; result: unknown; server: ServerInfo | undefined }
  | { kind: 'error'; error: WireError; server: ServerInfo | undefined }
  | {
      kind: 'unavailable';
      /** absent: no socket file; stale: nobody listens on it; timeout: hung; closed/protocol: broken. */
      why: 'absent' | 'stale' | 'timeout' | 'closed' | 'protocol';
      detail: string;
      server: ServerInfo | undefined;
    };

/** Connects; resolves with the socket, or with the error code when nobody accepts. */
export function connectSocket(path: string, timeoutMs: number): Promise<Socket | string> {
  return new Promise((resolve) => {
    const sock = connect(path);
    const timer = setTimeout(() => {
      sock.destroy();
      resolve('ETIMEDOUT');
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.removeAllListeners('error');
      resolve(sock);
    });
    sock.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(err.code ?? 'ECONNREFUSED');
    });
  });
}

export async function callService(
  socketPath: string,
  request: Request,
  opts: { answerTimeoutMs: number; socket?: Socket },
): Promise<CallOutcome> {
  let sock: Socket;
  if (opts.socket) sock = opts.socket;
  else {
    const s = await connectSocket(socketPath, opts.answerTimeoutMs);
    if (typeof s === 'string') {
      if (s === 'ENOENT')
        return { kind: 'unavailable', why: 'absent', detail: 'no socket', server: undefined };
      if (s === 'ECONNREFUSED') {
        return {
          kind: 'unavailable',
          why: 'stale',
          detail: 'nobody listens on its socket',
          server: undefined,
        };
      }
      if (s === 'ETIMEDOUT') {
        return {
          kind: 'unavailable',
          why: 'timeout',
          detail: `did not accept a connection within ${opts.answerTimeoutMs} ms`,
          server: undefined,
        };
      }
      return { kind: 'unavailable', why: 'closed', detail: `cannot connect (${s})`, server: undefined };
    }
    sock = s;
  }

  return new Promise<CallOutcome>((resolve) => {
    let server: ServerInfo | undefined;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (o: CallOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(o);
    };
    const unavailable = (why: 'timeout' | 'closed' | 'protocol', detail: string) =>
      finish({ kind: 'unavailable', why, detail, server });
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          unavailable(
            'timeout',
            server
              ? `sent nothing for ${opts.answerTimeoutMs} ms`
              : `did not answer within ${opts.answerTimeoutMs} ms`,
          ),
        opts.answerTimeoutMs,
      );
    };
    const splitter = createLineSplitter(MAX_RESPONSE_BYTES);
    sock.on('data', (chunk: Buffer) => {
      for (const ev of splitter.push(chunk)) {
        if ('overflow' in ev) return unavailable('protocol', 'answer too large');
        if (ev.line === '') continue;
        const f = parseFrame(ev.line);
        if (!f.ok) return unavailable('protocol', f.reason);
        const frame = f.value;
        if (frame.id !== request.id) {
          if (frame.type === 'error') return finish({ kind: 'error', error: frame.error, server });
          return unavailable('protocol', 'answer to another request');
        }
        if (frame.type === 'accepted') {
          server = frame.server;
          arm();
        } else if (frame.type === 'working') arm();
        else if (frame.type === 'result') return finish({ kind: 'result', result: frame.result, server });
        else return finish({ kind: 'error', error: frame.error, server });
      }
    });
    sock.on('error', (err) => unavailable('closed', `connection failed (${err.message})`));
    sock.on('close', () => unavailable('closed', 'closed the connection without an answer'));
    arm();
    sock.write(encodeFrame(request));
  });
}
