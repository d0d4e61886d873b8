import { openAppendLog } from '../../app/files.js';
import type { WatchEvent, Watcher } from '../../app/watcher.js';
import { isKorttyError } from '../../errors.js';
import { korttyHome, watchLogPath } from '../../storage/paths.js';
import { MAX_TIMER_MS, timerMax } from '../../util/ranges.js';
import { wholeRange } from '../args.js';
import { type CommandContext, defineCommand } from '../command.js';
import { terminalIO } from '../io.js';

const options = {
  'reconcile-seconds': {
    type: 'string',
    value: 'N',
    help: 'full rescan every N seconds, the truth behind file events (default 300)',
    range: wholeRange(1, timerMax(1000), 'seconds'),
  },
  'debounce-ms': {
    type: 'string',
    value: 'N',
    help: 'quiet time before a sync starts',
    range: wholeRange(0, MAX_TIMER_MS, 'ms'),
  },
  'poll-ms': {
    type: 'string',
    value: 'N',
    help: 'polling interval where events are unreliable',
    range: wholeRange(50, MAX_TIMER_MS, 'ms'),
  },
  'if-not-running': { type: 'boolean', help: 'exit quietly when a watcher is already running' },
  serve: {
    type: 'boolean',
    help: 'also host the query service while the watcher runs (when no standalone one does)',
  },
  log: { type: 'boolean', help: 'append to $KORTTY_HOME/rag/watch.log instead of stdout' },
} as const;

export const definition = defineCommand({
  name: 'watch',
  summary: 'keep automatic sources in sync',
  options,
  notes: `Keeps every enabled source in automatic mode in sync: file events trigger incremental updates
(no review step), and the periodic rescan is the truth. One watcher per $KORTTY_HOME.
SIGTERM or Ctrl-C stops cleanly. --json prints one JSON event per line. --serve also hosts the
query service (warm search for search, ask and status) while the watcher runs, whenever no
standalone one does; when idle it unloads its models instead of exiting.`,
  run: runWatch,
});

async function runWatch({ values, io, json }: CommandContext<typeof options>): Promise<number> {
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const reconcileS = num(values['reconcile-seconds']);
  const quietMs = num(values['debounce-ms']);
  const pollMs = num(values['poll-ms']);
  const home = korttyHome(io.env);

  let out: NodeJS.WritableStream = io.stdout;
  let file: Awaited<ReturnType<typeof openAppendLog>> | undefined;
  if (values.log) {
    file = await openAppendLog(watchLogPath(home));
    // The log is read on a terminal (tail -f): it gets the same sanitizer as stdout.
    out = terminalIO({ ...io, stdout: file.stream }, { json }).stdout;
  }
  const log = (e: WatchEvent) =>
    out.write(
      json
        ? `${JSON.stringify({ at: new Date().toISOString(), ...e })}\n`
        : `${new Date().toISOString()} ${describe(e)}\n`,
    );

  // Signals are handled from here on: one that arrives while the service is still starting (loading
  // the engine, reading stores) stops it as soon as it is up, so the lock is always released.
  let watcher: Watcher | undefined;
  let hosting: { stop(): Promise<void> } | undefined;
  let stopRequested = false;
  const stop = () => {
    stopRequested = true;
    void watcher?.service.stop();
  };
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, stop);
  try {
    const { startWatcher, hostServiceInWatcher } = await import('../../app/watcher.js');
    watcher = await startWatcher({
      home,
      log,
      ...(reconcileS !== undefined ? { reconcileMs: reconcileS * 1000 } : {}),
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(quietMs !== undefined ? { schedule: { quietMs } } : {}),
    });
    if (stopRequested) void watcher.service.stop();
    if (values.serve && !stopRequested) {
      hosting = await hostServiceInWatcher(home, (m) =>
        out.write(
          json
            ? `${JSON.stringify({ at: new Date().toISOString(), type: 'service', message: m })}\n`
            : `${new Date().toISOString()} ${m}\n`,
        ),
      );
    }
    await watcher.service.stopped;
  } catch (err) {
    if (values['if-not-running'] && isKorttyError(err, 'WATCHER_RUNNING')) {
      io.stdout.write(`kortty-rag watch: ${err.message}\n`);
      return 0;
    }
    throw err;
  } finally {
    watcher?.close();
    await hosting?.stop();
    for (const s of signals) process.off(s, stop);
  }
  if (file) await file.close();
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
    case 'refused':
      return `not watched ${e.store} ${e.path}: ${e.reason}`;
    case 'limited-cleared':
      return `monitoring restored ${e.store} ${e.path}`;
    default:
      return `${e.type} ${e.store} ${e.path}`;
  }
}
