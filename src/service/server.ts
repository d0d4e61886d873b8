import { createServer, type Server, type Socket } from 'node:net';
import { isKorttyError } from '../errors.js';
import { createLineSplitter } from './line-splitter.js';
import {
  buildVerdict,
  encodeFrame,
  type Frame,
  HEARTBEAT_MS,
  MAX_REQUEST_BYTES,
  PROTOCOL_ERRORS,
  parseRequest,
  type Request,
  type WireError,
} from './protocol.js';
import type { QueryHandler } from './query-service.js';

// The socket side of the query service: framing, validation, heartbeats and defences. A peer that
// sends garbage gets an error frame and the connection stays usable; one that sends an over-long
// line gets an error without us buffering it; one that connects and stays silent, or stops reading
// its answers, is disconnected; too many connections or queued requests are refused. Nothing a
// peer sends can stop the service except the `stop` op.

export interface SocketServerOptions {
  socketPath: string;
  build: string;
  handler: QueryHandler;
  /** Called when a request starts or ends (idle tracking). */
  onActivity?: () => void;
  /** The `stop` op was answered. */
  onStop?: () => void;
  /** A newer client asked: this service is out of date and should retire. */
  onOutdated?: () => void;
  log?: (msg: string) => void;
  maxConnections?: number;
  /** A connection with no request in progress that sends nothing for this long is closed. */
  quietTimeoutMs?: number;
}

export interface SocketServer {
  listen(): Promise<void>;
  close(graceMs?: number): Promise<void>;
  /** Requests being worked on or queued. */
  readonly inflight: number;
}

const MAX_QUEUED_PER_CONNECTION = 16;
/** Unsent output beyond this means the peer is not reading: disconnect it. */
const MAX_UNSENT_BYTES = 8 << 20;
/** A peer that has not taken its answer after this long is disconnected. */
const DRAIN_DEADLINE_MS = 15_000;

export function createSocketServer(opts: SocketServerOptions): SocketServer {
  const log = opts.log ?? (() => {});
  const conns = new Set<Socket>();
  let inflight = 0;
  let closing = false;
  let drained: (() => void) | undefined;

  const server: Server = createServer({ allowHalfOpen: false }, (sock) => {
    if (closing) {
      sock.destroy();
      return;
    }
    conns.add(sock);
    sock.on('close', () => conns.delete(sock));
    sock.on('error', () => {}); // a peer that vanished (EPIPE, ECONNRESET) is not our failure
    serveConnection(sock);
  });
  server.maxConnections = opts.maxConnections ?? 64;

  function serveConnection(sock: Socket) {
    const splitter = createLineSplitter(MAX_REQUEST_BYTES);
    let chain: Promise<void> = Promise.resolve();
    let queued = 0;
    let drainTimer: NodeJS.Timeout | undefined;

    const send = (frame: Frame) => {
      if (sock.destroyed) return;
      const ok = sock.write(encodeFrame(frame));
      if (sock.writableLength > MAX_UNSENT_BYTES) {
        log('disconnected a client that does not read its answers');
        sock.destroy();
      } else if (!ok && !drainTimer) {
        drainTimer = setTimeout(() => {
          log('disconnected a client that did not take its answer');
          sock.destroy();
        }, DRAIN_DEADLINE_MS);
        sock.once('drain', () => {
          clearTimeout(drainTimer);
          drainTimer = undefined;
        });
      }
    };
    const fail = (id: string | null, code: string, message: string, final = false) =>
      send({ v: 1, id, type: 'error', error: { code, message, final } });

    sock.setTimeout(opts.quietTimeoutMs ?? 30_000, () => {
      if (queued === 0) sock.destroy();
    });
    sock.on('close', () => clearTimeout(drainTimer));
    sock.on('data', (chunk: Buffer) => {
      for (const ev of splitter.push(chunk)) {
        if ('overflow' in ev) {
          fail(null, PROTOCOL_ERRORS.TOO_LARGE, `request longer than ${MAX_REQUEST_BYTES} bytes`);
          continue;
        }
        if (ev.line.trim() === '') continue;
        const parsed = parseRequest(ev.line);
        if (!parsed.ok) {
          fail(parsed.id, parsed.code, parsed.reason);
          continue;
        }
        if (queued >= MAX_QUEUED_PER_CONNECTION) {
          fail(parsed.value.id, PROTOCOL_ERRORS.BUSY, 'too many requests queued on one connection');
          continue;
        }
        queued++;
        const req = parsed.value;
        chain = chain.then(() =>
          handle(req, send).finally(() => {
            queued--;
          }),
        );
      }
    });
  }

  async function handle(req: Request, send: (f: Frame) => void): Promise<void> {
    inflight++;
    opts.onActivity?.();
    send({ v: 1, id: req.id, type: 'accepted', server: { pid: process.pid, build: opts.build } });
    const beat = setInterval(() => send({ v: 1, id: req.id, type: 'working' }), HEARTBEAT_MS);
    try {
      const verdict = buildVerdict(req.build, opts.build);
      if (verdict !== 'same') {
        const older = verdict === 'service-older';
        send(
          errorFrame(req.id, {
            code: PROTOCOL_ERRORS.OUTDATED,
            message: older
              ? `the query service (pid ${process.pid}) runs an older build; it stops now`
              : `the query service (pid ${process.pid}) runs a newer build than this command`,
            final: false,
          }),
        );
        if (older) opts.onOutdated?.();
        return;
      }
      let result: unknown;
      if (req.op === 'search') result = await opts.handler.search(req.args);
      else if (req.op === 'status') result = await opts.handler.status();
      else result = { stopping: true };
      send({ v: 1, id: req.id, type: 'result', result });
      if (req.op === 'stop') opts.onStop?.();
    } catch (err) {
      // A KorttyError is the answer the command would get in-process (unknown store, damaged
      // snapshot, missing model...): the client raises it as is. Anything else is our failure, and
      // the client works in-process instead.
      if (isKorttyError(err) && err.code !== 'EMBEDDER_CLOSED') {
        send(errorFrame(req.id, { code: err.code, message: err.message, final: true }));
      } else {
        log(`request ${req.op} failed: ${(err as Error)?.stack ?? err}`);
        send(
          errorFrame(req.id, {
            code: PROTOCOL_ERRORS.INTERNAL,
            message: String((err as Error)?.message ?? err),
            final: false,
          }),
        );
      }
    } finally {
      clearInterval(beat);
      inflight--;
      opts.onActivity?.();
      if (inflight === 0) drained?.();
    }
  }

  return {
    get inflight() {
      return inflight;
    },
    listen() {
      return new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.socketPath, () => {
          server.off('error', reject);
          server.on('error', (err) => log(`server error: ${err.message}`));
          resolve();
        });
      });
    },
    async close(graceMs = 5_000) {
      closing = true;
      const closed = new Promise<void>((r) => server.close(() => r()));
      if (inflight > 0) {
        await Promise.race([
          new Promise<void>((r) => {
            drained = r;
          }),
          new Promise<void>((r) => setTimeout(r, graceMs).unref()),
        ]);
      }
      for (const c of conns) c.destroy();
      await closed;
    },
  };
}

function errorFrame(id: string, error: WireError): Frame {
  return { v: 1, id, type: 'error', error };
}
