import { createError } from '../errors.js';
import { openVault, type Vault, type VaultOptions } from './vault.js';

// Where the vault passphrase comes from: KORTTY_VAULT_PASSPHRASE, else a no-echo prompt on a
// terminal. An I/O shell; the prompt writes to stderr so stdout stays clean for pipes.

export const PASSPHRASE_ENV = 'KORTTY_VAULT_PASSPHRASE';

export interface PromptInput extends NodeJS.EventEmitter {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
  setEncoding?(enc: BufferEncoding): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface PassphraseIO {
  env: NodeJS.ProcessEnv;
  stdin: PromptInput;
  stderr: NodeJS.WritableStream;
}

export function passphraseFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const v = env[PASSPHRASE_ENV];
  return v !== undefined && v.length > 0 ? v : undefined;
}

/**
 * Reads one line from a terminal in raw mode without echoing it. Enter ends it, Backspace and
 * Ctrl-U edit it, Ctrl-C / Ctrl-D (on an empty line) cancel with VAULT_LOCKED. Not a terminal →
 * VAULT_LOCKED, because reading a secret from a pipe would echo nothing but could block forever.
 */
export function promptHidden(
  question: string,
  input: PromptInput,
  output: NodeJS.WritableStream,
): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== 'function')
    return Promise.reject(createError('VAULT_LOCKED'));
  const wasRaw = input.isRaw === true;
  return new Promise((resolve, reject) => {
    let chars: string[] = [];
    let inEscape = false;
    const finish = (err: Error | null) => {
      input.removeListener('data', onData);
      input.setRawMode!(wasRaw);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(chars.join(''));
      chars = [];
    };
    const onData = (data: Buffer | string) => {
      for (const ch of typeof data === 'string' ? data : data.toString('utf8')) {
        if (inEscape) {
          // Skip an escape sequence (arrow keys and the like) up to its final byte.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n') return finish(null);
        if (ch === '\u0003' || (ch === '\u0004' && chars.length === 0))
          return finish(createError('VAULT_LOCKED'));
        if (ch === '\u007f' || ch === '\b') chars.pop();
        else if (ch === '\u0015') chars = [];
        else if (ch === '\u001b') inEscape = true;
        else if (ch >= ' ') chars.push(ch);
      }
    };
    // Raw (no echo) before the question is shown: keys typed after seeing it are never echoed.
    input.setRawMode!(true);
    output.write(question);
    input.on('data', onData);
    input.resume();
  });
}

/** The environment variable if set, else a prompt on the terminal, else VAULT_LOCKED. */
export async function getPassphrase(
  io: PassphraseIO,
  question = 'kortty vault passphrase: ',
): Promise<string> {
  return passphraseFromEnv(io.env) ?? (await promptHidden(question, io.stdin, io.stderr));
}

/** Convenience for commands: get the passphrase and open the vault. */
export async function unlockVault(io: PassphraseIO, opts: VaultOptions = {}): Promise<Vault> {
  return openVault(await getPassphrase(io), opts);
}
