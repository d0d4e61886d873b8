import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createError, isKorttyError } from '../../errors.js';
import { korttyHome, ragDir, watchLogPath } from '../../storage/paths.js';
import type { WatchEvent, WatchService } from '../../watch/watch-service.js';
import type { CliIO } from '../io.js';

const USAGE = `usage: kortty-rag watch [--reconcile-seconds N] [--debounce-ms N] [--poll-ms N] [--if-not-running] [--serve] [--log] [--json]
Keeps every enabled source in automatic mode in sync: file events trigger incremental updates
(no review step), and a full rescan every --reconcile-seconds (default 300) is the truth.
One watcher per $KORTTY_HOME; --if-not-running exits quietly when one is already running.
--log appends to $KORTTY_HOME/rag/watch.log instead of stdout. SIGTERM or Ctrl-C stops cleanly.
--serve also hosts the query service (warm search for search, ask and status) while the watcher
runs, whenever no standalone one does; when idle it unloads its models instead of exiting.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'reconcile-seconds': { type: 'string' },
      'debounce-ms': { type: 'string' },
      'poll-ms': { type: 'string' },
      'if-not-running': { type: 'boolean' },
      serve: { type: 'boolean' },
      log: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length > 0) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const num = (name: string, v: string | undefined, min: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) {
      throw createError('INVALID_ARGUMENT', {
        name: `--${name}`,
        reason: `"${v}" is not a whole number >= ${min}`,
      });
    }
    return n;
  };
  const reconcileS = num('reconcile-seconds', values['reconcile-seconds'], 1);
  const quietMs = num('debounce-ms', values['debounce-ms'], 0);
  const pollMs = num('poll-ms', values['poll-ms'], 50);
  const home = korttyHome(io.env);

  let out: NodeJS.WritableStream = io.stdout;
  if (values.log) {
    await mkdir(ragDir(home), { recursive: true });
    out = createWriteStream(watchLogPath(home), { flags: 'a', mode: 0o600 });
  }
  const log = (e: WatchEvent) =>
    out.write(
      values.json
        ? `${JSON.stringify({ at: new Date().toISOString(), ...e })}\n`
        : `${new Date().toISOString()} ${describe(e)}\n`,
    );

  // Signals are handled from here on: one that arrives while the service is still starting (loading
  // the engine, reading stores) stops it as soon as it is up, so the lock is always released.
  let svc: WatchService | undefined;
  let hosting: { stop(): Promise<void> } | undefined;
  let keeper: { stop(): void } | undefined;
  let stopRequested = false;
  const stop = () => {
    stopRequested = true;
    void svc?.stop();
  };
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, stop);
  try {
    const { startWatchService } = await import('../../watch/watch-service.js');
    svc = await startWatchService({
      home,
      log,
      ...(reconcileS !== undefined ? { reconcileMs: reconcileS * 1000 } : {}),
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(quietMs !== undefined ? { schedule: { quietMs } } : {}),
    });
    if (stopRequested) void svc.stop();
    // The status line follows job files even when a job dies without clearing its progress.
    const { startStatusLineKeeper } = await import('../../status/status-file.js');
    keeper = startStatusLineKeeper(home);
    if (values.serve && !stopRequested) {
      const [{ hostQueryService }, { readServiceConfig }] = await Promise.all([
        import('../../service/host.js'),
        import('../../service/service-config.js'),
      ]);
      const { idleMinutes } = await readServiceConfig(home);
      hosting = hostQueryService({
        home,
        host: 'watcher',
        idleMinutes,
        log: (m) =>
          out.write(
            values.json
              ? `${JSON.stringify({ at: new Date().toISOString(), type: 'service', message: m })}\n`
              : `${new Date().toISOString()} ${m}\n`,
          ),
      });
    }
    await svc.stopped;
  } catch (err) {
    if (values['if-not-running'] && isKorttyError(err, 'WATCHER_RUNNING')) {
      io.stdout.write(`kortty-rag watch: ${err.message}\n`);
      return 0;
    }
    throw err;
  } finally {
    keeper?.stop();
    await hosting?.stop();
    for (const s of signals) process.off(s, stop);
  }
  if (out !== io.stdout) await new Promise<void>((r) => (out as import('node:fs').WriteStream).end(r));
  return 0;
}

function describe(e: WatchEvent): string {
  switch (e.type) {
    case 'start':
      return `watcher started (pid ${e.pid}): ${e.sources} automatic source(s)`;
    case 'stop':
      return 'watcher stopped';
    case 'reconcile':
      return `periodic rescan of ${e.sources} source(s)`;
    case 'sync-start':
      return `sync ${e.store}: ${e.sources.join(', ')}`;
    case 'sync-done': {
      const s = e.summary;
      const odd = Object.entries(e.statuses).filter(([, st]) => st !== 'READY');
      return `synced ${e.store}: ${s.indexed} indexed, ${s.removed} removed, ${s.unchanged} unchanged${odd.length ? `; ${odd.map(([id, st]) => `${id} ${st}`).join(', ')}` : ''}`;
    }
    case 'sync-busy':
    case 'sync-failed':
    case 'sync-cancelled':
      return `${e.type.replace('sync-', 'sync ')} ${e.store}: ${e.reason}`;
    case 'limited':
      return `limited monitoring ${e.store} ${e.path}: ${e.reason}`;
    case 'limited-cleared':
      return `monitoring restored ${e.store} ${e.path}`;
    default:
      return `${e.type} ${e.store} ${e.path}`;
  }
}
