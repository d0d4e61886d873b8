import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port closed by one test can be handed to another test's `listen(0)` at once (ava runs tests
// concurrently), and a request meant to be refused then reaches that test's server. The kernel
// hands out `listen(0)` ports only from its ephemeral range, so a port below that range that is
// free now stays refused until someone asks for it by number.

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux: the IANA range starts at 49152
  }
  return 49152;
}

function tryListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

// Never the same port twice to one test process: one test may listen on it by number.
const given = new Set<number>();

/** A loopback port below the ephemeral range that nothing listens on now. */
export async function quietPort(): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, high >> 1);
  for (let i = 0; i < 50; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (given.has(port)) continue;
    given.add(port);
    if (await tryListen(port)) return port;
  }
  throw new Error(`no free loopback port in ${low}-${high - 1} after 50 tries`);
}
