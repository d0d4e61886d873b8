import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { createError } from '../../src/errors.js';
import { acquireLock } from '../../src/storage/lock.js';
import { tempDir } from '../helpers/store-env.js';

// A lock whose heartbeat lies in the future (a clock set back, a restored copy, a skewed host)
// is watched for staleMs rather than trusted: taken over when it does not move, whatever its
// owner record says (damaged, another host); kept when its live holder keeps touching it.

const STALE_MS = 400;
const DAY_MS = 24 * 3600 * 1000;

async function leftLock(owner: string): Promise<string> {
  const lock = join(await tempDir('kortty-lock-'), 'lock');
  await mkdir(lock);
  await writeFile(join(lock, 'owner.json'), owner);
  const future = new Date(Date.now() + DAY_MS);
  await utimes(lock, future, future);
  return lock;
}

const ownerOn = (host: string, pid: number) =>
  JSON.stringify({ pid, host, nonce: 'abcd', job: 'sync', startedAt: new Date().toISOString() });

for (const [what, owner] of [
  ['a damaged owner record', '{"pid": 12, "ho'],
  ['an owner on another host (its pid alive here)', ownerOn('elsewhere.example', process.pid)],
] as const) {
  test(`a lock with a future heartbeat and ${what} is taken over once it stays still`, async (t) => {
    const lock = await leftLock(owner);
    const started = Date.now();
    const held = await acquireLock(lock, 'Docs', { staleMs: STALE_MS, job: 'sync' });
    try {
      t.true(Date.now() - started >= STALE_MS, 'it was watched for staleMs first');
      t.true((await stat(lock)).mtimeMs <= Date.now() + 1000, 'the new lock carries our clock');
      await held.assertHeld();
    } finally {
      await held.release();
    }
  });
}

test('a live holder whose heartbeat was pushed into the future keeps its lock', async (t) => {
  const lock = join(await tempDir('kortty-lock-'), 'lock');
  const holder = await acquireLock(lock, 'Docs', { staleMs: STALE_MS, heartbeatMs: 50, job: 'update' });
  try {
    const future = new Date(Date.now() + DAY_MS);
    await utimes(lock, future, future);
    const err = await t.throwsAsync(acquireLock(lock, 'Docs', { staleMs: STALE_MS, job: 'sync' }));
    t.is((err as { code?: string }).code, 'STORE_BUSY');
    t.regex(err!.message, /^an update is already running for store "Docs"/);
    await holder.assertHeld();
  } finally {
    await holder.release();
  }
});

test('busy messages take the right article', (t) => {
  t.is(
    createError('STORE_BUSY', { store: 'S', job: 'install', pid: 7 }).message,
    'an install is already running for store "S" (pid 7)',
  );
  t.is(
    createError('STORE_BUSY', { store: 'S', job: 'sync', pid: 7 }).message,
    'a sync is already running for store "S" (pid 7)',
  );
});
