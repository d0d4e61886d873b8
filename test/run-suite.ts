// `npm test`: runs ava with TMPDIR pointed at one private directory and removes it afterwards,
// pass, fail or interrupt. The suite builds hundreds of stores, corpora, sockets and tmux servers
// under os.tmpdir(); without this a run that fails mid-test (or a test that forgets its cleanup)
// leaves them in /tmp for good, and repeated runs fill the disk.
//
// Arguments are passed to ava unchanged (`npm test -- dist/test/index/*.test.js`).

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// ava's bin sits next to its main entry (the package exports neither its bin nor package.json).
const avaCli = join(dirname(createRequire(import.meta.url).resolve('ava')), 'cli.mjs');
// Short on purpose: sockets live below it and Linux caps their paths at 107 bytes.
const root = mkdtempSync(join(tmpdir(), 'kt-'));
// Like /tmp itself: tests that drop to another user (permission and read-only-home cases) must
// still reach and create their own directories below it.
chmodSync(root, 0o1777);

const child = spawn(process.execPath, [avaCli, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: root },
});

const removeRoot = () => {
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    process.stderr.write(`run-suite: could not remove ${root}: ${(err as Error).message}\n`);
  }
};

// ava owns the terminal's signals while it runs: pass them on and let it finish its own teardown.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));

child.on('exit', (code, signal) => {
  removeRoot();
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});
