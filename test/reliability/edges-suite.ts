import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { MAX_REQUEST_BYTES } from '../../src/service/protocol.js';
import { serviceSocketPath } from '../../src/storage/paths.js';
import { homeWithStarter, prose } from '../helpers/store-env.js';
import { deadline, waitFor } from '../helpers/wait.js';
import { BIN, connect, makeStore } from '../mcp/harness.js';
import { check, createRow, rng, type SuiteRow, sleep } from './common.js';

// The edges a peer can reach: the query service's socket (malformed, huge and slow frames, many
// clients at once, a client that never reads its answers) and the MCP server (hostile arguments
// to every tool). The real `kortty-rag service run` and `kortty-rag mcp` processes over a real
// store. After every trial the service must still answer a good search with the reference block,
// and nothing the MCP server sends may hold a control byte but newline and tab.

export interface EdgesSuiteOptions {
  /** Malformed and huge frames, slow requests, MCP calls: trials each. */
  trials: number;
  /** Clients at once in the many-clients row. */
  clients: number;
  seed?: number;
  log?: (line: string) => void;
}

const QUERY = 'kiwi orchard irrigation';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

type Frame = { id?: string | null; type?: string; result?: { block?: string }; error?: { code: string } };

/** A raw connection to the service: lines out, parsed frames in. */
function rawClient(path: string) {
  const sock: Socket = createConnection(path);
  sock.on('error', () => {});
  const frames: Frame[] = [];
  let buf = '';
  let closed = false;
  sock.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i = buf.indexOf('\n');
    while (i !== -1) {
      frames.push(JSON.parse(buf.slice(0, i)) as Frame);
      buf = buf.slice(i + 1);
      i = buf.indexOf('\n');
    }
  });
  sock.on('close', () => {
    closed = true;
  });
  const final = (f: Frame) => f.type === 'result' || f.type === 'error';
  return {
    sock,
    frames,
    isClosed: () => closed,
    connected: () => new Promise<void>((r, j) => sock.once('connect', r).once('error', j)),
    write: (s: string | Buffer) => new Promise<void>((r) => sock.write(s, () => r())),
    /** The final frame (result or error) for `id`, or for any id when null; undefined when closed first. */
    answer: (id: string | null, ms = 60_000) =>
      waitFor(
        () => frames.find((f) => final(f) && (id === null || f.id === id)) ?? (closed ? null : undefined),
        `an answer to ${id}`,
        ms,
        5,
      ),
    close: () => sock.destroy(),
  };
}

const searchLine = (id: string, args: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, id, op: 'search', args: { query: QUERY, ...args } })}\n`;

/** Random garbage a confused or hostile peer might send as one line (never a valid request). */
function malformed(r: () => number): string {
  const pick = Math.floor(r() * 9);
  const junk = () =>
    Array.from({ length: 1 + Math.floor(r() * 200) }, () => String.fromCharCode(1 + Math.floor(r() * 0x24f)))
      .join('')
      .replace(/\n/g, ' ');
  switch (pick) {
    case 0:
      return junk();
    case 1:
      return `{"v":1,"id":"x","op":"search","args":${junk()}`;
    case 2:
      return JSON.stringify({ v: 2, id: 'v2', op: 'search', args: { query: QUERY } });
    case 3:
      return JSON.stringify({ v: 1, id: junk(), op: 'search', args: { query: QUERY } });
    case 4:
      return JSON.stringify({ v: 1, id: 'op', op: junk() });
    case 5:
      return JSON.stringify({
        v: 1,
        id: 'a',
        op: 'search',
        args: { query: QUERY, stores: 'Notes', extra: 1 },
      });
    case 6:
      return JSON.stringify({ v: 1, id: 'b', op: 'search', args: { query: QUERY, contextWindow: -r() } });
    case 7:
      return JSON.stringify([1, 2, { v: 1 }]);
    default:
      return JSON.stringify({ v: 1, id: 'c', op: 'search', args: { query: '' }, build: 'x'.repeat(100) });
  }
}

/** Hostile values for MCP tool arguments. */
function hostileValue(r: () => number, depth = 0): unknown {
  const esc = [
    '\u001b]52;c;cHduZWQ=\u0007',
    '\u001b]0;PWNED\u0007',
    '\u009b2J',
    '\u001b[31m',
    '\r',
    '\u0085',
    '\u0000',
  ];
  const str = () =>
    Array.from({ length: 1 + Math.floor(r() * 6) }, () =>
      r() < 0.5 ? esc[Math.floor(r() * esc.length)]! : String.fromCharCode(Math.floor(r() * 0x250)),
    ).join('');
  switch (Math.floor(r() * (depth > 1 ? 5 : 7))) {
    case 0:
      return str();
    case 1:
      return `/${str()}/${str()}.md`;
    case 2:
      return r() < 0.5 ? Math.floor(r() * 2 ** 40) - 2 ** 39 : r() * 1e308;
    case 3:
      return r() < 0.5 ? null : r() < 0.5;
    case 4:
      return str().repeat(1 + Math.floor(r() * 2000));
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => hostileValue(r, depth + 1));
    default:
      return { [str()]: hostileValue(r, depth + 1) };
  }
}

function controlIn(v: unknown, at = '$'): string | undefined {
  if (typeof v === 'string')
    return CONTROL.test(v) ? `${at} = ${JSON.stringify(v).slice(0, 200)}` : undefined;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const hit = controlIn(x, `${at}[${i}]`);
      if (hit) return hit;
    }
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const hit = CONTROL.test(k) ? `${at} key ${JSON.stringify(k)}` : controlIn(x, `${at}.${k}`);
      if (hit) return hit;
    }
  }
  return undefined;
}

export async function runEdgesSuite(opts: EdgesSuiteOptions): Promise<SuiteRow[]> {
  const log = opts.log ?? (() => {});
  const r = rng(opts.seed ?? 0x65646765);
  const home = await homeWithStarter();
  await makeStore(
    home,
    'Notes',
    {
      'kiwi.md': `# Kiwi orchard\n\nThe kiwi orchard irrigation runs every Tuesday.\n${prose('kiwi orchard', 8, 3)}`,
    },
    { autonomous: true },
  );
  const socketPath = serviceSocketPath(home);
  let service: ChildProcess | undefined;
  let serviceLog = '';
  const startService = async () => {
    service = spawn(process.execPath, [BIN, 'service', 'run', '--idle-minutes', '60'], {
      env: { ...process.env, KORTTY_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (d: Buffer) => {
      serviceLog += d.toString('utf8');
    });
    service.stderr!.on('data', (d: Buffer) => {
      serviceLog += d.toString('utf8');
    });
    await waitFor(() => existsSync(socketPath), 'the query service socket', 60_000);
  };
  const rows: SuiteRow[] = [];
  try {
    await startService();
    // The reference answer, and the check every trial ends with: the service still answers it.
    const first = rawClient(socketPath);
    await first.connected();
    await first.write(searchLine('ref'));
    const ref = await first.answer('ref');
    first.close();
    check(
      ref?.type === 'result' && typeof ref.result?.block === 'string',
      `no reference answer: ${JSON.stringify(ref)}`,
    );
    const block = ref.result!.block!;
    check(block.includes('kiwi'), 'the reference block holds the kiwi document');
    const stillAnswers = async (what: string) => {
      check(service!.exitCode === null && service!.signalCode === null, `the service exited after ${what}`);
      const c = rawClient(socketPath);
      try {
        await c.connected();
        await c.write(searchLine('check'));
        const a = await c.answer('check');
        check(
          a?.type === 'result' && a.result?.block === block,
          `after ${what} the answer changed: ${JSON.stringify(a).slice(0, 300)}`,
        );
      } finally {
        c.close();
      }
    };

    const bad = createRow('query socket: malformed frames get an error frame, the connection stays usable');
    log(`edges: ${opts.trials} malformed frames`);
    for (let i = 0; i < opts.trials; i++) {
      await bad.trial(async () => {
        const c = rawClient(socketPath);
        try {
          await c.connected();
          const lines = Array.from({ length: 1 + Math.floor(r() * 4) }, () => malformed(r));
          await c.write(`${lines.join('\n')}\n${searchLine(`ok${i}`)}`);
          const a = await c.answer(`ok${i}`);
          check(
            a?.type === 'result' && a.result?.block === block,
            `good request after garbage: ${JSON.stringify(a).slice(0, 300)}`,
          );
          const errors = c.frames.filter((f) => f.type === 'error').length;
          check(errors >= lines.length, `${lines.length} bad lines, ${errors} error frames`);
        } finally {
          c.close();
        }
      }, `malformed #${i}`);
    }
    await bad.trial(() => stillAnswers('malformed frames'), 'afterwards');
    rows.push(bad);

    const huge = createRow('query socket: huge frames refused unbuffered (TOO_LARGE), service answers on');
    const hugeTrials = Math.max(3, Math.ceil(opts.trials / 10));
    log(`edges: ${hugeTrials} huge frames`);
    for (let i = 0; i < hugeTrials; i++) {
      await huge.trial(async () => {
        const c = rawClient(socketPath);
        try {
          await c.connected();
          const size = MAX_REQUEST_BYTES + 1 + Math.floor(r() * 3 * MAX_REQUEST_BYTES);
          const payload = Buffer.alloc(size, i % 2 === 0 ? 0x78 : 0x7b);
          for (let at = 0; at < size; at += 256 * 1024) await c.write(payload.subarray(at, at + 256 * 1024));
          await c.write(`\n${searchLine(`after${i}`)}`);
          const tooLarge = await c.answer(null);
          check(tooLarge?.error?.code === 'TOO_LARGE', `huge frame: ${JSON.stringify(tooLarge)}`);
          const a = await c.answer(`after${i}`);
          check(a?.type === 'result' && a.result?.block === block, 'a good request after a huge frame');
        } finally {
          c.close();
        }
      }, `huge #${i}`);
    }
    await huge.trial(() => stillAnswers('huge frames'), 'afterwards');
    rows.push(huge);

    const slow = createRow('query socket: requests trickled a few bytes at a time get the same answer');
    const slowTrials = Math.max(3, Math.ceil(opts.trials / 10));
    log(`edges: ${slowTrials} slow frames`);
    for (let i = 0; i < slowTrials; i++) {
      await slow.trial(async () => {
        const c = rawClient(socketPath);
        try {
          await c.connected();
          const line = Buffer.from(searchLine(`slow${i}`));
          for (let at = 0; at < line.length; ) {
            const n = 1 + Math.floor(r() * 12);
            await c.write(line.subarray(at, at + n));
            at += n;
            await sleep(Math.floor(r() * 15));
          }
          const a = await c.answer(`slow${i}`);
          check(
            a?.type === 'result' && a.result?.block === block,
            `slow request: ${JSON.stringify(a).slice(0, 300)}`,
          );
        } finally {
          c.close();
        }
      }, `slow #${i}`);
    }
    rows.push(slow);

    const many = createRow(
      `query socket: ${opts.clients} clients at once: each answered or refused, none hangs`,
    );
    log(`edges: ${opts.clients} clients at once`);
    let answered = 0;
    let refused = 0;
    await many.trial(async () => {
      const clients = Array.from({ length: opts.clients }, () => rawClient(socketPath));
      try {
        const outcomes = await deadline(
          Promise.all(
            clients.map(async (c, i) => {
              try {
                await c.connected();
                await c.write(searchLine(`m${i}`));
              } catch {
                return 'refused';
              }
              const a = await c.answer(`m${i}`, 120_000);
              if (a === null || a.error?.code === 'BUSY') return 'refused';
              check(
                a.type === 'result' && a.result?.block === block,
                `client ${i}: ${JSON.stringify(a).slice(0, 300)}`,
              );
              return 'answered';
            }),
          ),
          180_000,
          'many clients',
        );
        answered = outcomes.filter((o) => o === 'answered').length;
        refused = outcomes.length - answered;
        check(answered > 0, 'no client was answered');
      } finally {
        for (const c of clients) c.close();
      }
    });
    await many.trial(() => stillAnswers('many clients'), 'afterwards');
    many.note(`${answered} answered, ${refused} refused (connection limit)`);
    rows.push(many);

    const deaf = createRow(
      'query socket: a client that never reads is disconnected; others are served meanwhile',
    );
    log('edges: a client that never reads');
    await deaf.trial(async () => {
      const before = serviceLog.length;
      const c = rawClient(socketPath);
      try {
        await c.connected();
        c.sock.pause();
        // Each answer echoes the query it searched; unshaped, a long query makes large answers that
        // fill the socket buffer quickly.
        const query = `${QUERY} ${prose('kiwi orchard', 400, 9)}`.slice(0, 400_000);
        for (let i = 0; i < 16; i++)
          await c.write(
            `${JSON.stringify({ v: 1, id: `d${i}`, op: 'search', args: { query, candidates: 1000, shape: false } })}\n`,
          );
        // Meanwhile another client is served as usual.
        await stillAnswers('a client stopped reading');
        await waitFor(
          () => /disconnected a client that (does not read|did not take)/.test(serviceLog.slice(before)),
          'the service to disconnect the client that does not read',
          60_000,
        );
      } finally {
        c.close();
      }
    });
    await deaf.trial(() => stillAnswers('the deaf client'), 'afterwards');
    rows.push(deaf);

    const mcp = createRow(
      'MCP: hostile arguments to every tool: answers without control bytes, server lives',
    );
    log(`edges: ${opts.trials} hostile MCP calls`);
    const s = await connect(home);
    try {
      const { tools } = await s.client.listTools();
      for (let i = 0; i < opts.trials; i++) {
        const tool = tools[i % tools.length]!;
        const props = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
        const args: Record<string, unknown> = {};
        for (const p of props) if (r() < 0.7) args[p] = hostileValue(r);
        if (r() < 0.3) args[String(hostileValue(r))] = hostileValue(r);
        await mcp.trial(async () => {
          let answer: unknown;
          try {
            answer = await s.client.callTool({ name: tool.name, arguments: args });
          } catch (err) {
            answer = { message: (err as Error).message };
          }
          const hit = controlIn(answer);
          check(hit === undefined, `${tool.name}: ${hit}`);
        }, `${tool.name} #${i}`);
      }
      await mcp.trial(async () => {
        const res = await s.client.callTool({ name: 'search_knowledge', arguments: { query: QUERY } });
        check(!res.isError, 'a good search after the hostile calls');
        check(s.wireErrors.length === 0, `wire errors: ${s.wireErrors.map((e) => e.message).join('; ')}`);
      }, 'afterwards');
    } finally {
      await s.close();
    }
    rows.push(mcp);
  } finally {
    if (service && service.exitCode === null) {
      service.kill('SIGTERM');
      await waitFor(
        () => service!.exitCode !== null || service!.signalCode !== null,
        'the service to stop',
        30_000,
      ).catch(() => service!.kill('SIGKILL'));
    }
  }
  return rows;
}
