import { parseArgs } from 'node:util';
import { createError, isKorttyError } from '../../errors.js';
import { korttyHome, serviceSocketPath } from '../../storage/paths.js';
import type { CliIO } from '../io.js';

const USAGE = `usage: kortty-rag service run [--idle-minutes N] | status [--json] | stop
The query service keeps embedding models, the tokenizer and open snapshots in memory and answers
search and ask's retrieval over a Unix socket in $KORTTY_HOME/rag/service/ (owner-only). search and
ask start it on first use; it exits after --idle-minutes without a request (default 15, or
"service": {"idleMinutes": N} in $KORTTY_HOME/rag/config.json). \`kortty-rag watch --serve\` hosts it
inside the watcher instead. One service per $KORTTY_HOME.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'idle-minutes': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [sub, ...rest] = positionals;
  if (values.help || !sub || rest.length > 0) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const home = korttyHome(io.env);
  const warn = (m: string) => io.stderr.write(`kortty-rag service: ${m}\n`);
  switch (sub) {
    case 'run':
      return runService(home, values['idle-minutes'], io);
    case 'status': {
      const { serviceStatus } = await import('../../service/warm-path.js');
      const r = await serviceStatus({ home, warn });
      if (!r.ok) {
        if (values.json) io.stdout.write(`${JSON.stringify({ running: false, reason: r.reason })}\n`);
        else io.stdout.write(`no query service: ${r.reason}\n`);
        return 1;
      }
      const { service: s } = r.value as { service: Record<string, unknown> };
      if (values.json) io.stdout.write(`${JSON.stringify({ running: true, ...(r.value as object) })}\n`);
      else {
        io.stdout.write(
          `query service pid ${s.pid} (${s.host}) on ${serviceSocketPath(home)}\n` +
            `  since ${s.startedAt}, ${s.requests} request(s), store generation ${s.generation}, ` +
            `${s.warm ? 'models loaded' : 'models not loaded'}, idle limit ${s.idleMinutes} min\n`,
        );
      }
      return 0;
    }
    case 'stop': {
      const { stopService } = await import('../../service/warm-path.js');
      const r = await stopService({ home, warn });
      io.stdout.write(
        r.ok ? `stopped the query service (pid ${r.pid})\n` : `no query service: ${r.reason}\n`,
      );
      return r.ok ? 0 : 1;
    }
    default:
      io.stderr.write(`kortty-rag service: unknown subcommand "${sub}"\n${USAGE}\n`);
      return 2;
  }
}

async function runService(home: string, idleFlag: string | undefined, io: CliIO): Promise<number> {
  const { readServiceConfig } = await import('../../service/service-config.js');
  const cfg = await readServiceConfig(home);
  let idleMinutes = cfg.idleMinutes;
  if (idleFlag !== undefined) {
    idleMinutes = Number(idleFlag);
    if (!Number.isFinite(idleMinutes) || idleMinutes <= 0) {
      throw createError('INVALID_ARGUMENT', {
        name: '--idle-minutes',
        reason: `"${idleFlag}" is not a number > 0`,
      });
    }
  }
  const log = (m: string) => io.stdout.write(`${new Date().toISOString()} ${m}\n`);
  const { startQueryService } = await import('../../service/host.js');
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
  const stop = () => void svc.stop();
  for (const s of signals) process.on(s, stop);
  await svc.stopped;
  for (const s of signals) process.off(s, stop);
  // Native model handles may keep the event loop alive after they are released.
  setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}
