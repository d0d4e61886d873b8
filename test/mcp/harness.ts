import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { addSources, createStore } from '../../src/store/engine.js';
import type { Role } from '../../src/types.js';
import { countingPorts, writeTree } from '../helpers/store-env.js';

// The real `kortty-rag mcp` process, driven by the SDK's own client over stdio (or by raw
// JSON-RPC lines where a test must send what the SDK client never would).

export const BIN = fileURLToPath(new URL('../../../bin/kortty-rag.js', import.meta.url));

export async function makeStore(
  home: string,
  name: string,
  files: Record<string, string>,
  opts: { roles?: Role[]; autonomous?: boolean } = {},
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), `kortty-mcp-${name.toLowerCase()}-`));
  await writeTree(root, files);
  await createStore(
    {
      name,
      modelId: 'kortty-lexical-starter',
      roles: opts.roles ?? ['text'],
      autonomous: opts.autonomous ?? false,
    },
    home,
  );
  await addSources(name, [{ kind: 'folder', path: root }], { ports: countingPorts(home) }, home);
  return root;
}

export interface Connected {
  client: Client;
  stderr(): string;
  /** Errors the client saw on the wire (a stray non-JSON line on stdout would show up here). */
  wireErrors: Error[];
  close(): Promise<void>;
}

export async function connect(home: string, args: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), KORTTY_HOME: home },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const client = new Client({ name: 'kortty-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (e) => wireErrors.push(e);
  await client.connect(transport);
  return { client, stderr: () => err, wireErrors, close: () => client.close() };
}

/** The CLI, synchronously, in the same KORTTY_HOME. */
export function cli(home: string, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, KORTTY_HOME: home },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RawServer {
  child: ChildProcessWithoutNullStreams;
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  send(line: string): void;
  /** The first stdout message satisfying `pred` (parsed), waiting up to `ms`. */
  waitFor(pred: (msg: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** `kortty-rag mcp` spoken to line by line. */
export function rawServer(home: string, nodeArgs: string[] = []): RawServer {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'mcp'], {
    env: { ...process.env, KORTTY_HOME: home },
  });
  const lines: string[] = [];
  let buf = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i = buf.indexOf('\n');
    while (i !== -1) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf('\n');
    }
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const server: RawServer = {
    child,
    lines,
    stderr: () => err,
    send: (line) => child.stdin.write(`${line}\n`),
    waitFor(pred, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const l of lines) {
            try {
              const m = JSON.parse(l) as Record<string, unknown>;
              if (pred(m)) {
                waiters.delete(check);
                clearTimeout(timer);
                resolve(m);
                return;
              }
            } catch {}
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message in ${ms} ms; stdout: ${lines.join('\n')}\nstderr: ${err}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    request(id, method, params) {
      server.send(
        JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      );
      return server.waitFor((m) => m.id === id);
    },
    async stop() {
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
  return server;
}

export async function initialize(s: RawServer): Promise<void> {
  await s.request(0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '0' },
  });
  s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}

export function textOf(res: unknown): string {
  const content = (res as { content?: { type: string; text?: string }[] }).content ?? [];
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}
