import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import pty from 'node-pty';
import { isKorttyError } from '../../src/errors.js';
import {
  getPassphrase,
  PASSPHRASE_ENV,
  passphraseFromEnv,
  promptHidden,
} from '../../src/vault/passphrase.js';

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-pass-home-'));

const passphraseModule = fileURLToPath(new URL('../../src/vault/passphrase.js', import.meta.url));

/** Runs promptHidden in a child on a real pseudo-terminal; returns everything the terminal showed. */
async function promptOnPty(keys: string): Promise<{ screen: string; exitCode: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-pty-'));
  const script = join(dir, 'prompt.mjs');
  await writeFile(
    script,
    `import { createHash } from 'node:crypto';
import { promptHidden } from ${JSON.stringify(passphraseModule)};
try {
  const s = await promptHidden('Passphrase: ', process.stdin, process.stderr);
  process.stdout.write('HASH:' + createHash('sha256').update(s).digest('hex') + ':END\\n');
  process.exit(0);
} catch (e) {
  process.stdout.write('CODE:' + e.code + ':END\\n');
  process.exit(3);
}
`,
  );
  const child = pty.spawn(process.execPath, [script], { cols: 100, rows: 10, env: { ...process.env } });
  let screen = '';
  let sent = false;
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill();
      reject(new Error(`prompt child did not finish; screen so far: ${JSON.stringify(screen)}`));
    }, 20_000);
    child.onData((d) => {
      screen += d;
      // Type only once the prompt is shown, i.e. raw mode is on.
      if (!sent && screen.includes('Passphrase: ')) {
        sent = true;
        child.write(keys);
      }
    });
    child.onExit(({ exitCode }) => {
      clearTimeout(guard);
      resolve({ screen, exitCode });
    });
  });
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('the prompt reads a passphrase on a real terminal without echoing it (backspace and arrow keys handled)', async (t) => {
  const { screen, exitCode } = await promptOnPty('pa55-w0rX\x7fd\x1b[A\r');
  t.is(exitCode, 0, screen);
  t.true(screen.includes(`HASH:${sha('pa55-w0rd')}:END`), screen);
  t.false(screen.includes('pa55'), screen);
  t.false(screen.includes('w0r'), screen);
});

test('Ctrl-C at the prompt cancels with VAULT_LOCKED', async (t) => {
  const { screen, exitCode } = await promptOnPty('abc\x03');
  t.is(exitCode, 3, screen);
  t.true(screen.includes('CODE:VAULT_LOCKED:END'), screen);
  t.false(screen.includes('abc'), screen);
});

test('without a terminal there is no prompt: VAULT_LOCKED', async (t) => {
  const input = new PassThrough();
  const err = await t.throwsAsync(promptHidden('Passphrase: ', input, new PassThrough()));
  t.true(isKorttyError(err, 'VAULT_LOCKED'));
  t.regex(err!.message, /KORTTY_VAULT_PASSPHRASE/);
});

test('the environment variable wins and an empty one does not count', async (t) => {
  const stdin = new PassThrough();
  t.is(
    await getPassphrase({ env: { [PASSPHRASE_ENV]: 'from-env' }, stdin, stderr: new PassThrough() }),
    'from-env',
  );
  t.is(passphraseFromEnv({ [PASSPHRASE_ENV]: '' }), undefined);
  const err = await t.throwsAsync(
    getPassphrase({ env: { [PASSPHRASE_ENV]: '' }, stdin, stderr: new PassThrough() }),
  );
  t.true(isKorttyError(err, 'VAULT_LOCKED'));
});
