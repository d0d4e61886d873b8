import type { Socket } from 'node:net';
import { ERROR_MESSAGES, type ErrorCode, KorttyError } from '../errors.js';
import { serviceDir, serviceSocketPath } from '../storage/paths.js';
import { buildStamp } from './build-stamp.js';
import { type CallOutcome, callService } from './client.js';
import { checkSearchResult, type Request, type SearchArgs, type SearchResultWire } from './protocol.js';
import { readServiceSettings } from './service-config-file.js';
import { ensureServiceDir, inspectServiceDir, inspectSocket } from './socket-guard.js';

// The client side of the warm path, for commands: use the running query service, start it when
// there is none, and otherwise say why not so the command works in-process. Never throws for a
// service problem; it throws only the error the work itself produced (an unknown store, a damaged
// snapshot...), exactly as the in-process search would. Loads nothing heavy: this module and its
// imports are all a `search` process needs when the service answers.

export interface WarmOptions {
  home: string;
  /** Progress and fallback reasons (shown with --verbose). */
  verbose?: (msg: string) => void;
  /** Problems the user must fix (a refused socket, a damaged config.json): always shown. */
  warn: (msg: string) => void;
}

export type Warm<T> = { ok: true; value: T; pid: number | undefined } | { ok: false; reason: string };

export function searchViaService(args: SearchArgs, opts: WarmOptions): Promise<Warm<SearchResultWire>> {
  return request({ op: 'search', args }, opts, checkSearchResult);
}

/** The running service's own status, without starting one. */
export function serviceStatus(opts: WarmOptions): Promise<Warm<unknown>> {
  return request({ op: 'status' }, { ...opts }, (r) => r, false);
}

export function stopService(opts: WarmOptions): Promise<Warm<unknown>> {
  return request({ op: 'stop' }, { ...opts }, (r) => r, false);
}

let seq = 0;

type Body = { op: 'search'; args: SearchArgs } | { op: 'status' } | { op: 'stop' };

async function request<T>(
  body: Body,
  opts: WarmOptions,
  check: (r: unknown) => T | string,
  start = true,
): Promise<Warm<T>> {
  const { home } = opts;
  let cfg: Awaited<ReturnType<typeof readServiceSettings>>;
  try {
    cfg = await readServiceSettings(home);
  } catch (err) {
    opts.warn(`${(err as Error).message}; not using the query service`);
    return { ok: false, reason: (err as Error).message };
  }
  if (!cfg.enabled) return { ok: false, reason: 'turned off (service.enabled is false in rag/config.json)' };

  const dir = serviceDir(home);
  const socketPath = serviceSocketPath(home);
  const refused = (e: Error): Warm<T> => {
    opts.warn(`not using the query service: ${e.message}`);
    return { ok: false, reason: e.message };
  };
  const d = await inspectServiceDir(dir);
  if (d.state === 'refused') return refused(d.error);
  const s = d.state === 'ok' ? await inspectSocket(socketPath) : ({ state: 'missing' } as const);
  if (s.state === 'refused') return refused(s.error);

  // Unique per connection is enough (node:crypto would cost a few ms of every command's start).
  const req = {
    v: 1,
    id: `${process.pid.toString(36)}-${(++seq).toString(36)}`,
    build: buildStamp(),
    ...body,
  } as Request;
  let out: CallOutcome | undefined;
  let started = false;
  if (s.state === 'ok') out = await callService(socketPath, req, cfg);

  const absent = !out || (out.kind === 'unavailable' && (out.why === 'absent' || out.why === 'stale'));
  if (absent) {
    if (!start) return { ok: false, reason: 'no query service is running' };
    const launched = await startService(home, dir, socketPath, cfg.startTimeoutMs, opts);
    if ('reason' in launched)
      return launched.refused ? refused(launched.refused) : { ok: false, reason: launched.reason };
    started = true;
    out = await callService(socketPath, req, { ...cfg, socket: launched.socket });
  }
  out = out!;

  const pid = out.server?.pid ?? (out.kind === 'unavailable' ? await lockOwnerPid(home) : undefined);
  const who = pid ? `the query service (pid ${pid})` : 'the query service';
  switch (out.kind) {
    case 'result': {
      const value = check(out.result);
      if (typeof value === 'string')
        return { ok: false, reason: `${who} sent an unusable answer (${value})` };
      opts.verbose?.(`${started ? 'started; ' : ''}answered by ${who}`);
      return { ok: true, value, pid: out.server?.pid };
    }
    case 'error':
      if (out.error.final && out.error.code in ERROR_MESSAGES) {
        // The work's own error: the in-process command would fail the same way.
        throw new KorttyError(out.error.code as ErrorCode, {}, undefined, out.error.message);
      }
      return { ok: false, reason: `${who}: ${out.error.message}` };
    case 'unavailable':
      if (out.why === 'timeout' && start) {
        // Hung, or busy for longer than the timeout. A replacement takes over only once the hung
        // one's lock has gone stale; otherwise it exits at once.
        void startService(home, dir, socketPath, 0, opts).catch(() => {});
      }
      return { ok: false, reason: `${who} ${out.detail}` };
  }
}

async function startService(
  home: string,
  dir: string,
  socketPath: string,
  startTimeoutMs: number,
  opts: WarmOptions,
): Promise<{ socket: Socket } | { reason: string; refused?: Error }> {
  try {
    await ensureServiceDir(dir);
  } catch (err) {
    return { reason: (err as Error).message, refused: err as Error };
  }
  const { launchService } = await import('./launch.js');
  const launch = launchService(home, socketPath, startTimeoutMs);
  if (startTimeoutMs === 0) {
    void launch.ready.then((r) => {
      if ('socket' in r) r.socket.destroy();
    });
    return { reason: 'started in the background' };
  }
  opts.verbose?.(`starting the query service (pid ${launch.pid})`);
  const ready = await launch.ready;
  if ('reason' in ready) return ready;
  // Whoever won the start race created this socket: check it like any other before use.
  const s = await inspectSocket(socketPath);
  if (s.state !== 'ok') {
    ready.socket.destroy();
    return s.state === 'refused'
      ? { reason: s.error.message, refused: s.error }
      : { reason: 'the socket vanished' };
  }
  return { socket: ready.socket };
}

/** Names a service that never said who it is (a hung one): the holder of its lock. */
async function lockOwnerPid(home: string): Promise<number | undefined> {
  const [{ readOwner }, { serviceLockPath }] = await Promise.all([
    import('../storage/lock.js'),
    import('../storage/paths.js'),
  ]);
  return (await readOwner(serviceLockPath(home)))?.pid;
}
