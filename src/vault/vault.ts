import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { createError } from '../errors.js';
import { atomicWrite, errReason } from '../storage/atomic-write.js';
import { type FsEnv, nodeFsEnv } from '../storage/fs-env.js';
import { vaultPath } from '../storage/paths.js';
import {
  DEFAULT_SCRYPT,
  decodeSecrets,
  encodeSecrets,
  type KdfFn,
  kdfParamsProblem,
  NONCE_LEN,
  parseVaultFile,
  SALT_LEN,
  type ScryptParams,
  scryptKdf,
  sealVault,
  unsealVault,
} from './vault-format.js';

// The encrypted vault file ($KORTTY_HOME/vault): the I/O shell around vault-format.ts.
// Every save derives a new key from a fresh salt and replaces the file atomically with mode 0600.
// Errors carry the path and a reason, never a secret or the passphrase.

export interface VaultOptions {
  /** Default: vaultPath() under $KORTTY_HOME. */
  path?: string;
  env?: FsEnv;
  /** KDF parameters for writing (bounded). Default DEFAULT_SCRYPT; tests pass small in-bounds values. */
  kdfParams?: ScryptParams;
  /** Injected KDF (tests spy on it). Default: scrypt. */
  kdf?: KdfFn;
}

export interface Vault {
  readonly path: string;
  /** True when no vault file existed yet; nothing is written before save(). */
  readonly isNew: boolean;
  get(name: string): string | undefined;
  has(name: string): boolean;
  set(name: string, secret: string): void;
  delete(name: string): boolean;
  names(): string[];
  /** Re-encrypts everything under a fresh salt and nonce and atomically replaces the file (0600). */
  save(): Promise<void>;
}

/** The vault entry holding a Qdrant store's API key. */
export const qdrantSecretName = (storeId: string) => `qdrant/${storeId}/api-key`;

const NAME = /^[\x21-\x7e]{1,200}$/;

export async function openVault(passphrase: string, opts: VaultOptions = {}): Promise<Vault> {
  const path = opts.path ?? vaultPath();
  const env = opts.env ?? nodeFsEnv;
  const kdf = opts.kdf ?? scryptKdf;
  const writeParams = opts.kdfParams ?? DEFAULT_SCRYPT;
  if (typeof passphrase !== 'string' || passphrase.length === 0) {
    throw createError('INVALID_ARGUMENT', { name: 'passphrase', reason: 'must not be empty' });
  }
  const writeProblem = kdfParamsProblem(writeParams);
  if (writeProblem) throw createError('VAULT_KDF_PARAMS', { path, reason: writeProblem });
  // NFC so the same passphrase typed on another keyboard layout or OS still unlocks the vault.
  const pass = () => Buffer.from(passphrase.normalize('NFC'), 'utf8');

  let bytes: Buffer | null = null;
  try {
    bytes = await env.readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw createError('IO_FAILED', { path, op: 'read', reason: errReason(err) });
    }
  }
  let secrets = new Map<string, string>();
  if (bytes !== null) {
    const parsed = parseVaultFile(bytes, path);
    const key = await derive(kdf, pass(), parsed.header.salt, parsed.header.params, path);
    secrets = decodeSecrets(unsealVault(key, parsed, path), path);
  }

  let saving: Promise<void> = Promise.resolve();
  const checkName = (name: string) => {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw createError('INVALID_ARGUMENT', {
        name: 'secret name',
        reason: 'use 1-200 printable ASCII characters',
      });
    }
  };

  const writeOnce = async () => {
    const snapshot = new Map(secrets);
    const header = { params: writeParams, salt: randomBytes(SALT_LEN), nonce: randomBytes(NONCE_LEN) };
    const key = await derive(kdf, pass(), header.salt, header.params, path);
    const file = sealVault(key, header, encodeSecrets(snapshot));
    try {
      await env.mkdir(dirname(path));
    } catch (err) {
      throw createError('IO_FAILED', { path: dirname(path), op: 'mkdir', reason: errReason(err) });
    }
    await atomicWrite(path, file, {
      env,
      mode: 0o600,
      // Re-read the synced candidate and decrypt it with the same key before it replaces the vault.
      verify: (written) => {
        const back = decodeSecrets(unsealVault(key, parseVaultFile(written, path), path), path);
        if (encodeSecrets(back).compare(encodeSecrets(snapshot)) !== 0) {
          throw createError('VAULT_CORRUPT', { path, reason: 'written candidate does not read back' });
        }
      },
    });
  };

  return {
    path,
    isNew: bytes === null,
    get: (name) => secrets.get(name),
    has: (name) => secrets.has(name),
    set(name, secret) {
      checkName(name);
      if (typeof secret !== 'string') {
        throw createError('INVALID_ARGUMENT', { name: `secret ${name}`, reason: 'must be a string' });
      }
      secrets.set(name, secret);
    },
    delete: (name) => secrets.delete(name),
    names: () => [...secrets.keys()].sort(),
    save() {
      // Serialised: two overlapping saves must not interleave their temp files and renames.
      const next = saving.then(writeOnce, writeOnce);
      saving = next.catch(() => {});
      return next;
    },
  };
}

async function derive(
  kdf: KdfFn,
  pass: Buffer,
  salt: Buffer,
  params: ScryptParams,
  path: string,
): Promise<Buffer> {
  const problem = kdfParamsProblem(params);
  if (problem) throw createError('VAULT_KDF_PARAMS', { path, reason: problem });
  try {
    return await kdf(pass, salt, params);
  } catch (err) {
    // scrypt errors name parameters, never the input; still, only the code is kept.
    throw createError('VAULT_KDF_PARAMS', {
      path,
      reason: `key derivation failed (${(err as { code?: string }).code ?? 'error'})`,
    });
  } finally {
    pass.fill(0);
  }
}
