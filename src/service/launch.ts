import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serviceDir, serviceLogPath } from '../storage/paths.js';
import { connectSocket } from './client.js';

// Starts `kortty-rag service run` detached (its own session: closing the terminal or the tmux
// popup that started it does not end it), with its output appended to rag/service/service.log,
// and waits until its socket accepts a connection. Several commands may do this at once: the
// services they start race for the service lock, the losers exit with status 0, and every command
// connects to the winner.

const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));

export interface Launch {
  pid: number | undefined;
  /** Resolves with a connected socket, or with why the service is not there in time. */
  ready: Promise<{ socket: Socket } | { reason: string }>;
}

export function launchService(home: string, socketPath: string, startTimeoutMs: number): Launch {
  let child = spawnService(home);
  const first = child.pid;
  const ready = (async () => {
    const deadline = Date.now() + startTimeoutMs;
    try {
      for (;;) {
        const s = await connectSocket(socketPath, Math.max(50, deadline - Date.now()));
        if (typeof s !== 'string') return { socket: s };
        if (child.failed !== null && child.failed !== 0) {
          const tail = await lastLine(serviceLogPath(home));
          return {
            reason: `the query service failed to start (exit ${child.failed})${tail ? `: ${tail}` : ''}`,
          };
        }
        if (Date.now() >= deadline) {
          return { reason: `the query service did not start within ${startTimeoutMs} ms` };
        }
        // It lost the start race, yet nobody listens: the winner died meanwhile, or the lock's
        // holder has exited but is not reaped yet. Try again.
        if (child.failed === 0 && Date.now() - child.exitedAt > 300) {
          child.proc.unref();
          child = spawnService(home);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      child.proc.removeAllListeners('exit');
      child.proc.unref();
    }
  })();
  return { pid: first, ready };
}

/** The log keeps the last lifetimes' lines; past this size it starts afresh. */
const MAX_LOG_BYTES = 1 << 20;

function spawnService(home: string) {
  const logPath = serviceLogPath(home);
  let size = 0;
  try {
    size = statSync(logPath).size;
  } catch {}
  const log = openSync(logPath, size > MAX_LOG_BYTES ? 'w' : 'a', 0o600);
  let proc: ReturnType<typeof spawn>;
  try {
    proc = spawn(process.execPath, [BIN, 'service', 'run'], {
      detached: true,
      stdio: ['ignore', log, log],
      // Not the caller's directory: a long-lived process must not keep a mount or a deleted dir busy.
      cwd: serviceDir(home),
      env: { ...process.env, KORTTY_HOME: home },
    });
  } finally {
    closeSync(log);
  }
  // null while running; 0 when it lost the start race (or stopped at once for a reason in its log).
  const out = { proc, pid: proc.pid, failed: null as number | null, exitedAt: 0 };
  proc.once('exit', (code) => {
    out.failed = code ?? 1;
    out.exitedAt = Date.now();
  });
  proc.once('error', () => {
    out.failed = 1;
  });
  return out;
}

async function lastLine(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').at(-1)?.slice(0, 300) ?? '';
}
