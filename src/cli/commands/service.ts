import { isKorttyError } from '../../errors.js';
import { korttyHome, serviceSocketPath } from '../../storage/paths.js';
import { SERVICE_RANGES } from '../../storage/service-block.js';
import { type CommandGroup, defineCommand, usageError } from '../command.js';
import type { CliIO } from '../io.js';

const run = defineCommand({
  name: 'service run',
  summary: 'run the query service in the foreground',
  options: {
    'idle-minutes': {
      type: 'string',
      value: 'N',
      help: 'exit after N minutes without a request (default 15, or "service": {"idleMinutes": N} in config.json)',
      range: SERVICE_RANGES.idleMinutes,
    },
  },
  async run({ values, io }) {
    return runService(korttyHome(io.env), values['idle-minutes'], io);
  },
});

const status = defineCommand({
  name: 'service status',
  summary: 'whether the query service runs, since when, and what it holds',
  options: {},
  async run({ io, json }) {
    const home = korttyHome(io.env);
    const warn = (m: string) => io.stderr.write(`kortty-rag service: ${m}\n`);
    const { serviceStatus } = await import('../../app/warm.js');
    const r = await serviceStatus({ home, warn });
    if (!r.ok) {
      if (json) io.stdout.write(`${JSON.stringify({ running: false, reason: r.reason })}\n`);
      else io.stdout.write(`no query service: ${r.reason}\n`);
      return 1;
    }
    const { service: s } = r.value as { service: Record<string, unknown> };
    if (json) io.stdout.write(`${JSON.stringify({ running: true, ...(r.value as object) })}\n`);
    else {
      io.stdout.write(
        `query service pid ${s.pid} (${s.host}) on ${serviceSocketPath(home)}\n` +
          `  since ${s.startedAt}, ${s.requests} request(s), store generation ${s.generation}, ` +
          `${s.warm ? 'models loaded' : 'models not loaded'}, idle limit ${s.idleMinutes} min\n`,
      );
    }
    return 0;
  },
});

const stop = defineCommand({
  name: 'service stop',
  summary: 'stop the query service',
  options: {},
  async run({ io, out }) {
    const home = korttyHome(io.env);
    const warn = (m: string) => io.stderr.write(`kortty-rag service: ${m}\n`);
    const { stopService } = await import('../../app/warm.js');
    const r = await stopService({ home, warn });
    out(r, r.ok ? `stopped the query service (pid ${r.pid})` : `no query service: ${r.reason}`);
    return r.ok ? 0 : 1;
  },
});

export const definition: CommandGroup = {
  name: 'service',
  summary: 'the warm query service',
  notes: `The query service keeps embedding models, the tokenizer and open snapshots in memory and
answers search and ask's retrieval over a Unix socket in $KORTTY_HOME/rag/service/ (owner-only).
search and ask start it on first use; it exits after --idle-minutes without a request.
\`kortty-rag watch --serve\` hosts it inside the watcher instead. One service per $KORTTY_HOME.`,
  commands: [run, status, stop],
};

async function runService(home: string, idleFlag: string | undefined, io: CliIO): Promise<number> {
  const { readServiceConfig } = await import('../../app/warm.js');
  let cfg: Awaited<ReturnType<typeof readServiceConfig>>;
  try {
    cfg = await readServiceConfig(home);
  } catch (err) {
    // A setting out of its range is refused like the option would be, never clamped.
    if (isKorttyError(err, 'FILE_INVALID')) throw usageError(err.message);
    throw err;
  }
  const idleMinutes = idleFlag !== undefined ? Number(idleFlag) : cfg.idleMinutes;
  const log = (m: string) => io.stdout.write(`${new Date().toISOString()} ${m}\n`);
  const { startQueryService } = await import('../../app/query-service.js');
  let svc: Awaited<ReturnType<typeof startQueryService>>;
  try {
    svc = await startQueryService({ home, host: 'standalone', idleMinutes, log });
  } catch (err) {
    // Losing the start race is normal when several commands start the service at once.
    if (isKorttyError(err, 'SERVICE_RUNNING')) {
      log(err.message);
      return 0;
    }
    throw err;
  }
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  const stopIt = () => void svc.stop();
  for (const s of signals) process.on(s, stopIt);
  await svc.stopped;
  for (const s of signals) process.off(s, stopIt);
  // Native model handles may keep the event loop alive after they are released.
  setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}
