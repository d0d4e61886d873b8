// Child process of the lock suite. Every record goes to one shared log opened with O_APPEND per
// write (appendFileSync), so the file's line order is the order in which the kernel saw them.
//
//   mode contend: loop until REL_DEADLINE (epoch ms) or until the file REL_STOP exists: acquire the
//     store lock, log `enter`, hold it for a random 2..REL_HOLD_MS ms, then `assertHeld()` and log
//     `exit` (or `lost` when another process took the lock: with live, running holders that is a
//     failure), release.
//   mode victim: acquire once, log `enter`, tell the parent (IPC 'holding'), and hold until the
//     parent says 'go' (it SIGSTOPs the victim in there, past the stale bound, then SIGCONTs it
//     and says 'go': a fixed hold could end before a loaded parent stops it), then "activate"
//     the way the index job does: `assertHeld()` first, and only then rename a marker file into
//     place (atomicWrite). Logs `exit` after activating, `lost` when assertHeld refused.
//   mode broken: a check-then-create lock without re-check, for the harness self-check; it too
//     stops at REL_DEADLINE or once REL_STOP exists.

import { appendFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { isKorttyError } from '../../src/errors.js';
import { atomicWrite } from '../../src/storage/atomic-write.js';
import { acquireLock } from '../../src/storage/lock.js';

const lockPath = process.env.REL_LOCK!;
const logPath = process.env.REL_LOG!;
const staleMs = Number(process.env.REL_STALE_MS ?? 1000);
const holdMs = Number(process.env.REL_HOLD_MS ?? 40);
const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const record = (what: string, nonce = '-') =>
  appendFileSync(logPath, `${what} ${process.pid} ${nonce} ${now()}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function acquire() {
  for (;;) {
    try {
      return await acquireLock(lockPath, 'reliability', { staleMs, job: 'rel' });
    } catch (err) {
      if (!isKorttyError(err, 'STORE_BUSY')) throw err;
      await sleep(1 + Math.random() * 4);
    }
  }
}

// The parent ends a contend run early by creating this file (a message could arrive before a
// just-forked child listens for it).
const stopPath = process.env.REL_STOP;

async function contend(deadline: number) {
  while (Date.now() < deadline && !(stopPath && existsSync(stopPath))) {
    const lock = await acquire();
    record('enter', lock.owner.nonce);
    await sleep(2 + Math.random() * (holdMs - 2));
    try {
      await lock.assertHeld();
      record('exit', lock.owner.nonce);
    } catch (err) {
      if (!isKorttyError(err, 'STORE_BUSY')) throw err;
      record('lost', lock.owner.nonce);
    }
    await lock.release();
  }
}

async function victim() {
  const lock = await acquire();
  record('enter', lock.owner.nonce);
  const go = new Promise<void>((r) => process.once('message', () => r()));
  await new Promise<void>((r) => process.send!('holding', undefined, {}, () => r()));
  await go;
  try {
    await lock.assertHeld();
    await atomicWrite(process.env.REL_MARKER!, Buffer.from(`${process.pid}\n`));
    record('exit', lock.owner.nonce);
  } catch (err) {
    if (!isKorttyError(err, 'STORE_BUSY')) throw err;
    record('lost', lock.owner.nonce);
  }
  await lock.release();
}

/** A deliberately broken lock for the harness self-check: check, then create, never re-check. */
async function broken(deadline: number) {
  while (Date.now() < deadline && !(stopPath && existsSync(stopPath))) {
    if (existsSync(lockPath)) {
      await sleep(1 + Math.random() * 3);
      continue;
    }
    await sleep(Math.random() * 2);
    writeFileSync(lockPath, String(process.pid));
    record('enter');
    await sleep(2 + Math.random() * (holdMs - 2));
    record('exit');
    rmSync(lockPath, { force: true });
  }
}

const mode = process.env.REL_MODE;
const deadline = Number(process.env.REL_DEADLINE);
const run = mode === 'victim' ? victim() : mode === 'broken' ? broken(deadline) : contend(deadline);
run.then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
