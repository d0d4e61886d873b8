import { chmod, lstat, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createError, isKorttyError } from '../errors.js';
import type { AnswerQuery } from '../retrieve/answer.js';
import { startStatusLineKeeper } from '../status/status-file.js';
import { acquireLock, readOwner, type StoreLock } from '../storage/lock.js';
import { serviceDir, serviceLockPath, serviceSocketPath } from '../storage/paths.js';
import { SERVICE_RANGES } from '../storage/service-block.js';
import { scanStores } from '../store/store-config.js';
import type { StoreConfig } from '../store/store-types.js';
import { pidAlive } from '../util/pid-alive.js';
import { rangeProblem } from '../util/ranges.js';
import { buildStamp } from './build-stamp.js';
import { createQueryHandler, type Deps, type ServiceInfo } from './query-service.js';
import { createSocketServer } from './server.js';
import { ensureServiceDir, inspectSocket } from './socket-guard.js';

// Runs the query service in this process: standalone (`kortty-rag service run`, started on demand
// by search/ask, exits when idle) or hosted by the watcher (stays, unloads models when idle).
//
// Exactly one per $KORTTY_HOME: the service holds rag/service/lock for its whole life (the same
// lock as store jobs: a directory renamed into place, heartbeat, dead-owner takeover). Only the
// holder touches the socket path, so two services starting at once can never both listen: the
// loser gets SERVICE_RUNNING and exits. A socket file left by a killed service is removed by the
// next holder. A service that finds its socket or its lock taken over (it was stopped longer than
// the lock's stale time) stops without touching the new holder's socket.

export interface HostOptions {
  home: string;
  host: ServiceInfo['host'];
  idleMinutes: number;
  log?: (msg: string) => void;
  /** The wired search dependencies (the app layer passes createSearchDeps). */
  depsFactory: (home: string) => Deps;
  /** The one query-to-block function (the app layer passes answerQuery). */
  answer: AnswerQuery<StoreConfig>;
}

export interface RunningService {
  readonly pid: number;
  readonly socketPath: string;
  stop(): Promise<void>;
  /** Resolves once stopped; `reason` says why. */
  readonly stopped: Promise<{ reason: string }>;
}

const SELF_CHECK_MS = 5_000;
const TEMP_SOCKET = /^\.q-(\d+)$/;
/** Short (a socket path has 107 bytes) and per process. */
const tempSocketPath = (home: string) => join(serviceDir(home), `.q-${process.pid}`);

/** Removes temp sockets of services that died between binding and renaming. */
async function sweepTempSockets(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = TEMP_SOCKET.exec(name);
    if (m && (Number(m[1]) === process.pid || !pidAlive(Number(m[1]))))
      await unlink(join(dir, name)).catch(() => {});
  }
}

export async function startQueryService(opts: HostOptions): Promise<RunningService> {
  const log = opts.log ?? (() => {});
  const { home } = opts;
  // Refused, never clamped: an idle timer past Node's limit would fire at once.
  const idleWhy = rangeProblem(String(opts.idleMinutes), SERVICE_RANGES.idleMinutes);
  if (idleWhy)
    throw createError('INVALID_ARGUMENT', {
      name: 'idleMinutes',
      reason: `${idleWhy}, got ${opts.idleMinutes}`,
    });
  const socketPath = serviceSocketPath(home);
  await ensureServiceDir(serviceDir(home));

  let lock: StoreLock;
  try {
    lock = await acquireLock(serviceLockPath(home), 'query service', { job: 'service' });
  } catch (err) {
    if (!isKorttyError(err, 'STORE_BUSY')) throw err;
    const owner = await readOwner(serviceLockPath(home));
    throw createError('SERVICE_RUNNING', { home, pid: owner?.pid });
  }

  let socketIno: bigint | undefined;
  const timers: NodeJS.Timeout[] = [];
  let keeper: { stop(): void } | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped!: (v: { reason: string }) => void;
  const stopped = new Promise<{ reason: string }>((r) => {
    resolveStopped = r;
  });

  const handler = createQueryHandler({
    home,
    build: buildStamp(),
    host: opts.host,
    idleMinutes: opts.idleMinutes,
    depsFactory: opts.depsFactory,
    answer: opts.answer,
  });
  const idleMs = opts.idleMinutes * 60_000;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idleTimer);
    if (server.inflight > 0) return;
    idleTimer = setTimeout(() => {
      if (opts.host === 'standalone') void stop(`idle for ${opts.idleMinutes} min`);
      else {
        log(`idle for ${opts.idleMinutes} min: models and snapshots unloaded`);
        void handler.unload();
      }
    }, idleMs);
  };

  const listenPath = tempSocketPath(home);
  const server = createSocketServer({
    socketPath: listenPath,
    build: buildStamp(),
    handler,
    log,
    onActivity: armIdle,
    onStop: () => void stop('asked to stop'),
    onOutdated: () => void stop('a newer build asked; retiring'),
  });

  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      clearTimeout(idleTimer);
      for (const t of timers) clearInterval(t);
      keeper?.stop();
      await server.close().catch(() => {});
      await removeOwnSocket();
      await handler.close().catch(() => {});
      await lock.release().catch(() => {});
      log(`query service stopped (${reason})`);
      resolveStopped({ reason });
    })();
    return stopping;
  };

  const removeOwnSocket = async () => {
    if (socketIno === undefined) return;
    const st = await lstat(socketPath, { bigint: true }).catch(() => undefined);
    // Never remove a socket that is not the one we created (another service took over).
    if (st && st.ino === socketIno) await unlink(socketPath).catch(() => {});
  };

  try {
    const existing = await inspectSocket(socketPath);
    if (existing.state === 'refused') {
      const st = await lstat(socketPath).catch(() => undefined);
      // A stale socket of ours with a wrong mode is replaced; anything else is reported.
      if (!st?.isSocket()) throw existing.error;
    }
    await sweepTempSockets(serviceDir(home));
    // Bound under a private name, made 0600, then renamed over the live name (replacing a socket
    // left by a service that is gone: we hold the lock): a client never sees it with another mode.
    await server.listen();
    await chmod(listenPath, 0o600);
    await rename(listenPath, socketPath);
    socketIno = (await lstat(socketPath, { bigint: true })).ino;
  } catch (err) {
    await server.close().catch(() => {});
    await lock.release().catch(() => {});
    throw err;
  }

  timers.push(
    setInterval(async () => {
      const st = await lstat(socketPath, { bigint: true }).catch(() => undefined);
      const held = await lock.assertHeld().then(
        () => true,
        () => false,
      );
      if (!held || st?.ino !== socketIno) void stop('replaced by another service');
    }, SELF_CHECK_MS),
  );
  for (const t of timers) t.unref();
  keeper = startStatusLineKeeper(scanStores, home);
  armIdle();
  log(`query service listening on ${socketPath} (pid ${process.pid}, ${opts.host})`);
  return { pid: process.pid, socketPath, stop: () => stop('stopped'), stopped };
}

/**
 * For the watcher: host the service whenever no other one runs. While a standalone service holds
 * the lock, retry every `retryMs`; once hosting, keep it (idle only unloads models).
 */
export function hostQueryService(opts: HostOptions & { retryMs?: number }): { stop(): Promise<void> } {
  const log = opts.log ?? (() => {});
  let current: RunningService | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let reported = false;
  const attempt = async () => {
    if (stopped) return;
    try {
      current = await startQueryService(opts);
      reported = false;
      if (stopped) return void (await current.stop());
      const { reason } = await current.stopped;
      current = undefined;
      if (!stopped) log(`query service ended (${reason}); will host it again when free`);
    } catch (err) {
      if (!reported) log(`not hosting the query service: ${(err as Error).message}`);
      reported = true;
    }
    if (!stopped) {
      timer = setTimeout(attempt, opts.retryMs ?? 10_000);
      timer.unref();
    }
  };
  void attempt();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current?.stop();
    },
  };
}
